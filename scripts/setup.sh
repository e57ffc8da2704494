#!/bin/sh
# Installs BreakerBar's npm dependencies exactly as locked, on a Node new enough to run it.
#
# The Node: the one on PATH when it satisfies package.json's `engines.node`; otherwise Node 24
# from the npm package `node-<platform>-<arch>@24` (the binary and its headers), fetched once
# into .cache/node24 in this checkout. npm is the only network this needs: no nodejs.org,
# no version manager.
#
# better-sqlite3 is a native addon built for one Node ABI, so `npm ci` runs with that Node
# first on PATH and `npm_config_nodedir` naming its headers (node-gyp would otherwise try to
# download them). When the Node is the fetched one, a `node_modules/.bin/node` link to it makes
# every later `npm start` / `npm test` / `npm run …` use it too, even though npm itself runs on
# the older Node: npm puts `node_modules/.bin` first on PATH for its scripts, so `node …` and
# every `#!/usr/bin/env node` tool (tsc, vitest) finds the link first. `npm ci` empties
# node_modules, so the link is made after it, and setting up again makes it again.
#
# Electron's runtime is not part of this: since Electron 42 its npm package no longer downloads
# it on install, only when the app is first started (`npm start` does that where there is a
# display). So `npm ci` needs no access to Electron's download host, and the headless daemon
# never needs the runtime at all.
set -e
cd "$(dirname "$0")/.."
ROOT=$(pwd)

# The oldest Node BreakerBar runs on, read from package.json ("node": ">=X.Y") so it is written once.
MIN=$(sed -n 's/^ *"node": *">=\([0-9][0-9.]*\)".*/\1/p' package.json | head -n 1)
if [ -z "$MIN" ]; then
  echo "setup: package.json has no engines.node of the form \">=X.Y\"" >&2
  exit 1
fi

# Succeeds when the node binary $1 runs and is at least $MIN.
new_enough() {
  "$1" -e '
    const want = process.argv[1].split(".").map(Number);
    const have = process.versions.node.split(".").map(Number);
    for (let i = 0; i < 3; i++) {
      if ((have[i] ?? 0) !== (want[i] ?? 0)) process.exit((have[i] ?? 0) > (want[i] ?? 0) ? 0 : 1);
    }' "$MIN" 2>/dev/null
}

# PATH without node_modules/.bin directories: under `npm run setup` they come first, and a
# link left there by an earlier setup is ours, not the machine's Node.
MACHINE_PATH=""
OLD_IFS=$IFS
IFS=:
for dir in $PATH; do
  case "$dir" in
    */node_modules/.bin) ;;
    *) MACHINE_PATH="${MACHINE_PATH:+$MACHINE_PATH:}$dir" ;;
  esac
done
IFS=$OLD_IFS
MACHINE_NODE=$(PATH=$MACHINE_PATH command -v node || true)

if [ -n "$MACHINE_NODE" ] && new_enough "$MACHINE_NODE"; then
  NODE=$MACHINE_NODE
  NODE_DIR=""
  echo "setup: using Node $("$NODE" --version) from PATH ($NODE): it satisfies engines.node >=$MIN"
else
  case "$(uname -s)" in
    Linux) PLATFORM=linux ;;
    Darwin) PLATFORM=darwin ;;
    *) echo "setup: no Node >=$MIN on PATH, and no Node 24 package for $(uname -s); install Node 24 and run again" >&2; exit 1 ;;
  esac
  case "$(uname -m)" in
    x86_64 | amd64) ARCH=x64 ;;
    aarch64 | arm64) ARCH=arm64 ;;
    *) echo "setup: no Node >=$MIN on PATH, and no Node 24 package for $(uname -m); install Node 24 and run again" >&2; exit 1 ;;
  esac
  PACKAGE="node-$PLATFORM-$ARCH@24"
  CACHE="$ROOT/.cache/node24"
  NODE_DIR="$CACHE/package"
  NODE="$NODE_DIR/bin/node"
  # The marker is written last, so an interrupted fetch is redone instead of trusted.
  if [ ! -f "$CACHE/.installed" ] || ! new_enough "$NODE"; then
    echo "setup: fetching $PACKAGE from the npm registry into .cache/node24 (once)"
    rm -rf "$CACHE"
    mkdir -p "$CACHE"
    TARBALL=$(PATH=$MACHINE_PATH npm pack "$PACKAGE" --pack-destination "$CACHE" --silent --no-update-notifier | tail -n 1)
    tar -xzf "$CACHE/$TARBALL" -C "$CACHE"
    rm -f "$CACHE/$TARBALL"
    if ! new_enough "$NODE"; then
      echo "setup: $PACKAGE unpacked into .cache/node24, but $NODE does not run as Node >=$MIN" >&2
      exit 1
    fi
    echo "$PACKAGE $("$NODE" --version)" >"$CACHE/.installed"
  fi
  if [ -n "$MACHINE_NODE" ]; then
    WHY="the Node on PATH ($MACHINE_NODE) is $("$MACHINE_NODE" --version), older than engines.node >=$MIN"
  else
    WHY="there is no node on PATH"
  fi
  echo "setup: using Node $("$NODE" --version) from .cache/node24 ($PACKAGE): $WHY; every npm script will run on it"
fi

# node-gyp compiles better-sqlite3 against the Node's own headers when no prebuilt binary can be
# fetched: the package's, or those beside a Node on PATH installed with them (else node-gyp downloads them).
NODEDIR=${NODE_DIR:-$(dirname "$(dirname "$NODE")")}
if [ -f "$NODEDIR/include/node/common.gypi" ]; then
  npm_config_nodedir=$NODEDIR
  export npm_config_nodedir
fi
PATH="$(dirname "$NODE"):$MACHINE_PATH" npm ci --no-audit --no-fund

if [ -n "$NODE_DIR" ]; then
  ln -sf "$NODE" node_modules/.bin/node
fi
