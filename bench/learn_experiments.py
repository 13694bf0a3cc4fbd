#!/usr/bin/env python3
"""Measures the figures that Learn mode's experiments state (assets/experiments.json, "measured").

Runs each experiment's variants (two or more) from assets/experiments.json (the same file the lab compiles in)
with `attnlab-cli train` (native, seed 1) and prints what the explanations quote: held-out loss and
accuracy, the step a run stopped at, the pattern scores, and for the sqrt(d_k) experiment the loss
along the way. An experiment with an "inspect" action (Inspect heads' ablation or patching, run on the
trained model once its run ends) trains with `--out` and runs the action on that model file with
`attnlab-cli ablate --each` (zero and mean; and each layer's heads together) or `attnlab-cli patch
--corrupt-at I` (held-out example 0, the probe, at the last position whose answers differ, as the lab
does), printing the figures the texts quote. An experiment with a "sweep" (accuracy against distance) is
swept again with `attnlab-cli sweep` over the same distances and models, and its rows printed as the file
holds them.
Rerun it after any change that alters training's numbers, and update "measured" (and "sweep").
The lab shows those texts as "Measured here", so they are measured with the WebAssembly CLI (a .js path
runs under node): the page's engine, whose numbers are the same on every device and equal the page's
own runs bit for bit. (The native CLI's kernels round differently: figures within rounding for most
runs, further apart for chaotic ones.)
    python3 bench/learn_experiments.py build-web/attnlab-cli.js [EXPERIMENT ...]
    python3 bench/learn_experiments.py [build/attnlab-cli [EXPERIMENT ...]]   (natively)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

CLI_PATH = sys.argv[1] if len(sys.argv) > 1 else "build/attnlab-cli"
# the WebAssembly CLI (build-web/attnlab-cli.js) runs under node: the page's engine, whose numbers are the
# same on every device and equal the page's own runs bit for bit
CLI = ["node", "--no-experimental-fetch", CLI_PATH] if CLI_PATH.endswith(".js") else [CLI_PATH]
ONLY = set(sys.argv[2:])
TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "assets", "experiments.json")
TABLE_JSON = json.load(open(TABLE, encoding="utf-8"))["experiments"]
EXPERIMENTS = [(e, v["label"], v["config"]) for e in TABLE_JSON for v in e["variants"]]


def train(config, model_file=None):
    out = subprocess.run([*CLI, "train", "-"] + (["--out", model_file] if model_file else []),
                         input=json.dumps(config), capture_output=True, text=True, check=True)
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def cli_json(*args):
    return json.loads(subprocess.run([*CLI, *args], capture_output=True, text=True, check=True).stdout)


def at(points, step):
    return next((p for p in points if p["step"] == step), None)


def inspect(action, model_file, layers, heads):
    """Runs an experiment's "inspect" action on the trained model and prints what the texts quote."""
    if action.get("view", "ablation") == "ablation":
        for mode in ("zero", "mean"):
            r = cli_json("ablate", model_file, "--each", "--mode", mode)
            base = r["baseline"]
            print(f"          ablate {mode}: baseline {100 * base['accuracy']:.2f}% loss {base['loss']:.4f};  " + ",  ".join(
                f"{l}.{h} {100 * x['accuracy']:.1f}% ({100 * (x['accuracy'] - base['accuracy']):+.1f}) loss {x['loss']:.3f}"
                for l, row in enumerate(r["heads"]) for h, x in enumerate(row)), flush=True)
        if heads > 1:
            together = []
            for l in range(layers):
                r = cli_json("ablate", model_file, "--heads", ",".join(f"{l}.{h}" for h in range(heads)))
                together.append(f"layer {l}'s heads {100 * r['accuracy']:.1f}% loss {r['loss']:.2f}")
            print("          ablate zero, together: " + ", ".join(together), flush=True)
    else:
        r = cli_json("patch", model_file, "--corrupt-at", str(action.get("corrupt_at", 0)))
        p, at_ = r["position"], action.get("corrupt_at", 0)
        print(f"          patch example 0, token {at_} '{r['clean_tokens'][at_]}' -> '{r['corrupt_tokens'][at_]}': at position {p}"
              f" ('{r['clean_tokens'][p]}', the last whose answers differ) clean answers '{r['clean_answer']}' (LD {r['clean_logit_diff']:.1f}),"
              f" corrupted '{r['corrupt_answer']}' ({r['corrupt_logit_diff']:.1f})", flush=True)
        print("          heads restore " + ", ".join(f"{l}.{h} {100 * x:.0f}%" for l, row in enumerate(r["heads"]) for h, x in enumerate(row)), flush=True)
        print("          residual restores (|x| >= 0.05) " + "; ".join(
            ("embedding" if l == 0 else f"after layer {l - 1}") + ": " + (", ".join(f"pos {i} {100 * x:.0f}%" for i, x in enumerate(row) if abs(x) >= 0.05) or "nothing")
            for l, row in enumerate(r["residual"])), flush=True)


