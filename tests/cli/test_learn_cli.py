#!/usr/bin/env python3
"""attnlab-cli train / run MODEL / grad (docs/train.md): errors that name the field, the log and model
schema, a model run through the lab's engine layer by layer, and gradients.

Usage: test_learn_cli.py CLI [RUNNER...]   (e.g. node --no-experimental-fetch attnlab-cli.js)
"""
import json
import math
import os
import tempfile

from clitest import check, expect_error, finish, run

tmp = tempfile.mkdtemp()


def path(name):
    return os.path.join(tmp, name)


def write(name, text):
    with open(path(name), "w") as f:
        f.write(text)
    return path(name)


# [SECTION] bad training configs: exit 2, one line naming the field
for cfg, field in [
    ('{"task": "juggling"}', "task: unknown task 'juggling'"),
    ("{}", "task: missing"),
    ('{"task": 3}', "task: expected a string"),
    ('{"task": "induction", "train": {"lr": 0}}', "train.lr"),
    ('{"task": "induction", "train": {"lr": -0.1}}', "train.lr"),
    ('{"task": "induction", "train": {"lr": 1e39}}', "train.lr"),
    ('{"task": "induction", "train": {"lr": "fast"}}', "train.lr"),
    ('{"task": "induction", "train": {"batch": 0}}', "train.batch"),
    ('{"task": "induction", "train": {"micro_batch": 0}}', "train.micro_batch"),
    ('{"task": "induction", "train": {"steps": 1000001}}', "train.steps"),
    ('{"task": "induction", "train": {"betas": [0.9, 1.0]}}', "train.betas[1]"),
    ('{"task": "induction", "train": {"clip": -1}}', "train.clip"),
    ('{"task": "induction", "train": {"speed": 1}}', "train.speed: unknown key"),
    ('{"task": "induction", "vocab": 10}', "vocab: this task needs at least 15"),
    ('{"task": "translate", "vocab": 20}', "vocab"),
    ('{"task": "induction", "layers": 0}', "layers"),
    ('{"task": "induction", "layers": 5}', "layers"),
    ('{"task": "induction", "heads": 0}', "heads"),
    ('{"task": "induction", "positional": "spiral"}', "positional"),
    ('{"task": "induction", "mask": [{"padding": [40]}]}', "mask[0].padding"),
    ('{"task": "induction", "n": 10}', "n: must be between 28"),
    ('{"task": "sort", "n": 10}', "n: must be odd"),
    ('{"task": "induction", "colour": "red"}', "colour: unknown key"),
    ("{", "config: not valid JSON"),
]:
    expect_error(["train", "-"], field, stdin=cfg)
expect_error(["train", "-", "--steps", "2000000"], "--steps", stdin='{"task": "reverse"}')
expect_error(["train", "-", "--steps", "-3"], "--steps", stdin='{"task": "reverse"}')
expect_error(["train", "-", "--bogus"], "--bogus", stdin='{"task": "reverse"}')
rc, _, _ = run(["train", path("missing.json")])
check(rc == 1, "a missing config file exits 1")

# [SECTION] a short training run: log lines on stdout and in --log, the model file
cfg = write("train.json", json.dumps({"task": "reverse", "n": 6, "d_model": 16, "heads": 2,
                                      "train": {"steps": 30, "eval_every": 10, "eval_batch": 32, "seed": 3}}))
rc, out, err = run(["train", cfg, "--out", path("model.json"), "--log", path("log.jsonl")])
check(rc == 0, f"train exits 0 ({err.strip()})")
lines = [json.loads(l) for l in out.strip().split("\n")]
check([l["step"] for l in lines] == [0, 10, 20, 30], f"one line per evaluation, steps {[l['step'] for l in lines]}")
with open(path("log.jsonl")) as f:
    check(f.read() == out, "--log holds the same lines as stdout")
first, last = lines[0], lines[-1]
for key in ["step", "loss", "accuracy", "pattern_score", "task_pattern_score", "saturation", "train_loss", "grad_norm", "ms"]:
    check(key in last, f"log line has {key}")
check(len(last["pattern_score"]) == 1 and len(last["pattern_score"][0]) == 2, "pattern_score is per layer, per head")
check(len(last["saturation"]) == 1 and len(last["saturation"][0]) == 2
      and all(0 <= v <= 1 for v in last["saturation"][0]), "saturation is per layer, per head, a share")
