#!/usr/bin/env bash
# Why attention replaced recurrence (issue 19, docs/train.md), measured natively with seed 1:
#  1. accuracy against distance: `attnlab-cli sweep` of the delayed copy's defaults (600 steps, batch 32,
#     AdamW lr 1e-2, clip 1) for attention, rnn and lstm at distances 1, 2, 4, 8, 16, 24;
#  2. gradient against distance: mean ‖∂loss_i/∂x_j‖ over 64 held-out sequences against i − j, for the
#     untrained and the trained (distance 16) attention model and RNN, and the ratio between distance 1
#     and distance 16.
#   bench/recurrent_acceptance.sh [build/attnlab-cli]
set -euo pipefail
cli=${1:-build/attnlab-cli}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo '{"task": "delayed_copy"}' > "$tmp/config.json"
"$cli" sweep "$tmp/config.json" --distance 1,2,4,8,16,24 --models attention,rnn,lstm | tee "$tmp/sweep.jsonl"
for model in attention rnn lstm; do
  cfg="{\"task\": \"delayed_copy\", \"model\": \"$model\", \"distance\": 16}"
  echo "$cfg" | "$cli" gradient-distance - > "$tmp/$model.untrained.json"
  echo "$cfg" | "$cli" train - --quiet --out "$tmp/$model.json"
  "$cli" gradient-distance "$tmp/$model.json" > "$tmp/$model.trained.json"
done
python3 - "$tmp" <<'PY'
import json, os, sys
tmp = sys.argv[1]
runs = [json.loads(l) for l in open(os.path.join(tmp, "sweep.jsonl"))]
distances = sorted({r["distance"] for r in runs})
print("held-out accuracy (%), 600 steps, seed 1:")
print(f"{'model':10s} {'params':>7s} " + " ".join(f"{'d=' + str(d):>7s}" for d in distances))
for model in ["attention", "rnn", "lstm"]:
    row = {r["distance"]: r for r in runs if r["model"] == model}
    params = next(iter(row.values()))["params"]
    print(f"{model:10s} {params:7d} " + " ".join(f"{100 * row[d]['accuracy']:7.1f}" for d in distances))
print("gradient against distance, mean |dloss_i/dx_j| at i - j = d (64 held-out sequences):")
for model in ["attention", "rnn", "lstm"]:
    for state in ["untrained", "trained"]:
        g = json.load(open(os.path.join(tmp, f"{model}.{state}.json")))["mean_grad_norm"]
        picks = " ".join(f"d{d}={g[d]:.3g}" for d in [0, 1, 2, 4, 8, 16, 24])
        print(f"{model:10s} {state:9s} ratio d1/d16 = {g[1] / g[16]:10.3g}   {picks}")
PY
