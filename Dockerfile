# One image for every role; the role is chosen at run time with SERVICES.

# The web dashboard (/app): bundled with the dev dependencies (esbuild, preact, chart.js), only its output is kept.
FROM node:24-bookworm-slim AS dashboard
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY app app
COPY clients/typescript/src clients/typescript/src
COPY scripts/build-app.ts scripts/
RUN node scripts/build-app.ts

FROM node:24-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# The image already has Node 24 and its headers, so libxmljs2 builds directly.
RUN npm ci --omit=dev
COPY . .
RUN node schematrons/build.ts

FROM node:24-bookworm-slim
WORKDIR /app
COPY --from=build /app /app
COPY --from=dashboard /app/app/dist /app/app/dist
ENV NODE_ENV=production MOL_LOG_FORMAT=json
EXPOSE 3000 9464
CMD ["node", "server.ts"]
