#!/usr/bin/env python3
"""attnlab-cli ablate / patch / attribute / circuits / rollout and run --ablate (docs/inspect.md): the JSON
shapes, the identities that must hold in them (baseline = the model file's evaluation, attribution parts
add up to the logit, the final residual restores only its own position, rollout rows sum to 1), and bad
input: exit 2 with one line naming the field.

Usage: test_inspect_cli.py CLI [RUNNER...]   (e.g. node --no-experimental-fetch attnlab-cli.js)
"""
import json
import os
import tempfile

from clitest import check, expect_error, finish, run

def ok(args):
    rc, out, err = run(args)
    check(rc == 0, f"{args}: exit {rc} ({err.strip()})")
    return json.loads(out) if rc == 0 else None


tmp = tempfile.mkdtemp()
ind = os.path.join(tmp, "ind.json")
rc, _, err = run(["train", "-", "--out", ind, "--quiet"],
                 stdin=json.dumps({"task": "induction", "train": {"steps": 40, "eval_every": 40, "eval_batch": 24}}))
check(rc == 0, f"a small induction model trains ({err.strip()})")
model = json.load(open(ind))
L, H, V, N = 2, 2, 28, 32

# [SECTION] ablate
t = ok(["ablate", ind, "--each"])
if t:
    check(t["mode"] == "zero", "--each: zero by default")
    check(t["baseline"]["loss"] == model["metrics"]["loss"] and t["baseline"]["accuracy"] == model["metrics"]["accuracy"],
          "--each: the baseline is the model file's last evaluation, exactly")
    check(len(t["heads"]) == L and all(len(r) == H for r in t["heads"]), "--each: (layers, heads)")
    check(all(set(e) == {"loss", "accuracy", "pattern_score"} for r in t["heads"] for e in r), "--each: loss, accuracy, pattern_score")
    check(any(e["loss"] != t["baseline"]["loss"] for r in t["heads"] for e in r), "--each: ablating a head changes the loss")
a = ok(["ablate", ind, "--heads", "1.0,0.1", "--mode", "mean"])
if a:
    check(a["mode"] == "mean" and a["ablated"] == [[1, 0], [0, 1]], "ablate: mode and heads echoed")
    check(len(a["head_pattern_scores"]) == L, "ablate: each head's pattern score")
    p = a["probe"]
    check(len(p["tokens"]) == N and len(p["predictions"]) == N and len(p["targets"]) == N, "ablate: the probe's sequences")
    check(len(p["attention"]) == L and len(p["attention"][0]) == H and len(p["attention"][0][0]) == N, "ablate: the probe's attention")
    z = ok(["ablate", ind, "--heads", "1.0,0.1"])
    check(z and z["loss"] != a["loss"], "ablate: zero and mean differ")
    check(z and z["baseline"] == a["baseline"], "ablate: the same baseline")
expect_error(["ablate", ind], "--heads")
expect_error(["ablate", ind, "--heads", "1.0", "--each"], "--heads")
expect_error(["ablate", ind, "--heads", "2.0"], "--heads: head 2.0: no layer 2")
expect_error(["ablate", ind, "--heads", "0.2"], "--heads: head 0.2: no head 2")
expect_error(["ablate", ind, "--heads", "0.1,0.1"], "twice")
expect_error(["ablate", ind, "--heads", "one"], "--heads: expected LAYER.HEAD")
expect_error(["ablate", ind, "--heads", "1.0", "--mode", "half"], "--mode")
expect_error(["ablate", ind, "--heads"], "unknown or incomplete option '--heads'")
expect_error(["ablate", ind, "--colour", "red"], "--colour")
expect_error(["ablate", os.path.join(tmp, "missing.json"), "--each"], "cannot read", code=1)

# [SECTION] run --ablate: the same output as run, the ablated model's stream and logits
plain = ok(["run", ind])
ab = ok(["run", ind, "--ablate", "0.0,0.1"])
if plain and ab:
    check(ab["ablated"] == {"heads": [[0, 0], [0, 1]], "mode": "zero"}, "run --ablate: lists the heads")
    check("ablated" not in plain, "run: no ablated field without --ablate")
    check(ab["layers"][0]["x"] == plain["layers"][0]["x"], "run --ablate: layer 0's input is the embedding still")
    check(ab["layers"][1]["x"] == ab["layers"][0]["x"], "run --ablate: with all of layer 0 zeroed, layer 1 reads the embedding")
    check(ab["logits"] != plain["logits"], "run --ablate: other logits")
    check(set(plain) <= set(ab), "run --ablate: every field of run")
