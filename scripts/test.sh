#!/usr/bin/env bash
# Sets up and runs every test of Attention Lab (the README's test command; CI runs exactly this).
#   1. native build: engine, CLI, NumPy golden, headless UI and desktop (Xvfb) tests via ctest
#   2. the engine/CLI/golden tests again in a Debug build with AddressSanitizer + UBSan (clang), and
#      the config fuzzer (a target of that build) for 20 s
#   3. the same engine/CLI/golden tests built as WebAssembly and run under node via ctest
#   4. the web app built with build_wasm.sh and driven in headless Chromium (node --test)
# Ends with one line "N passed, N failed" over the suites.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
jobs=$(nproc)
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}

"$here/scripts/setup.sh" || exit 1

passed=0 failed=0
suite() {  # suite NAME COMMAND...
  local name=$1
  shift
  echo "=== $name"
  local t0=$SECONDS
  if "$@"; then
    passed=$((passed + 1))
    echo "=== $name: ok ($((SECONDS - t0)) s)"
  else
    failed=$((failed + 1))
    echo "=== $name: FAILED ($((SECONDS - t0)) s)"
  fi
}

native() {
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null &&
    cmake --build build -j"$jobs" &&
    ctest --test-dir build --output-on-failure -j"$jobs"
}
sanitized() {
  CXX=clang++ cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DATTNLAB_SANITIZE=ON -DATTNLAB_UI=OFF -DATTNLAB_BENCH=OFF > /dev/null &&
    cmake --build build-asan -j"$jobs" &&
    ctest --test-dir build-asan --output-on-failure -j"$jobs"
}
# The WebAssembly tests build in the web app's own build folder (build_wasm.sh's), so the engine and io
# libraries compile once for both: the browser suite's build then only adds the UI and the shells.
wasm_tests() {
  emcmake cmake -S . -B build-web -DCMAKE_BUILD_TYPE=Release -DATTNLAB_TESTS=ON -DATTNLAB_BENCH=OFF > /dev/null &&
    cmake --build build-web -j"$jobs" --target attnlab_engine_tests attnlab_io_tests attnlab_i18n_tests attnlab-cli &&
    ctest --test-dir build-web --output-on-failure -j"$jobs"
}
browser() {
  local site
  site=$("$here/build_wasm.sh" | tail -n 1) || return 1
  # Two test files at a time where Node can (20.10 and newer): each file drives its own Chromium, and
  # much of a test is waiting for frames, so two at once finish sooner on two cores.
  local concurrency=()
  node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 10) ? 0 : 1)' &&
    concurrency=(--test-concurrency=2)
  (cd tests/e2e && ATTNLAB_SITE="$site" ATTNLAB_CLI="$here/build/attnlab-cli" ATTNLAB_OUT="$here/build/e2e" node --test "${concurrency[@]}")
}

suite "native build + ctest (engine, CLI, NumPy golden, headless UI, desktop under Xvfb)" native
suite "ASan+UBSan Debug build + ctest (engine, CLI, NumPy golden, fuzzer)" sanitized
suite "WebAssembly build + ctest under node (engine, CLI, NumPy golden)" wasm_tests
suite "web app in headless Chromium (screenshots in build/e2e)" browser

echo "suites: $passed passed, $failed failed"
[ $failed -eq 0 ]