check(last["loss"] < first["loss"], f"the loss falls ({first['loss']} -> {last['loss']})")
check(all(0 <= l["accuracy"] <= 1 for l in lines), "accuracy in [0, 1]")
model = json.load(open(path("model.json")))
check(model["history"] == lines, "model file: the history is the run's log lines")
check(model["format"] == "attnlab-model" and model["step"] == 30, "model file: format and step")
check(model["config"]["task"] == "reverse" and model["config"]["n"] == 6, "model file: the complete config")
check(model["config"]["train"]["seed"] == 3 and model["config"]["train"]["micro_batch"] == 8 and model["config"]["d_k"] == 8,
      "model file: train settings (micro_batch too), d_k = d_model/heads")
check(len(model["vocabulary"]) == 16 and model["vocabulary"][0] == "a", "model file: vocabulary")
w = model["weights"]
check(len(w["w_e"]) == 16 and len(w["w_e"][0]) == 16, "w_e is vocab x d_model")
check(len(w["layers"]) == 1 and len(w["layers"][0]["w_q"]) == 2 and len(w["layers"][0]["w_q"][0]) == 16
      and len(w["layers"][0]["w_q"][0][0]) == 8, "w_q is heads x d_model x d_k, as in the lab's config")
check(len(w["pos"]) == 6 and len(w["w_u"]) == 16 and len(w["w_u"][0]) == 16, "pos and w_u shapes")
# The same seed gives the same model, byte for byte.
rc, _, _ = run(["train", cfg, "--out", path("model2.json"), "--quiet"])
m2 = json.load(open(path("model2.json")))
check(rc == 0 and m2["weights"] == model["weights"] and m2["metrics"]["loss"] == model["metrics"]["loss"],
      "seeded training is reproducible (the same weights, bit for bit)")
# The model file's config replays as a training config.
rc, out, err = run(["train", "-", "--steps", "0", "--quiet"], stdin=json.dumps(model["config"]))
check(rc == 0, f"the model's config is a valid training config ({err.strip()})")

# [SECTION] run MODEL.json: every layer through the lab's engine
two = write("two.json", json.dumps({"task": "induction", "layers": 2, "train": {"steps": 3, "eval_batch": 4}}))
rc, _, err = run(["train", two, "--out", path("ind.json"), "--quiet"])
check(rc == 0, f"induction model trains ({err.strip()})")
rc, out, err = run(["run", path("ind.json")])
check(rc == 0, f"run MODEL.json exits 0 ({err.strip()})")
r = json.loads(out)
for key in ["tokens", "x", "heads", "concat", "output", "fully_masked_rows", "scale", "config"]:
    check(key in r, f"run MODEL: top-level {key} as in the lab's run schema")
check(len(r["layers"]) == 2 and r["layers"][1]["layer"] == 1, "run MODEL: every layer")
check(r["x"] == r["layers"][0]["x"], "the top-level fields are layer 0's")
# The residual stream: X_1 = X_0 + output_0, computed by the lab's Engine vs the model's own stream.
x0, o0, x1 = r["layers"][0]["x"], r["layers"][0]["output"], r["layers"][1]["x"]
worst = max(abs(x0[i][c] + o0[i][c] - x1[i][c]) for i in range(len(x0)) for c in range(len(x0[0])))
check(worst < 1e-5, f"layer 0's engine output + X_0 = the model's X_1 (worst {worst})")
check(len(r["logits"]) == 32 and len(r["logits"][0]) == 28, "logits n x vocab")
check(len(r["predictions"]) == 32 and "accuracy" in r, "predictions and accuracy")
for h in r["heads"]:
    for i, row in enumerate(h["weights"]):
        check(all(v == 0 for v in row[i + 1:]), "causal: no weight above the diagonal") if i < 2 else None
rc, out, err = run(["run", path("ind.json"), "--tokens", "a b c a b c"])
check(rc == 0 and json.loads(out)["tokens"] == ["a", "b", "c", "a", "b", "c"], f"run --tokens ({err.strip()})")
expect_error(["run", path("ind.json"), "--tokens", "a b ZZZ"], "--tokens: 'ZZZ'")
expect_error(["run", path("ind.json"), "--tokens", " ".join(["a"] * 40)], "n: sequence length 40")

