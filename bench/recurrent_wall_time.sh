#!/usr/bin/env bash
# The wall time of one forward + backward pass against n, per model (attnlab-bench --pass-against-n:
# batch 8, one layer, the delayed copy's sizes, one thread), in ROUNDS interleaved rounds; prints the
# median of each (model, n) as a table, then the "wall_time" object of the recurrence experiment in
# assets/experiments.json (Learn mode's "Wall time" view draws it), with the machine and the date.
#   bench/recurrent_wall_time.sh [build/attnlab-bench] [ROUNDS]
set -euo pipefail
bench=${1:-build/attnlab-bench}
rounds=${2:-3}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for _ in $(seq "$rounds"); do "$bench" --pass-against-n --max-n 512 >> "$tmp"; done
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//' || echo unknown)
python3 - "$tmp" "$cpu" "$rounds" <<'PY'
import json, statistics, sys, datetime
runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
cpu, rounds = sys.argv[2], int(sys.argv[3])
models = ["attention", "rnn", "lstm"]
ns = sorted({r["n"] for r in runs})
med = {(m, n): statistics.median(r["ms_per_pass"] for r in runs if r["model"] == m and r["n"] == n) for m in models for n in ns}
print("ms per forward + backward pass (batch 8, 1 layer), median of", rounds, "rounds:")
print(f"{'n':>12s} " + " ".join(f"{n:>8d}" for n in ns))
for m in models:
    print(f"{m:>12s} " + " ".join(f"{med[(m, n)]:8.3g}" for n in ns))
isa = runs[0]["isa"]
source = (f"attnlab-bench --pass-against-n, native ({isa}), one thread of an {cpu}, {datetime.date.today().isoformat()}; "
          f"batch 8, one layer, the delayed copy's sizes (attention d_model 32, 2 heads; RNN and LSTM hidden 64), median of {rounds} rounds")
print(json.dumps({"source": source, "rows": [{"model": m, "ms": [[n, round(med[(m, n)], 4)] for n in ns]} for m in models]}, ensure_ascii=False))
PY
