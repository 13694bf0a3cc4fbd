#!/usr/bin/env bash
# The desktop app in a real X server (Xvfb): a screenshot run, then a person's session typed with
# xdotool. Usage: test_desktop.sh ATTNLAB_BINARY OUT_DIR
set -u
bin=$(realpath "$1") out=$(realpath -m "$2")
mkdir -p "$out"
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

# 1. --frames/--screenshot: exit 0 and a picture with the whole UI in it.
xvfb-run -a -s "-screen 0 1600x900x24" "$bin" --size 1280x720 --frames 20 --screenshot "$out/desktop.png" --print-stats > "$out/stats.json"
rc=$?
[ $rc -eq 0 ] && ok "screenshot run exits 0" || bad "screenshot run exit $rc"
if [ -s "$out/desktop.png" ]; then
  colours=$(identify -format '%k' "$out/desktop.png")
  size=$(identify -format '%wx%h' "$out/desktop.png")
  [ "$size" = "1280x720" ] && ok "screenshot is 1280x720" || bad "screenshot is $size"
  [ "$colours" -gt 1000 ] && ok "screenshot has $colours colours" || bad "screenshot has only $colours colours"
else
  bad "no screenshot written"
fi
grep -q '"frames":20' "$out/stats.json" && ok "stats report 20 frames" || bad "stats: $(cat "$out/stats.json")"
# The shared frame sequence measures the UI and counts vertices on the desktop too (it reported 0).
grep -Eq '"ui_ms_median":[0-9]*\.[0-9]*[1-9]' "$out/stats.json" && grep -Eq '"vertices":[1-9]' "$out/stats.json" &&
  ok "stats report UI time and vertices" || bad "stats without UI time or vertices: $(cat "$out/stats.json")"

# 1b. --config with presenter mode and high contrast: the preset's tokens label the big matrices.
xvfb-run -a -s "-screen 0 1600x900x24" "$bin" --config "$(dirname "$0")/../../assets/presets/02_causal.json" --present --high-contrast \
  --size 1280x720 --frames 20 --screenshot "$out/desktop-present.png" --print-config > "$out/present.json"
rc=$?
[ $rc -eq 0 ] && ok "presenter run exits 0" || bad "presenter run exit $rc"
grep -q '"mask":\["causal"\]' "$out/present.json" && ok "--config applied" || bad "--config not applied: $(head -c 300 "$out/present.json")"
# 1c. A preset by name, and a preset file through --config: its view comes with it (the pronoun preset
#     points at the row of "it": query 6; the default view has none, -1).
xvfb-run -a -s "-screen 0 1600x900x24" "$bin" --preset pronoun --size 1024x768 --frames 3 --print-config --print-view > "$out/preset.json"
python3 - "$out/preset.json" <<'PY' && ok "--preset pronoun: config and view applied" || bad "--preset: $(head -c 400 "$out/preset.json")"
import json, sys
config, view = (json.loads(line) for line in open(sys.argv[1]).read().splitlines()[:2])
assert " it " in config["text"] and config["handmade"] == [{"head": 0, "kind": "pronoun"}], config
assert view["query"] == 6 and view["head"] == 0, view
PY
xvfb-run -a -s "-screen 0 1600x900x24" "$bin" --config "$(dirname "$0")/../../assets/presets/01_pronoun.json" --size 1024x768 --frames 3 --print-view > "$out/pronoun-view.json"
grep -q '"query":6' "$out/pronoun-view.json" && ok "--config with a preset file applies its view" || bad "--config ignored the view: $(head -c 300 "$out/pronoun-view.json")"
xvfb-run -a -s "-screen 0 1600x900x24" "$bin" --preset nope --frames 1 2> "$out/preset-bad.err"
rc=$?
[ $rc -eq 2 ] && grep -q 'unknown preset "nope" (one of: pronoun, causal' "$out/preset-bad.err" && ok "an unknown preset is refused naming those there are" ||
  bad "--preset nope: exit $rc, $(cat "$out/preset-bad.err")"
if [ -s "$out/desktop-present.png" ]; then
  black=$(convert "$out/desktop-present.png" -fill white +opaque black -format '%[fx:1-mean]' info:)
  awk -v b="$black" 'BEGIN { exit !(b > 0.2) }' && ok "high-contrast presenter is mostly black ($black)" || bad "presenter black share $black"
else
  bad "no presenter screenshot"
fi

# 2. Typing: start our own X server so xdotool can reach the window. The server picks a free display
#    itself and writes its number (-displayfd): a number drawn at random could be one another X server
#    holds (a second test run, a chroot's suite: X's abstract sockets are shared across chroots), and the
#    clicks would then go to that server's windows.
rm -f "$out/display"
Xvfb -displayfd 3 -screen 0 1280x720x24 -nolisten tcp 3> "$out/display" > /dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null' EXIT
# A loaded machine can take seconds to bring an X server up: wait for it (20 s at most), and never wait
# for a window without a bound (an app that could not open one would hang the suite).
up=0 display=
for _ in $(seq 200); do
  [ -z "$display" ] && [ -s "$out/display" ] && display=:$(head -n 1 "$out/display")
  [ -n "$display" ] && DISPLAY=$display xdpyinfo > /dev/null 2>&1 && up=1 && break
  sleep 0.1
