#!/usr/bin/env bash
# Builds the Attention Lab web app into a self-contained folder any static web server can host,
# and prints that folder's absolute path as the last line.
#
#   ./build_wasm.sh                 release build (-O3, wasm SIMD)
#   ./build_wasm.sh --debug         debug build (assertions, no optimisation)
#   ./build_wasm.sh --serve [PORT]  build, then serve it on 127.0.0.1 (default port 8080) and print the URL
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build_type=Release build_dir="$here/build-web" serve=0 port=8080
while [ $# -gt 0 ]; do
  case $1 in
    --debug) build_type=Debug build_dir="$here/build-web-debug" ;;
    --serve) serve=1; if [[ ${2:-} =~ ^[0-9]+$ ]]; then port=$2; shift; fi ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) echo "build_wasm.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
  esac
  shift
done
command -v emcmake >/dev/null || { echo "build_wasm.sh: Emscripten is missing: run scripts/setup.sh --demo (or apt-get install emscripten)" >&2; exit 1; }
# Debian's emscripten needs Debian's node modules (acorn); the machine's node may not see them.
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
emcmake cmake -S "$here" -B "$build_dir" -DCMAKE_BUILD_TYPE=$build_type -DATTNLAB_TESTS=OFF -DATTNLAB_BENCH=OFF >/dev/null
cmake --build "$build_dir" --target attnlab_web -j"$(nproc)" >&2
site="$build_dir/site"
for f in index.html app.js boot-words.js style.css worker.js attnlab.js attnlab.wasm attnlab-worker.js attnlab-worker.wasm; do
  [ -f "$site/$f" ] || { echo "build_wasm.sh: $site/$f is missing after the build" >&2; exit 1; }
done
if [ $serve = 1 ]; then
  echo "$site"
  echo "Attention Lab: http://127.0.0.1:$port/  (Ctrl+C stops the server)"
  cd "$site" && exec python3 -m http.server "$port" --bind 127.0.0.1
fi
echo "$site"
