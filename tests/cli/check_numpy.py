#!/usr/bin/python3
"""attnlab-cli against an independent float64 NumPy forward pass.

Random explicit x and weights (NumPy's own generator) go in through the CLI schema; every matrix the
CLI prints is compared with NumPy's. Usage: check_numpy.py CLI [RUNNER...]   (RUNNER e.g. node for WASM)
"""
import json
import subprocess
import sys

import numpy as np

cli = sys.argv[1:]
TOL = 2e-5  # max |a - b| / (1 + |b|)


def attention_np(x, xs, wq, wk, wv, wo, allowed, alpha):
    heads = []
    for h in range(len(wq)):
        q, k, v = x @ wq[h], xs @ wk[h], xs @ wv[h]
        s = (q @ k.T) * alpha
        z = np.where(allowed, s, -np.inf)
        mx = z.max(axis=1, keepdims=True)
        full = ~allowed.any(axis=1, keepdims=True)
        e = np.where(allowed, np.exp(z - np.where(full, 0, mx)), 0.0)
        den = e.sum(axis=1, keepdims=True)
        w = np.where(full, 0.0, e / np.where(den == 0, 1, den))
        heads.append(dict(q=q, k=k, v=v, scores=s, weights=w, output=w @ v))
    concat = np.concatenate([hd["output"] for hd in heads], axis=1)
    return heads, concat, concat @ wo


def allowed_np(masks, n, m):
    a = np.ones((n, m), dtype=bool)
    i, j = np.indices((n, m))
    for t in masks:
        if t == "causal":
            a &= j <= i
        elif "window" in t:
            a &= np.abs(i - j) < t["window"]
            if t.get("causal", True):
                a &= j <= i
        elif "padding" in t:
            a[:, t["padding"]] = False
        elif "custom" in t:
            a &= np.array(t["custom"], dtype=bool)
    return a


def check(name, n, m, d_model, heads, d_k, d_v, masks, scale, temperature, rng):
    x = rng.standard_normal((n, d_model))
    xs = rng.standard_normal((m, d_model)) if m != n or name.startswith("cross") else x
    wq = rng.standard_normal((heads, d_model, d_k)) * 0.3
    wk = rng.standard_normal((heads, d_model, d_k)) * 0.3
    wv = rng.standard_normal((heads, d_model, d_v)) * 0.3
    wo = rng.standard_normal((heads * d_v, d_model)) * 0.3
    cfg = dict(x=x.tolist(), d_model=d_model, heads=heads, d_k=d_k, d_v=d_v, positional="none",
               w_q=wq.tolist(), w_k=wk.tolist(), w_v=wv.tolist(), w_o=wo.tolist(), mask=masks,
               scale=scale, temperature=temperature)
    if xs is not x:
        cfg["source"] = {"x": xs.tolist()}
    # NumPy sees exactly the float32 numbers the engine reads.
    f32 = lambda a: np.asarray(a, dtype=np.float32).astype(np.float64)
    x, xs, wq, wk, wv, wo = map(f32, (x, xs, wq, wk, wv, wo))
    out = subprocess.run(cli + ["run", "-"], input=json.dumps(cfg), capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"{name}: attnlab-cli failed: {out.stderr}")
    got = json.loads(out.stdout)
    alpha = {True: 1 / np.sqrt(d_k), False: 1.0}.get(scale, scale) if not isinstance(scale, bool) or True else 0
    if isinstance(scale, bool):
        alpha = np.float32(1 / np.sqrt(np.float32(d_k))) if scale else 1.0
    alpha = float(np.float32(np.float32(alpha) / np.float32(temperature)))
    allowed = allowed_np(masks, n, m)
    hs, concat, output = attention_np(x, xs, wq, wk, wv, wo, allowed, alpha)
    worst = 0.0
    def cmp(label, a, b):
        nonlocal worst
        a = np.asarray(a, dtype=np.float64)
        assert a.shape == b.shape, f"{name} {label}: shape {a.shape} != {b.shape}"
        err = float(np.max(np.abs(a - b) / (1 + np.abs(b)))) if a.size else 0.0
        worst = max(worst, err)
        assert err < TOL, f"{name} {label}: error {err:.3g} > {TOL}"
    assert (np.array(got["allowed"], dtype=bool) == allowed).all(), f"{name}: allowed differs"
    for h in range(heads):
        for key in ("q", "k", "v", "scores", "weights", "output"):
            cmp(f"head {h} {key}", got["heads"][h][key], hs[h][key])
        w = np.array(got["heads"][h]["weights"])
        assert (w[~allowed] == 0).all(), f"{name}: masked weight not exactly 0"
    cmp("concat", got["concat"], concat)
    cmp("output", got["output"], output)
    assert got["fully_masked_rows"] == [int(i) for i in np.where(~allowed.any(axis=1))[0]], name
    print(f"ok  {name:28s} n={n:3d} m={m:3d} d_model={d_model:3d} heads={heads} max rel err {worst:.2e}")


def main():
    rng = np.random.default_rng(2026)
    check("plain", 1, 1, 8, 1, 8, 8, [], True, 1.0, rng)
    check("causal", 13, 13, 24, 3, 8, 5, ["causal"], True, 1.0, rng)
    check("window two-sided + padding", 17, 17, 16, 2, 7, 9, [{"window": 3, "causal": False}, {"padding": [0, 4]}], True, 0.7, rng)
    check("window causal, no scale", 9, 9, 12, 4, 3, 3, [{"window": 2, "causal": True}], False, 2.0, rng)
    custom = [[int((i * 3 + j) % 4 != 0) for j in range(6)] for i in range(6)]
    custom[2] = [0] * 6
    check("custom with a masked row", 6, 6, 10, 2, 5, 5, [{"custom": custom}], 0.25, 1.0, rng)
    check("cross", 5, 11, 16, 2, 8, 8, [{"padding": [10]}], True, 1.0, rng)
    check("larger", 70, 70, 64, 8, 8, 8, ["causal"], True, 1.0, rng)
    print("golden: all NumPy float64 comparisons passed")


main()
