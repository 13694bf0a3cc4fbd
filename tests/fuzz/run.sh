#!/usr/bin/env bash
# Runs the config fuzzer (the CMake target fuzz_config of the sanitizer build) for SECONDS (default
# 20), seeded with the presets and a few hostile inputs. Usage: tests/fuzz/run.sh FUZZER [SECONDS]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
fuzzer=$1
seconds=${2:-20}
corpus="$(dirname "$fuzzer")/fuzz_corpus"
mkdir -p "$corpus"
cp "$here"/assets/presets/*.json "$corpus/"
printf '{"text":"\xff\xfe","mask":[{"custom":[[1]]}]}' > "$corpus/bad.json"
printf '{"mask":{"window":2,"causal":false},"positional":"rope","cross":true,"source":"a b c"}' > "$corpus/window.json"
printf '{"heads":1,"heads":2}' > "$corpus/duplicate.json"
"$fuzzer" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 "$corpus" 2>&1 | tail -n 3
