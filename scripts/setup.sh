#!/usr/bin/env bash
# Installs what Attention Lab needs to build and test, on Debian/Ubuntu, as root.
# Idempotent: a second run installs nothing and takes about a second.
#
#   scripts/setup.sh            everything (build + tests + bench)
#   scripts/setup.sh --demo     only what the web demo needs
#
# Elsewhere (not root, or no apt-get) it prints the packages to install and stops.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mode=${1:-all}

demo_pkgs=(cmake make g++ python3 nodejs emscripten libglm-dev nlohmann-json3-dev fonts-dejavu-core fonts-wqy-microhei python3-fonttools dpkg-dev xz-utils)
test_pkgs=(git libglfw3-dev libgtest-dev
           libopenblas-dev python3-numpy xvfb xauth x11-utils imagemagick xdotool chromium npm
           libgl1-mesa-dri clang libclang-rt-dev wabt)
pkgs=("${demo_pkgs[@]}")
[ "$mode" = "--demo" ] || pkgs+=("${test_pkgs[@]}")
# A browser given by CHROMIUM (e.g. on Ubuntu, whose chromium package is a snap) replaces Debian's.
if [ -n "${CHROMIUM:-}" ]; then
  [ -x "$CHROMIUM" ] || { echo "setup: CHROMIUM=$CHROMIUM is not an executable file" >&2; exit 1; }
  kept=()
  for p in "${pkgs[@]}"; do [ "$p" = chromium ] || kept+=("$p"); done
  pkgs=("${kept[@]}")
fi

# -- 1. Debian packages -------------------------------------------------------------------------------
missing=()
for p in "${pkgs[@]}"; do
  # A non-Debian node or npm already on PATH is good enough (these machines ship Node 20 that way).
  case $p in nodejs) command -v node >/dev/null && continue ;; npm) command -v npm >/dev/null && continue ;; esac
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "setup: please install these packages (Debian/Ubuntu names), then run again:" >&2
    echo "  apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

# -- 2. Node.js: 18 or newer (Debian 12 and Ubuntu 24.04 ship 18; the npm packages below are pinned to
#       versions that support it). Emscripten, the WebAssembly tests and the browser tests run on it.
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 18 ]; then
  echo "setup: Node.js 18 or newer is needed; found $(node --version 2>/dev/null || echo 'no node') at $(command -v node || echo '(none)')." >&2
  echo "  Debian 12 and Ubuntu 24.04: 'apt-get install nodejs npm' (18.x). Older systems: install Node.js 18+ from" >&2
  echo "  your distribution's backports, or put a newer node first on PATH, then run this again." >&2
  exit 1
fi

# -- 3. Dear ImGui 1.86 source, from Debian's source package, into an ignored folder ------------------
"$here/scripts/fetch_imgui.sh" >/dev/null

# -- 4. npm packages for the browser tests and the WASM benchmark (never a downloaded browser), exactly
#       as their lockfiles pin them; reinstalled when a lockfile changes.
npm_ci() {  # npm_ci DIR
  local stamp="$1/node_modules/.attnlab-lock"
  cmp -s "$1/package-lock.json" "$stamp" 2>/dev/null && return 0
  (cd "$1" && npm ci --no-audit --no-fund --loglevel=error) && cp "$1/package-lock.json" "$stamp"
}
if [ "$mode" != "--demo" ]; then
  npm_ci "$here/tests/e2e"
  npm_ci "$here/bench"
fi
echo "setup: ok"
