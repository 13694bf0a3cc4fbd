#!/usr/bin/env bash
# Builds the config fuzzer with clang's libFuzzer + ASan + UBSan and runs it for SECONDS (default 20)
# from the presets as seeds. Usage: tests/fuzz/run.sh [SECONDS] [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
seconds=${1:-20}
build=${2:-$here/build}
out="$build/fuzz"
mkdir -p "$out/corpus"
cp "$here"/assets/presets/*.json "$out/corpus/"
printf '{"text":"\xff\xfe","mask":[{"custom":[[1]]}]}' > "$out/corpus/bad.json"
srcs=("$here"/src/engine/{config,tokenizer,embedding,positional,mask,engine,explain,handmade_heads,reference,dispatch,kernels_native,kernels_scalar}.cpp
      "$here"/src/io/{config_json,result_json}.cpp "$build/generated/embeddings_data.cpp")
[ -f "$build/generated/embeddings_data.cpp" ] || { echo "run the native build first (cmake -B $build)" >&2; exit 1; }
clang++ -std=gnu++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$here/src/engine" -I"$here/src/io" -isystem "$build/sysinc" \
  "$here/tests/fuzz/fuzz_config.cpp" "${srcs[@]}" -o "$out/fuzz_config"
"$out/fuzz_config" -max_total_time="$seconds" -max_len=4096 -timeout=10 "$out/corpus" 2>&1 | tail -n 3
