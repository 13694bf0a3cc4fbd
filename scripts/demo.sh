#!/usr/bin/env bash
# Sets up, builds and serves the web app on 127.0.0.1 (the README's demo command).
#   scripts/demo.sh [PORT]     default port 8080; prints the URL to open
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$here/scripts/setup.sh" --demo
exec "$here/build_wasm.sh" --serve "${1:-8080}"