# [SECTION] model files with wrong shapes or numbers: exit 2 naming the field
def broken(name, change):
    m = json.load(open(path("ind.json")))
    change(m)
    return write(name, json.dumps(m))


expect_error(["run", broken("b1.json", lambda m: m["weights"]["w_e"].pop())], "weights.w_e")
expect_error(["run", broken("b2.json", lambda m: m["weights"]["layers"][1]["w_q"][0][3].append(0.5))], "weights.layers[1].w_q[0][3]")
expect_error(["run", broken("b3.json", lambda m: m["weights"]["layers"].pop())], "weights.layers")
expect_error(["run", broken("b4.json", lambda m: m["weights"]["layers"][0].pop("w_o"))], "weights.layers[0].w_o: missing")
expect_error(["run", broken("b5.json", lambda m: m["config"].update({"layers": 9}))], "config.layers")
expect_error(["run", broken("b6.json", lambda m: m["weights"]["w_u"][0].__setitem__(0, "x"))], "weights.w_u[0][0]")
expect_error(["run", broken("b7.json", lambda m: m["weights"]["w_u"][0].__setitem__(0, 1e30))], "weights.w_u[0][0]")

# [SECTION] grad
batch = write("batch.json", json.dumps({"tokens": [[0, 1, 2, 0, 1, 2] * 6, [5, 4, 3, 5, 4, 3] * 6],
                                        "targets": [[-1] * 35 + [2], [3] * 36]}))
rc, out, err = run(["grad", path("ind.json"), batch])
check(rc != 0 and "n: sequence length 36" in err, "grad: a batch longer than the model's n is refused")
batch = write("batch.json", json.dumps({"tokens": [[0, 1, 2, 0, 1, 2, 7, 8] * 4, [5, 4, 3, 5, 4, 3, 1, 1] * 4],
                                        "targets": [[-1] * 31 + [2], [3] * 32]}))
rc, out, err = run(["grad", path("ind.json"), batch])
check(rc == 0, f"grad exits 0 ({err.strip()})")
g = json.loads(out)
check(g["targets"] == 33 and math.isfinite(g["loss"]), "grad: loss and target count")
check(len(g["gradients"]["layers"]) == 2 and len(g["gradients"]["layers"][0]["w_k"]) == 2, "grad: same layout as the weights")
rc, out2, _ = run(["grad", path("ind.json"), batch, "--double"])
gd = json.loads(out2)


def flat(x):
    if isinstance(x, list):
        for v in x:
            yield from flat(v)
    elif isinstance(x, dict):
        for k in sorted(x):
            yield from flat(x[k])
    else:
        yield x


a, b = list(flat(g["gradients"])), list(flat(gd["gradients"]))
scale = max(abs(v) for v in b)
check(len(a) == len(b) and max(abs(x - y) for x, y in zip(a, b)) <= 1e-3 * scale, "grad: float engine vs --double reference")
check(abs(g["loss"] - gd["loss"]) < 1e-5 * abs(gd["loss"]), "grad: float and double losses agree")
expect_error(["grad", path("ind.json"), "-"], "tokens[0][1]", stdin='{"tokens": [[0, 99]], "targets": [[1, 2]]}')
expect_error(["grad", path("ind.json"), "-"], "targets: expected the same shape", stdin='{"tokens": [[0, 1]], "targets": [[1]]}')
expect_error(["grad", path("ind.json"), "-"], "targets: missing", stdin='{"tokens": [[0, 1]]}')
expect_error(["grad", path("ind.json"), "-"], "source: only a cross-attention", stdin='{"tokens": [[0]], "targets": [[1]], "source": [[1]]}')
expect_error(["grad", path("ind.json")], "grad: expected MODEL.json BATCH.json")

# [SECTION] stopping once converged: the run ends at the first step where the held-out accuracy has been
# at least train.stop_accuracy at stop_evaluations evaluations in a row; the rule travels in the model file
cfg = {"task": "previous_token", "train": {"steps": 400, "eval_every": 10, "stop_accuracy": 0.99, "stop_evaluations": 3}}
rc, out, err = run(["train", "-", "--out", path("stop.json")], stdin=json.dumps(cfg))
lines = [json.loads(l) for l in out.splitlines() if l.strip()] if rc == 0 else []
check(rc == 0 and len(lines) >= 4, f"a converging run exits 0 ({err.strip()})")
if lines:
    check(lines[-1]["step"] < 400, f"it stopped early, at step {lines[-1]['step']}")
    check(all(l["accuracy"] >= 0.99 for l in lines[-3:]), "the last three evaluations are at 99% or more")
    check(lines[-4]["accuracy"] < 0.99 or lines[-4]["step"] == 0, "and it did not stop one evaluation later than it had to")
    model = json.load(open(path("stop.json")))
    check(model["config"]["train"]["stop_accuracy"] == 0.99 and model["config"]["train"]["stop_evaluations"] == 3,
          "the model file's config carries the rule")
    check(model["step"] == lines[-1]["step"], "the model file is at the step the run stopped")
