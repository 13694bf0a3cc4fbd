#!/usr/bin/env bash
# The learning engine's acceptance runs (issue 10, docs/train.md): every task trained from its defaults
# with a fixed seed, natively, plus the two runs that must fail (induction with 1 layer, reverse with no
# positional encoding). Prints one line per run: the last evaluation on the held-out set.
#   bench/learn_acceptance.sh [build/attnlab-cli]
set -euo pipefail
cli=${1:-build/attnlab-cli}
run() {  # run LABEL CONFIG-JSON
  local last
  last=$(echo "$2" | "$cli" train - | tail -n 1)
  python3 -c '
import json, sys
label, line = sys.argv[1], json.loads(sys.argv[2])
step, acc, score, ms = line["step"], 100 * line["accuracy"], line["task_pattern_score"], line["ms"] / 1000
heads = json.dumps([[round(x, 3) for x in row] for row in line["pattern_score"]])
print(f"{label:38s} step {step:5d}  accuracy {acc:6.2f}%  pattern score {score:.3f}  per layer/head {heads}  {ms:.1f} s")' "$1" "$last"
}
for task in previous_token reverse sort induction translate neighbours; do
  run "$task" "{\"task\": \"$task\"}"
done
run "induction, 1 layer (must fail)" '{"task": "induction", "layers": 1}'
run "reverse, positional none (must fail)" '{"task": "reverse", "positional": "none"}'