check(ok(["run", ind, "--ablate", "1.1", "--mode", "mean"]) is not None, "run --ablate --mode mean")
expect_error(["run", ind, "--ablate", "0.9"], "--ablate: head 0.9")
expect_error(["run", ind, "--mode", "mean"], "--mode: only with --ablate")
expect_error(["run", ind, "--ablate", "1.0", "--mode", "most"], "--mode")

# [SECTION] patch
clean = "a b c d e f g a b c d e f g a b c d e f g a b c d e f g a b c d"
corrupt = "a b c d e f g a b c d e f g a b c d e f g a b c d e f g a z c d"
rc, out, err = run(["patch", ind, "--clean", clean, "--corrupt", corrupt])
if rc == 0:
    p = json.loads(out)
    check(len(p["heads"]) == L and len(p["heads"][0]) == H, "patch: heads (layers, heads)")
    check(len(p["residual"]) == L + 1 and all(len(r) == N for r in p["residual"]), "patch: residual (layers + 1, n)")
    check(abs(p["residual"][L][p["position"]] - 1) < 1e-5 and all(x == 0 for i, x in enumerate(p["residual"][L]) if i != p["position"]),
          "patch: the final stream restores its own position only")
    check(abs(p["residual"][0][29] - 1) < 1e-5 and all(x == 0 for i, x in enumerate(p["residual"][0]) if i != 29),
          "patch: the corrupted token's embedding restores everything, the others nothing")
    check(p["clean_logit_diff"] > p["corrupt_logit_diff"], "patch: the clean run prefers the clean answer")
    check(p["clean_answer"] != p["corrupt_answer"], "patch: two answers")
    check(p["corrupt_tokens"][29] == "z" and p["clean_tokens"][29] == "b", "patch: the inputs echoed")
else:
    check("position:" in err, f"patch: an untrained-ish model may predict the same everywhere, said so ({err.strip()})")
h = ok(["patch", ind, "--corrupt-at", "3", "--example", "1"])
if h:
    check(h["clean_tokens"][:3] == h["corrupt_tokens"][:3] and h["clean_tokens"][3] != h["corrupt_tokens"][3],
          "patch --corrupt-at: one token changed")
    check(h["corrupt_tokens"][3] not in h["clean_tokens"], "patch --corrupt-at: to a token the sequence lacks")
expect_error(["patch", ind, "--clean", clean, "--corrupt", "a b c"], "--corrupt: 3 tokens, the clean input has 32")
expect_error(["patch", ind, "--clean", clean, "--corrupt", corrupt.replace("z", "Q")], "--corrupt: 'Q' is not in the vocabulary")
expect_error(["patch", ind, "--clean", clean + " a b", "--corrupt", corrupt + " a b"], "--clean: 34 tokens")
expect_error(["patch", ind, "--clean", clean], "--corrupt")
expect_error(["patch", ind, "--corrupt-at", "40"], "--corrupt-at")
expect_error(["patch", ind, "--corrupt-at", "3", "--with", "Q"], "--with")
expect_error(["patch", ind, "--corrupt", corrupt, "--with", "b"], "--with")
expect_error(["patch", ind, "--clean", clean, "--corrupt", corrupt, "--position", "32"], "--position: 32 is outside")
expect_error(["patch", ind, "--clean", clean, "--corrupt", clean], "--position")
expect_error(["patch", ind, "--clean", clean, "--corrupt", corrupt, "--position", "x"], "--position")

# [SECTION] attribute: the parts add up to the logit
at = ok(["attribute", ind])
if at:
    check(len(at["positions"]) == N and len(at["tokens"]) == N, "attribute: every position")
    worst = 0
    for p in at["positions"]:
        total = p["embedding"] + sum(sum(r) for r in p["heads"])
        worst = max(worst, abs(total - p["logit"]) / max(abs(p["logit"]), 1e-3))
    check(worst < 1e-4, f"attribute: embedding + heads = logit (worst relative {worst:.2e})")
    pred = ok(["run", ind])["predictions"]
    check([p["target_token"] for p in at["positions"]] == pred, "attribute: the target is the model's prediction by default")
