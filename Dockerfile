# One image for every role; the role is chosen at run time with SERVICES.
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
ENV NODE_ENV=production MOL_LOG_FORMAT=json
EXPOSE 3000 9464
CMD ["node", "server.ts"]
