#!/usr/bin/python3
"""`attnlab-cli grad --double` against torch.autograd in float64 (needs python3-torch; not part of the
test suite, which checks gradients against finite differences instead). For small models of several
kinds: the CLI trains a model for a few steps, then both compute the loss and every gradient for the
same explicit batch; prints the worst relative difference per case (relative to each tensor's largest
gradient) and exits 1 above 1e-6: the JSON carries float32 numbers, so ~1e-7 is the floor.

    python3 bench/torch_grad_check.py build/attnlab-cli
"""
import json
import os
import sys
import tempfile

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_util import cli_case  # noqa: E402
from torch_model import Model  # noqa: E402

cli = sys.argv[1:] or ["build/attnlab-cli"]
tmp = tempfile.mkdtemp()
cases = [
    {"task": "induction", "layers": 2, "d_model": 16, "heads": 2},
    {"task": "induction", "layers": 3, "d_model": 12, "heads": 3, "d_k": 5, "d_v": 3, "tied": True},
    {"task": "reverse", "layers": 1, "heads": 4, "d_model": 16, "scale": 0.7, "temperature": 2.0},
    {"task": "previous_token", "layers": 2, "positional": "none", "mask": [{"window": 3, "causal": True}]},
]
worst_all = 0.0
for i, cfg in enumerate(cases):
    m, tokens, targets, out, _ = cli_case(cli, cfg, tmp, i)
    c, w = m["config"], m["weights"]
    n, V = c["n"], c["vocab"]
    # the same model in torch, float64
    H, dk, dv = c["heads"], c["d_k"], c["d_v"]
    scale = c["scale"]
    alpha = (1.0 / dk ** 0.5 if scale is True else 1.0 if scale is False else scale) / c["temperature"]
    tm = Model(V, c["d_model"], c["layers"], H, dk, dv, n, c["positional"], c["tied"], alpha, torch.float64)
    per_head = lambda t: torch.tensor(t, dtype=torch.float64).permute(1, 0, 2).reshape(c["d_model"], -1)
    with torch.no_grad():
        tm.w_e.copy_(torch.tensor(w["w_e"]))
        if tm.pos is not None:
            tm.pos.copy_(torch.tensor(w["pos"]))
        if tm.w_u is not None:
            tm.w_u.copy_(torch.tensor(w["w_u"]))
        for l, layer in enumerate(w["layers"]):
            tm.w_q[l].copy_(per_head(layer["w_q"]))
            tm.w_k[l].copy_(per_head(layer["w_k"]))
            tm.w_v[l].copy_(per_head(layer["w_v"]))
            tm.w_o[l].copy_(torch.tensor(layer["w_o"]))
    allowed = torch.ones(n, n, dtype=torch.bool)
    masks = c["mask"] if isinstance(c["mask"], list) else [c["mask"]]
    for t in masks:
        idx = torch.arange(n)
        if t == "causal":
            allowed &= idx[None, :] <= idx[:, None]
        elif isinstance(t, dict) and "window" in t:
            dist = (idx[:, None] - idx[None, :]).abs()
            allowed &= dist < t["window"]
            if t.get("causal", True):
                allowed &= idx[None, :] <= idx[:, None]
    loss = tm(tokens, targets, allowed)
    loss.backward()
    gw = out["gradients"]
    pairs = [(tm.w_e.grad, gw["w_e"])]
    if tm.pos is not None:
        pairs.append((tm.pos.grad, gw["pos"]))
    if tm.w_u is not None:
        pairs.append((tm.w_u.grad, gw["w_u"]))
    for l, layer in enumerate(gw["layers"]):
        pairs += [(tm.w_q[l].grad, per_head(layer["w_q"])), (tm.w_k[l].grad, per_head(layer["w_k"])),
                  (tm.w_v[l].grad, per_head(layer["w_v"])), (tm.w_o[l].grad, layer["w_o"])]
    worst = abs(loss.item() - out["loss"]) / abs(loss.item())
    for ref, ours in pairs:
        ours = torch.as_tensor(ours, dtype=torch.float64)
        worst = max(worst, ((ref - ours).abs().max() / ref.abs().max()).item())
    worst_all = max(worst_all, worst)
    print(json.dumps({"case": {k: v for k, v in cfg.items() if k != "train"}, "loss": out["loss"],
                      "torch_loss": loss.item(), "worst_rel_diff": worst}))
sys.exit(0 if worst_all <= 1e-6 else 1)