rc, out, _ = run(["train", "-"], stdin=json.dumps({"task": "previous_token", "train": {"steps": 30, "eval_every": 10}}))
check(rc == 0 and [json.loads(l)["step"] for l in out.splitlines()][-1] == 30, "without the rule every step runs")
rc, out, _ = run(["train", "-", "--quiet", "--out", path("nostop.json")], stdin=json.dumps({"task": "previous_token", "train": {"steps": 3}}))
check(rc == 0 and "stop_accuracy" not in json.load(open(path("nostop.json")))["config"]["train"], "off: not written")
expect_error(["train", "-"], "train.stop_accuracy", stdin='{"task": "previous_token", "train": {"stop_accuracy": 1.5}}')
expect_error(["train", "-"], "train.stop_evaluations", stdin='{"task": "previous_token", "train": {"stop_evaluations": 0}}')

# [SECTION] cross-attention: translate
tr = write("tr.json", json.dumps({"task": "translate", "n": 4, "train": {"steps": 2, "eval_batch": 2}}))
rc, _, err = run(["train", tr, "--out", path("tr_model.json"), "--quiet"])
check(rc == 0, f"translate trains ({err.strip()})")
rc, out, err = run(["run", path("tr_model.json")])
r = json.loads(out) if rc == 0 else {}
check(rc == 0 and r.get("source_tokens") and len(r["x_source"]) == 4, f"run: a cross-attention model shows its source ({err.strip()})")
rc, out, err = run(["grad", path("tr_model.json"), "-"], stdin='{"tokens": [[20, 10]], "targets": [[11, 12]], "source": [[1, 2, 3]]}')
check(rc == 0 and "w_e" in json.loads(out)["gradients"], f"grad with a source ({err.strip()})")

# [SECTION] recurrent models and the delayed copy (docs/train.md): model, hidden, distance, sweep,
# gradient-distance; errors name the field
for cfg, field in [
    ('{"task": "delayed_copy", "model": "gru"}', "model: unknown model 'gru'"),
    ('{"task": "delayed_copy", "model": 3}', "model"),
    ('{"task": "translate", "model": "rnn"}', "model: task translate needs cross-attention"),
    ('{"task": "reverse", "model": "lstm"}', "model: task reverse needs to see later tokens"),
    ('{"task": "neighbours", "model": "rnn"}', "model: task neighbours"),
    ('{"task": "delayed_copy", "distance": 32}', "distance: must be between 1 and n-1 = 31"),
    ('{"task": "delayed_copy", "distance": 0}', "distance"),
    ('{"task": "delayed_copy", "n": 8, "distance": 8}', "distance: must be between 1 and n-1 = 7"),
    ('{"task": "induction", "distance": 3}', "distance: only the delayed_copy task"),
    ('{"task": "delayed_copy", "model": "rnn", "hidden": 0}', "hidden"),
    ('{"task": "delayed_copy", "model": "rnn", "hidden": 513}', "hidden"),
    ('{"task": "delayed_copy", "model": "lstm", "tied": true}', "tied"),
]:
    expect_error(["train", "-"], field, stdin=cfg)
