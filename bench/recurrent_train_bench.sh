#!/usr/bin/env bash
# Training speed of the delayed copy's three models side by side: attnlab-bench --train-recurrent
# (natively; micro-batches of 8, the trainer's default, and the whole batch of 32 in one pass) and the
# PyTorch peer (bench/torch_recurrent_peer.py, one thread), in ROUNDS interleaved rounds so that a busy
# machine slows both alike. Prints every JSON line, then one summary line per model: median steps/s and
# the ratios to PyTorch.
#   bench/recurrent_train_bench.sh NATIVE_BENCH [ROUNDS=3] [--quick]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
native=${1:?native attnlab-bench}
rounds=${2:-3}
quick=${3:-}
py=${PYTHON:-/usr/bin/python3}  # Debian's python3-torch lives in the system Python
lines=$(mktemp)
trap 'rm -f "$lines"' EXIT
for ((r = 1; r <= rounds; r++)); do
  "$native" --train-recurrent $quick | tee -a "$lines"
  "$py" "$here/torch_recurrent_peer.py" $quick | tee -a "$lines"
done
python3 - "$lines" <<'PY'
import json, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    d = json.loads(line)
    key = d["impl"] + ("" if d["impl"] == "pytorch" else f"-micro{d['micro_batch']}")
    runs.setdefault(d["model"], {}).setdefault(key, []).append(d["steps_per_s"])
for model, impls in runs.items():
    med = {k: statistics.median(v) for k, v in impls.items()}
    out = {"impl": "summary", "task": "delayed_copy", "model": model, "n": 32, "batch": 32,
           "native_micro8_steps_per_s": med.get("engine-train-micro8"),
           "native_micro32_steps_per_s": med.get("engine-train-micro32"), "pytorch_steps_per_s": med.get("pytorch")}
    if "pytorch" in med:
        for k in ["engine-train-micro8", "engine-train-micro32"]:
            if k in med:
                out[k.replace("engine-train-", "native_") + "_vs_pytorch"] = round(med[k] / med["pytorch"], 2)
    print(json.dumps(out))
PY
