#!/usr/bin/env python3
"""Measures the figures that Learn mode's experiments state (assets/experiments.json, "measured").

Runs each experiment's variants (two or more) from assets/experiments.json (the same file the lab compiles in)
with `attnlab-cli train` (native, seed 1) and prints what the explanations quote: held-out loss and
accuracy, the step a run stopped at, the pattern scores, and for the sqrt(d_k) experiment the loss
along the way. An experiment with a "sweep" (accuracy against distance) is swept again with
`attnlab-cli sweep` over the same distances and models, and its rows printed as the file holds them.
Rerun it after any change that alters training's numbers, and update "measured" (and "sweep").
    python3 bench/learn_experiments.py [build/attnlab-cli [EXPERIMENT ...]]
"""
import json
import os
import subprocess
import sys

CLI = sys.argv[1] if len(sys.argv) > 1 else "build/attnlab-cli"
ONLY = set(sys.argv[2:])
TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "assets", "experiments.json")
TABLE_JSON = json.load(open(TABLE, encoding="utf-8"))["experiments"]
EXPERIMENTS = [(e["key"], v["label"], v["config"]) for e in TABLE_JSON for v in e["variants"]]


def train(config):
    out = subprocess.run([CLI, "train", "-"], input=json.dumps(config), capture_output=True, text=True, check=True)
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def at(points, step):
    return next(p for p in points if p["step"] == step)


def saturation(p):
    heads = [v for row in p["saturation"] for v in row]
    return sum(heads) / len(heads)


for name, variant, config in EXPERIMENTS:
    if ONLY and name not in ONLY:
        continue
    points = train(config)
    last = points[-1]
    line = f"{name:9s} {variant:18s} step {last['step']:4d}  loss {last['loss']:.3f}  accuracy {100 * last['accuracy']:5.1f}%"
    if last.get("pattern_score"):  # a recurrent model has no heads
        line += f"  pattern {last['task_pattern_score']:.3f}  per layer/head {[[round(x, 3) for x in r] for r in last['pattern_score']]}"
    if name == "scaling":
        later = [p["loss"] for p in points if p["step"] > 100]
        line += f"\n          loss at 100 {at(points, 100)['loss']:.3f}, 300 {at(points, 300)['loss']:.3f}, 400 {at(points, 400)['loss']:.3f};"
        line += f" after 100: max {max(later):.2f}, min {min(later):.3f}"
        line += "\n          saturated rows (mean of heads) at " + ", ".join(
            f"{s} {saturation(at(points, s)):.2f}" for s in (0, 100, 200, 300, 400, 1000))
        line += f"; per head at 400 {[[round(x, 2) for x in r] for r in at(points, 400)['saturation']]}"
    if name == "heads":
        rel = last["pattern_by_relation"]
        line += f"\n          on i-1 per head {[round(x, 2) for x in rel['previous'][0]]}, on i+1 {[round(x, 2) for x in rel['next'][0]]}"
    print(line, flush=True)

# Accuracy against distance: the sweep the experiment's plot draws, run again (variant 0's config,
# without its early stop, as `attnlab-cli sweep` trains every run for the same steps).
for e in TABLE_JSON:
    if "sweep" not in e or (ONLY and e["key"] not in ONLY):
        continue
    rows = e["sweep"]["rows"]
    distances = sorted({d for r in rows for d, _ in r["accuracy"]})
    config = json.loads(json.dumps(e["variants"][0]["config"]))
    config.pop("model", None)
    config.get("train", {}).pop("stop_accuracy", None)
    # `sweep` takes at most 64 runs (distances x models) at a time: the distances in chunks.
    per_call = max(1, 64 // len(rows))
    runs = []
    for k in range(0, len(distances), per_call):
        out = subprocess.run([CLI, "sweep", "-", "--distance", ",".join(map(str, distances[k:k + per_call])),
                              "--models", ",".join(r["model"] for r in rows)],
                             input=json.dumps(config), capture_output=True, text=True, check=True)
        runs += [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    runs.sort(key=lambda x: x["distance"])
    for r in rows:
        mine = [x for x in runs if x["model"] == r["model"]]
        row = {"model": r["model"], "params": mine[0]["params"], "accuracy": [[x["distance"], round(x["accuracy"], 4)] for x in mine]}
        print(f"{e['key']:9s} sweep {json.dumps(row)}  steps {mine[0]['steps']}", flush=True)
