#!/bin/sh
# Installs BreakerBar's npm dependencies exactly as locked.
#
# Electron's runtime is downloaded by electron's own postinstall step. On machines
# without access to Electron's download host (CI, sandboxes, servers) that step fails
# and takes `npm ci` down with it, so we skip it here; `npm start` runs the headless
# daemon, which needs no Electron. The menu-bar app fetches its runtime on first use.
set -e
cd "$(dirname "$0")/.."
ELECTRON_SKIP_BINARY_DOWNLOAD=1 npm ci --no-audit --no-fund
