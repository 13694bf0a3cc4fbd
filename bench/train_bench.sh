#!/usr/bin/env bash
# Training speed side by side: attnlab-bench --train natively and as WebAssembly (under node), and the
# PyTorch peer (bench/torch_train_peer.py: same model and optimiser, one thread), in ROUNDS interleaved
# rounds so that a busy machine slows all three alike. Prints every JSON line, then one summary line per
# case with the median steps/s of each and the ratios to PyTorch.
#   bench/train_bench.sh NATIVE_BENCH WASM_BENCH_CJS [ROUNDS=3] [--quick]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
native=${1:?native attnlab-bench}
wasm=${2:?WebAssembly attnlab-bench.cjs}
rounds=${3:-3}
quick=${4:-}
py=${PYTHON:-/usr/bin/python3}  # Debian's python3-torch lives in the system Python
lines=$(mktemp)
trap 'rm -f "$lines"' EXIT
for ((r = 1; r <= rounds; r++)); do
  "$native" --train $quick | tee -a "$lines"
  node --no-experimental-fetch "$here/run_wasm_bench.mjs" "$wasm" --train $quick | sed 's/"impl":"engine-train"/"impl":"engine-train-wasm"/' | tee -a "$lines"
  if "$py" -c "import torch" 2> /dev/null; then
    "$py" "$here/torch_train_peer.py" $quick | tee -a "$lines"
  else
    echo "bench/train_bench.sh: python3-torch is not installed: no PyTorch peer (apt-get install python3-torch)" >&2
  fi
done
python3 - "$lines" <<'PY'
import json, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    d = json.loads(line)
    runs.setdefault((d["d_model"], d["heads"]), {}).setdefault(d["impl"], []).append(d["steps_per_s"])
for (d_model, heads), impls in sorted(runs.items()):
    med = {k: statistics.median(v) for k, v in impls.items()}
    out = {"impl": "summary", "layers": 2, "d_model": d_model, "heads": heads, "n": 32, "batch": 32,
           "native_steps_per_s": med.get("engine-train"), "wasm_steps_per_s": med.get("engine-train-wasm"),
           "pytorch_steps_per_s": med.get("pytorch")}
    if "pytorch" in med:
        if "engine-train" in med: out["native_vs_pytorch"] = round(med["engine-train"] / med["pytorch"], 2)
        if "engine-train-wasm" in med: out["wasm_vs_pytorch"] = round(med["engine-train-wasm"] / med["pytorch"], 2)
    print(json.dumps(out))
PY