tg = ok(["attribute", ind, "--tokens", "a b c a b", "--target", "2"])
check(tg and all(p["target"] == 2 and p["target_token"] == "c" for p in tg["positions"]) and len(tg["positions"]) == 5, "attribute --target")
expect_error(["attribute", ind, "--target", "28"], "--target")
expect_error(["attribute", ind, "--tokens", "a Q"], "--tokens: 'Q'")
expect_error(["attribute", ind, "--tokens", " ".join(["a"] * 33)], "--tokens: 33 tokens")
expect_error(["attribute", ind, "--source", "a"], "--source")

# [SECTION] circuits
c = ok(["circuits", ind, "--layer", "1", "--head", "0"])
if c:
    check(len(c["qk"]) == V and len(c["qk"][0]) == V and len(c["ov"]) == V, "circuits: vocab x vocab")
    check(c["tokens"][:3] == ["a", "b", "c"], "circuits: token labels")
    check(len(c["positional_qk"]) == N, "circuits: learned positions have a positional QK")
    check(len(c["composition"]["from"]) == H and c["composition"]["into"] == [], "circuits: layer 1 composes with layer 0's heads")
    check(all(0 <= e[k] <= 1 for e in c["composition"]["from"] for k in "qkv"), "circuits: scores in [0, 1]")
c0 = ok(["circuits", ind, "--layer", "0", "--head", "1"])
check(c0 and c0["composition"]["from"] == [] and len(c0["composition"]["into"]) == H, "circuits: layer 0 writes into layer 1")
expect_error(["circuits", ind, "--layer", "2", "--head", "0"], "--layer")
expect_error(["circuits", ind, "--layer", "0"], "--head")
big = os.path.join(tmp, "big.json")
rc, _, err = run(["train", "-", "--out", big, "--quiet"], stdin=json.dumps({"task": "previous_token", "vocab": 1100, "train": {"steps": 0, "eval_batch": 2}}))
check(rc == 0, f"a large-vocabulary model ({err.strip()})")
expect_error(["circuits", big, "--layer", "0", "--head", "0"], "vocab: circuits are vocab x vocab; at most 1024")

# [SECTION] rollout
r = ok(["rollout", ind, "--tokens", "a b c a b c"])
if r:
    check(len(r["rollout"]) == L and len(r["attention"]) == L and len(r["rollout"][0]) == 6, "rollout: (layers, n, n)")
    check(all(abs(sum(row) - 1) < 1e-5 for m in r["rollout"] for row in m), "rollout: rows sum to 1")
    check(all(row[j] == 0 for m in r["rollout"] for i, row in enumerate(m) for j in range(i + 1, 6)), "rollout: causal")

# [SECTION] cross-attention: the corrupted input is the source
tr = os.path.join(tmp, "tr.json")
rc, _, err = run(["train", "-", "--out", tr, "--quiet"], stdin=json.dumps({"task": "translate", "n": 4, "train": {"steps": 30, "eval_batch": 4}}))
check(rc == 0, f"translate trains ({err.strip()})")
rc, out, err = run(["patch", tr, "--corrupt-at", "0"])
check(rc == 0 or "position:" in err, f"patch on translate: the source is corrupted ({err.strip()})")
if rc == 0:
    p = json.loads(out)
    check(p["clean_tokens"] == p["corrupt_tokens"] and p["clean_source"] != p["corrupt_source"], "patch on translate: source only")
check(ok(["attribute", tr]) is not None, "attribute on translate")
expect_error(["rollout", tr], "rollout: a cross-attention model")
expect_error(["patch", tr, "--clean", "1 2 3", "--corrupt", "1 2"], "--corrupt: 2 tokens")
c = ok(["circuits", tr, "--layer", "0", "--head", "0"])
check(c is not None and c["composition"] == {"from": [], "into": []}, "circuits on a one-layer model: no composition")

finish()