done
[ $up = 1 ] || bad "Xvfb did not start (display '${display:-none}')"
# Each run writes $ready once its first frame is on screen (--ready-file): the first click then finds
# the lab drawn, however long start-up takes (30 s at most).
ready="$out/ready"
window() {
  local up=0
  for _ in $(seq 300); do [ -s "$ready" ] && up=1 && break; sleep 0.1; done
  rm -f "$ready"
  [ $up = 1 ] && DISPLAY=$display xdotool search --name "Attention Lab" > /dev/null || bad "no window appeared ($1)"
}
rm -f "$ready"
# The app ends on SIGTERM once the input sent before it has been drawn (--seconds is only a bound), so
# nothing here depends on how fast frames are.
stop_app() { kill -TERM "$app" 2> /dev/null; wait "$app"; }
DISPLAY=$display "$bin" --ready-file "$ready" --size 1280x720 --seconds 120 --print-config --screenshot "$out/desktop-typed.png" > "$out/typed.json" 2> "$out/typed.err" &
app=$!
window typing
# The text box sits under "Text" in the Input window (left column, under the formula strip and the
# navigation bar): click it, select all, type.
DISPLAY=$display xdotool mousemove --sync 120 165 click 1
sleep 0.3
DISPLAY=$display xdotool key --delay 80 ctrl+a
DISPLAY=$display xdotool type --delay 60 "typed in a real window"
sleep 0.5
DISPLAY=$display xdotool mousemove --sync 640 715
stop_app
rc=$?
[ $rc -eq 0 ] && ok "interactive run exits 0" || bad "interactive run exit $rc: $(cat "$out/typed.err")"
grep -q '"text":"typed in a real window"' "$out/typed.json" && ok "typed text reached the engine" || bad "config after typing: $(head -c 300 "$out/typed.json")"
[ -s "$out/desktop-typed.png" ] && ok "screenshot after typing" || bad "no screenshot after typing"

