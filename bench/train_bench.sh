#!/usr/bin/env bash
# Training speed side by side: attnlab-bench --train natively and as WebAssembly (under node), and the
# PyTorch peer (bench/torch_train_peer.py: same model and optimiser, one thread), in ROUNDS interleaved
# rounds so that a busy machine slows all three alike. Prints every JSON line, then one "round" line per
# round and case with that round's steps/s and ratios to PyTorch, then one "summary" line per case with
# the median steps/s of each and the ratios of the medians.
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
runs, rounds, shapes = {}, {}, {}
for line in open(sys.argv[1]):
    d = json.loads(line)
    # what each side measured (every line says it): the three must have trained the same model
    shape = {k: d[k] for k in ("layers", "d_model", "heads", "n", "batch")}
    if shapes.setdefault((d["d_model"], d["heads"]), shape) != shape:
        sys.exit(f"train_bench.sh: {d['impl']} measured {shape}, another side {shapes[(d['d_model'], d['heads'])]}")
    rates = runs.setdefault((d["d_model"], d["heads"]), {}).setdefault(d["impl"], [])
    rates.append(d["steps_per_s"])
    rounds.setdefault((len(rates), d["d_model"], d["heads"]), {})[d["impl"]] = d["steps_per_s"]


def line(impl, d_model, heads, rate, **extra):
    out = {"impl": impl, **extra, **shapes[(d_model, heads)],
           "native_steps_per_s": rate.get("engine-train"), "wasm_steps_per_s": rate.get("engine-train-wasm"),
           "pytorch_steps_per_s": rate.get("pytorch")}
    if "pytorch" in rate:
        if "engine-train" in rate: out["native_vs_pytorch"] = round(rate["engine-train"] / rate["pytorch"], 2)
        if "engine-train-wasm" in rate: out["wasm_vs_pytorch"] = round(rate["engine-train-wasm"] / rate["pytorch"], 2)
    print(json.dumps(out))


# every round's ratios (the goals hold "in every run"), then the medians over the rounds
for (r, d_model, heads), rate in sorted(rounds.items()):
    line("round", d_model, heads, rate, round=r)
for (d_model, heads), impls in sorted(runs.items()):
    line("summary", d_model, heads, {k: round(statistics.median(v), 1) for k, v in impls.items()})
PY