def saturation(p):
    heads = [v for row in p["saturation"] for v in row]
    return sum(heads) / len(heads)


tmp = tempfile.mkdtemp(prefix="learn_experiments_")
for e, variant, config in EXPERIMENTS:
    name = e["key"]
    if ONLY and name not in ONLY:
        continue
    model_file = os.path.join(tmp, name + ".json") if "inspect" in e else None
    points = train(config, model_file)
    last = points[-1]
    line = f"{name:9s} {variant:18s} step {last['step']:4d}  loss {last['loss']:.3f}  accuracy {100 * last['accuracy']:5.1f}%"
    if last.get("pattern_score"):  # a recurrent model has no heads
        line += f"  pattern {last['task_pattern_score']:.3f}  per layer/head {[[round(x, 3) for x in r] for r in last['pattern_score']]}"
    if name == "scaling":  # the scaled run stops once converged: the steps it did not reach are left out
        steps = config.get("train", {}).get("steps", 1000)
        if last["step"] < steps:
            line += f"  (stopped: converged, train.stop_accuracy {config['train']['stop_accuracy']})"
        later = [p["loss"] for p in points if p["step"] > 100]
        line += "\n          loss (accuracy) at " + ", ".join(
            f"{s} {at(points, s)['loss']:.3f} ({100 * at(points, s)['accuracy']:.1f}%)" for s in (100, 200, 300, 400) if at(points, s)) + ";"
        if later:
            line += f" after 100: max {max(later):.2f}, min {min(later):.3f}"
        line += f"; highest accuracy {100 * max(p['accuracy'] for p in points):.1f}% at step {max(points, key=lambda p: p['accuracy'])['step']}"
        line += "\n          saturated rows (mean of heads) at " + ", ".join(
            f"{s} {saturation(at(points, s)):.2f}" for s in sorted({0, 100, 200, 300, 400, 1000, last["step"]}) if at(points, s))
        for s in sorted({min(400, last["step"]), last["step"]}):
            line += f"; per head at {s} {[[round(x, 2) for x in r] for r in at(points, s)['saturation']]}"
    if "pattern_by_relation" in last:  # heads, neighbours_heads: each head's mass on i-1 and on i+1
        rel = last["pattern_by_relation"]
        line += f"\n          on i-1 per head {[round(x, 2) for x in rel['previous'][0]]}, on i+1 {[round(x, 2) for x in rel['next'][0]]}"
    print(line, flush=True)
    if model_file:
        spec = json.load(open(model_file, encoding="utf-8"))["config"]
        inspect(e["inspect"], model_file, spec["layers"], spec["heads"])
shutil.rmtree(tmp)

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
        out = subprocess.run([*CLI, "sweep", "-", "--distance", ",".join(map(str, distances[k:k + per_call])),
                              "--models", ",".join(r["model"] for r in rows)],
                             input=json.dumps(config), capture_output=True, text=True, check=True)
        runs += [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    runs.sort(key=lambda x: x["distance"])
    for r in rows:
        mine = [x for x in runs if x["model"] == r["model"]]
        row = {"model": r["model"], "params": mine[0]["params"], "accuracy": [[x["distance"], round(x["accuracy"], 4)] for x in mine]}
        print(f"{e['key']:9s} sweep {json.dumps(row)}  steps {mine[0]['steps']}", flush=True)