# 2b. Export saves files into the current folder: Export (right of the formula strip), then "The whole
# lab as PNG" and "Config as JSON", clicked where they are drawn at 1280x720 in English (the language
# button, "English", is the last one on the right).
mkdir -p "$out/export" && rm -f "$out/export"/*
(cd "$out/export" && exec env DISPLAY=$display "$bin" --ready-file "$ready" --lang en --size 1280x720 --seconds 120 > /dev/null 2> "$out/export.err") &
app=$!
window export
DISPLAY=$display xdotool mousemove --sync 1031 19 click 1
sleep 0.5
DISPLAY=$display xdotool mousemove --sync 995 36 click 1
sleep 0.5
DISPLAY=$display xdotool mousemove --sync 1031 19 click 1
sleep 0.5
DISPLAY=$display xdotool mousemove --sync 1035 78 click 1
# The two files appear when the app has drawn the clicks (60 s at most), then it is stopped.
for _ in $(seq 600); do [ -s "$out/export/attention-lab_config.json" ] && ls "$out/export"/*.png > /dev/null 2>&1 && break; sleep 0.1; done
stop_app
png=$(ls "$out/export"/*.png 2> /dev/null | head -1)
if [ -n "$png" ] && [ "$(identify -format '%wx%h' "$png")" = "1280x720" ] && [ "$(identify -format '%k' "$png")" -gt 1000 ]; then
  ok "Export saved the lab as a PNG: $(basename "$png")"
else
  bad "Export: no 1280x720 PNG in $out/export ($(ls "$out/export"))"
fi
python3 -c "import json,sys; c=json.load(open(sys.argv[1])); sys.exit(0 if c['heads'] == 4 else 1)" "$out/export/attention-lab_config.json" 2> /dev/null &&
  ok "Export saved the config as JSON" || bad "Export: no config JSON ($(ls "$out/export"))"

# 2c. Quick clicks all count: T opens the tour, then five clicks on Next 30 ms apart move it five steps
# (Dear ImGui 1.86 reads buttons once per frame; the shell's input queue gives each press and release a
# frame of its own). A first run finds where Next is drawn (--print-layout).
DISPLAY=$display "$bin" --ready-file "$ready" --size 1280x720 --seconds 120 --print-layout > "$out/tour-layout.json" 2> /dev/null &
app=$!
window tour
DISPLAY=$display xdotool mousemove --sync 640 400 key t
stop_app
next=$(python3 -c "import json,sys; w=json.load(open(sys.argv[1]))['tour_next']; print(int(w['x']+w['w']/2), int(w['y']+w['h']/2))" "$out/tour-layout.json" 2> /dev/null)
if [ -n "$next" ]; then
  DISPLAY=$display "$bin" --ready-file "$ready" --size 1280x720 --seconds 120 --print-layout > "$out/tour-clicks.json" 2> /dev/null &
  app=$!
  window "quick clicks"
  DISPLAY=$display xdotool mousemove --sync 640 400 key t
  sleep 1
  DISPLAY=$display xdotool mousemove --sync $next click --repeat 5 --delay 30 1
  stop_app
  step=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['_ui']['tour']['step'])" "$out/tour-clicks.json" 2> /dev/null)
  [ "$step" = "5" ] && ok "five quick clicks on the tour's Next: step 5" || bad "five quick clicks on Next reached step ${step:-?} (of 5)"
else
  bad "the tour's Next was not drawn after T: $(head -c 200 "$out/tour-layout.json")"
fi

# 3. Learn mode: --train trains previous_token in the window (on its own thread) and screenshots it;
#    the same run in slices of the frames (--train-in-frames, the page's way) ends at the same loss.
echo '{"task": "previous_token", "train": {"steps": 200, "eval_every": 20}}' > "$out/train.json"
xvfb-run -a -s "-screen 0 1600x900x24" "$bin" --size 1280x720 --train "$out/train.json" --until-trained --seconds 300 --screenshot "$out/desktop-learn.png" --print-train > "$out/train-status.json" 2> "$out/train.err"
rc=$?
[ $rc -eq 0 ] && ok "Learn run exits 0" || bad "Learn run exit $rc: $(cat "$out/train.err")"
grep -q '"state":"done"' "$out/train-status.json" && ok "Learn mode trained to the end" || bad "Learn status: $(head -c 300 "$out/train-status.json")"
acc=$(grep -o '"accuracy":[0-9.e-]*' "$out/train-status.json" | head -1 | cut -d: -f2)
python3 -c "import sys; sys.exit(0 if float('${acc:-0}') >= 0.99 else 1)" && ok "Learn accuracy $acc" || bad "Learn accuracy ${acc:-none}"
[ -s "$out/desktop-learn.png" ] && ok "Learn screenshot" || bad "no Learn screenshot"
grep -q '"trains_on":"thread"' "$out/train-status.json" && ok "Learn mode trains on its own thread" || bad "trains_on: $(grep -o '"trains_on":"[a-z]*"' "$out/train-status.json")"
xvfb-run -a -s "-screen 0 1600x900x24" "$bin" --size 1280x720 --train "$out/train.json" --train-in-frames --until-trained --seconds 300 --print-train > "$out/train-frames.json" 2> "$out/train-frames.err"
loss_thread=$(grep -o '"loss":[0-9.e-]*' "$out/train-status.json" | head -1)
loss_frames=$(grep -o '"loss":[0-9.e-]*' "$out/train-frames.json" | head -1)
grep -q '"trains_on":"frames"' "$out/train-frames.json" && [ -n "$loss_thread" ] && [ "$loss_thread" = "$loss_frames" ] &&
  ok "the same run in frame slices ends at the same loss ($loss_frames)" || bad "thread $loss_thread, frames $loss_frames: $(head -c 300 "$out/train-frames.json")"
echo '{"task": "previous_token", "train": {"lr": 0}}' > "$out/train-bad.json"
xvfb-run -a "$bin" --train "$out/train-bad.json" --frames 1 > /dev/null 2> "$out/train-bad.err"
rc=$?
[ $rc -eq 2 ] && grep -q 'train.lr' "$out/train-bad.err" && ok "bad --train config refused naming train.lr" || bad "bad --train: exit $rc, $(cat "$out/train-bad.err")"

# A model file (attnlab-cli train --out, the same format as Download model) opened with --model:
# Learn mode at the file's step, evaluated, done; a damaged one is refused naming the field.
cli=$(dirname "$bin")/attnlab-cli
if [ -x "$cli" ]; then
  echo '{"task": "previous_token", "train": {"steps": 60, "seed": 5}}' > "$out/model-train.json"
  "$cli" train "$out/model-train.json" --out "$out/model.json" --quiet
  xvfb-run -a "$bin" --model "$out/model.json" --seconds 30 --until-trained --print-train > "$out/model-status.json" 2> "$out/model.err"
  rc=$?
  python3 - "$out/model-status.json" "$out/model.json" <<'PY' && [ $rc -eq 0 ] && ok "--model opens a trained model at its step with its accuracy" ||
import json, sys
status = json.loads(open(sys.argv[1]).read().splitlines()[-1])
model = json.load(open(sys.argv[2]))
assert status["state"] == "done" and status["step"] == 60 and status["evaluated_at"] == 60, status
assert abs(status["accuracy"] - model["metrics"]["accuracy"]) < 1e-6, (status["accuracy"], model["metrics"]["accuracy"])
PY
    bad "--model: exit $rc, $(head -c 300 "$out/model-status.json") $(cat "$out/model.err")"
  sed 's/"w_e"/"w_x"/' "$out/model.json" > "$out/model-bad.json"
  xvfb-run -a "$bin" --model "$out/model-bad.json" --frames 1 > /dev/null 2> "$out/model-bad.err"
  rc=$?
  [ $rc -eq 2 ] && grep -q 'weights.w_e: missing' "$out/model-bad.err" && ok "a damaged model is refused naming weights.w_e" ||
    bad "--model damaged: exit $rc, $(cat "$out/model-bad.err")"
else
  bad "no attnlab-cli beside $bin to write a model file"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
