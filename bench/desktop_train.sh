#!/usr/bin/env bash
# Training speed in the desktop app as a person gets it: the window drawing under Xvfb (Mesa's software
# GL, on the same cores), against attnlab-cli training the same config. A measurement, not a test.
#
#   bench/desktop_train.sh [build dir] [rounds] [config.json ...]
#
# For each config and round it prints one JSON line: the trainer's own clock for the whole run
# (evaluations included: the last log line's `ms`) in the app training on its thread, in the app
# training in slices of its frames (--train-in-frames), and in the CLI; each app's frames and its
# frame time; the ratio thread/CLI. Default: the induction task's Learn-mode defaults.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$here/build}
rounds=${2:-3}
shift $(( $# > 2 ? 2 : $# ))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
configs=("$@")
if [ ${#configs[@]} -eq 0 ]; then
  echo '{"task":"induction","train":{"eval_every":20}}' > "$work/induction.json"
  configs=("$work/induction.json")
fi
command -v xvfb-run >/dev/null || { echo "desktop_train.sh: xvfb-run is missing (apt-get install xvfb)" >&2; exit 1; }

# One run of the app: its --print-stats and --print-train lines, reduced to what is compared.
app_run() {  # config, extra flag
  xvfb-run -a -s "-screen 0 1600x900x24" "$build/attnlab" --size 1280x720 --train "$1" ${2:+"$2"} \
    --until-trained --seconds 600 --print-stats --print-train > "$work/app.txt" 2> "$work/app.err" ||
    { cat "$work/app.err" >&2; exit 1; }
  python3 - "$work/app.txt" <<'EOF'
import json, sys
stats, train = (json.loads(l) for l in open(sys.argv[1]).read().split('\n')[:2])
assert train['state'] == 'done', train
print(json.dumps({'ms': train['ms'], 'task': train['task'], 'step': train['step'], 'steps': train['steps'],
                  'accuracy': train['accuracy'], 'trains_on': train['trains_on'], 'frames': stats['frames'],
                  'frame_ms_median': round(stats['frame_ms_median'], 1), 'frame_ms_p95': round(stats['frame_ms_p95'], 1)}))
EOF
}

for cfg in "${configs[@]}"; do
  for ((r = 1; r <= rounds; ++r)); do
    thread=$(app_run "$cfg" "")
    frames=$(app_run "$cfg" --train-in-frames)
    cli=$("$build/attnlab-cli" train "$cfg" | tail -1)
    python3 - "$cfg" "$r" "$thread" "$frames" "$cli" <<'EOF'
import json, sys
cfg, r, thread, frames, cli = sys.argv[1], int(sys.argv[2]), *map(json.loads, sys.argv[3:])
print(json.dumps({'config': json.load(open(cfg)), 'round': r, 'steps': cli['step'], 'cli_ms': cli['ms'], 'cli_accuracy': cli['accuracy'],
                  'app_thread': thread, 'app_frames': frames,
                  'thread_vs_cli': round(cli['ms'] / thread['ms'], 2), 'frames_vs_cli': round(cli['ms'] / frames['ms'], 2)}))
EOF
  done
done