for model in ["rnn", "lstm"]:
    cfg = {"task": "delayed_copy", "model": model, "hidden": 12, "layers": 2, "n": 10, "distance": 2,
           "train": {"steps": 40, "eval_every": 20, "eval_batch": 32}}
    rc, out, err = run(["train", "-", "--out", path(model + ".json")], stdin=json.dumps(cfg))
    lines = [json.loads(l) for l in out.splitlines() if l.strip()] if rc == 0 else []
    check(rc == 0 and [l["step"] for l in lines] == [0, 20, 40], f"{model}: trains ({err.strip()})")
    if not lines:
        continue
    check(lines[-1]["loss"] < lines[0]["loss"], f"{model}: the loss falls")
    check("pattern_score" not in lines[-1] and "saturation" not in lines[-1], f"{model}: no attention fields in its log")
    m = json.load(open(path(model + ".json")))
    check(m["config"]["model"] == model and m["config"]["hidden"] == 12 and m["config"]["distance"] == 2,
          f"{model}: the config keeps model, hidden and distance")
    w = m["weights"]
    G = 4 if model == "lstm" else 1
    check(sorted(w) == sorted(["w_e", "w_u", "b_u"] + [f"{k}_l{l}" for k in ["weight_ih", "weight_hh", "bias_ih", "bias_hh"] for l in [0, 1]]),
          f"{model}: weights under PyTorch's names ({sorted(w)})")
    check(len(w["weight_ih_l0"]) == 12 * G and len(w["weight_ih_l0"][0]) == 32 and len(w["weight_ih_l1"][0]) == 12
          and len(w["weight_hh_l1"]) == 12 * G and len(w["bias_hh_l0"]) == 12 * G and not isinstance(w["bias_hh_l0"][0], list)
          and len(w["w_u"]) == 12 and len(w["b_u"]) == 16, f"{model}: PyTorch's shapes")
    rc, out, err = run(["run", path(model + ".json")])
    r = json.loads(out) if rc == 0 else {}
    check(rc == 0 and r["model"]["model"] == model and len(r["layers"]) == 2 and len(r["layers"][1]["hidden_states"]) == 10
          and len(r["influence"]) == 10 and all(r["influence"][i][j] == 0 for i in range(10) for j in range(i + 1, 10)),
          f"run {model}: hidden states and a causal influence matrix ({err.strip()})")
    batch = json.dumps({"tokens": [[0, 1, 2, 3, 4]], "targets": [[-1, -1, 0, 1, 2]]})
    rc, out, err = run(["grad", path(model + ".json"), "-", "--double"], stdin=batch)
    g = json.loads(out) if rc == 0 else {}
    check(rc == 0 and sorted(g["gradients"]) == sorted(w) and g["targets"] == 3, f"grad {model}: PyTorch's names ({err.strip()})")
    rc, out, err = run(["gradient-distance", path(model + ".json"), "--sequences", "8"])
    d = json.loads(out) if rc == 0 else {}
    check(rc == 0 and d["distance"] == list(range(10)) and d["step"] == 40 and len(d["mean_grad_norm"]) == 10
          and d["count"][0] == 8 * 8, f"gradient-distance of a trained {model} ({err.strip()})")
    expect_error(["gradient-distance", path(model + ".json"), "--sequences", "33"], "--sequences")
dc = write("dc.json", json.dumps({"task": "delayed_copy", "n": 6, "distance": 2, "hidden": 8, "train": {"steps": 4, "eval_batch": 8}}))
rc, out, err = run(["sweep", dc, "--distance", "1,3", "--models", "attention,rnn"])
lines = [json.loads(l) for l in out.splitlines() if l.strip()] if rc == 0 else []
check(rc == 0 and [(l["model"], l["distance"]) for l in lines] == [("attention", 1), ("attention", 3), ("rnn", 1), ("rnn", 3)]
      and all(l["steps"] == 4 and 0 <= l["accuracy"] <= 1 and l["params"] > 0 for l in lines), f"sweep: one line per (model, distance) ({err.strip()})")
expect_error(["sweep", dc, "--distance", "1,6"], "distance: must be between 1 and n-1 = 5")
expect_error(["sweep", dc, "--distance", "0"], "--distance")
expect_error(["sweep", dc, "--distance", "2", "--models", "rnn,gru"], "--models")
expect_error(["sweep", dc], "--distance: missing")
expect_error(["sweep", "-", "--distance", "2"], "--distance: only the delayed_copy task", stdin='{"task": "induction"}')
rc, out, err = run(["gradient-distance", "-", "--sequences", "4"], stdin=json.dumps({"task": "delayed_copy", "model": "rnn", "n": 6, "distance": 1}))
d = json.loads(out) if rc == 0 else {}
check(rc == 0 and d["step"] == 0 and d["mean_grad_norm"][1] > d["mean_grad_norm"][5] > 0,
      f"gradient-distance of an untrained rnn falls with distance ({err.strip()})")

finish()
