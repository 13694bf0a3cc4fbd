#!/usr/bin/env python3
"""Measures the figures that Learn mode's experiments state (src/ui/learn.cpp, experiments()).

Runs each experiment's two variants with `attnlab-cli train` (native, seed 1, the same configs as
the experiments table) and prints what the explanations quote: held-out loss and accuracy, the
pattern scores, and for the sqrt(d_k) experiment the loss along the way. The texts in learn.cpp are
copied from this output; rerun it after any change that alters training's numbers.
    python3 bench/learn_experiments.py [build/attnlab-cli [EXPERIMENT ...]]
"""
import json
import subprocess
import sys

CLI = sys.argv[1] if len(sys.argv) > 1 else "build/attnlab-cli"
ONLY = set(sys.argv[2:])

EXPERIMENTS = [  # (experiment, variant, config): keep in step with experiments() in src/ui/learn.cpp
    ("scaling", "with 1/sqrt(d_k)", {"task": "induction", "d_model": 64, "heads": 2, "d_k": 128, "d_v": 32, "train": {"eval_every": 25}}),
    ("scaling", "no scaling", {"task": "induction", "d_model": 64, "heads": 2, "d_k": 128, "d_v": 32, "scale": False, "train": {"eval_every": 25}}),
    ("position", "learned positions", {"task": "reverse", "train": {"eval_every": 15}}),
    ("position", "no positions", {"task": "reverse", "positional": "none", "train": {"eval_every": 15}}),
    ("layers", "2 layers", {"task": "induction", "train": {"eval_every": 25}}),
    ("layers", "1 layer", {"task": "induction", "layers": 1, "train": {"eval_every": 25}}),
    ("heads", "2 heads", {"task": "neighbours", "train": {"eval_every": 25}}),
    ("heads", "1 head", {"task": "neighbours", "heads": 1, "d_k": 32, "d_v": 32, "train": {"eval_every": 25}}),
    ("cross", "with positions", {"task": "translate", "train": {"eval_every": 15}}),
    ("cross", "no positions", {"task": "translate", "positional": "none", "train": {"eval_every": 15}}),
]


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
