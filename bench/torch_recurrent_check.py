#!/usr/bin/python3
"""`attnlab-cli grad --double` and `run` of recurrent models against torch.nn.RNN / torch.nn.LSTM in
float64 (needs python3-torch; not part of the test suite, which checks gradients against finite
differences). For several sizes and depths: the CLI trains a model for a few steps, the model file's
weights load into PyTorch by name, and both compute the loss, every gradient and the logits of the
same batch. Prints the worst difference per case, relative to each tensor's largest value, and exits 1
above 1e-5 (the JSON carries float32 numbers, so ~1e-7 is the floor).

    python3 bench/torch_recurrent_check.py build/attnlab-cli
"""
import json
import os
import subprocess
import sys
import tempfile

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_util import cli_case  # noqa: E402
from torch_recurrent import Recurrent  # noqa: E402

torch.set_num_threads(1)
cli = sys.argv[1:] or ["build/attnlab-cli"]
tmp = tempfile.mkdtemp()
cases = [
    {"model": "rnn", "layers": 1, "hidden": 16, "d_model": 8},
    {"model": "rnn", "layers": 3, "hidden": 7, "d_model": 5, "n": 11, "distance": 3},
    {"model": "lstm", "layers": 1, "hidden": 16, "d_model": 8},
    {"model": "lstm", "layers": 2, "hidden": 9, "d_model": 6, "n": 13, "distance": 5},
    {"model": "rnn", "layers": 2, "hidden": 64, "d_model": 32},
    {"model": "lstm", "layers": 1, "hidden": 64, "d_model": 32},
]
worst_all = 0.0
for i, case in enumerate(cases):
    m, tokens, targets, out, model_path = cli_case(cli, dict({"task": "delayed_copy"}, **case), tmp, i)
    c, w = m["config"], m["weights"]
    V = c["vocab"]
    tm = Recurrent(c["model"], V, c["d_model"], c["hidden"], c["layers"], torch.float64)
    tm.load(w)
    loss = tm(tokens, targets)
    loss.backward()
    worst_grad = abs(loss.item() - out["loss"]) / abs(loss.item())
    ref = tm.grads()
    if sorted(ref) != sorted(out["gradients"]):
        print("names differ:", sorted(ref), sorted(out["gradients"]))
        worst_grad = 1.0
    for name, r in ref.items():
        ours = torch.as_tensor(out["gradients"][name], dtype=torch.float64)
        worst_grad = max(worst_grad, ((r - ours).abs().max() / r.abs().max()).item())
    # the float engine's logits of one sequence (run --tokens) against PyTorch's in double
    labels = " ".join(m["vocabulary"][t] for t in tokens[0].tolist())
    run = json.loads(subprocess.run(cli + ["run", model_path, "--tokens", labels], capture_output=True, text=True,
                                    check=True).stdout)
    with torch.no_grad():
        z = tm.logits(tokens[:1])[0]
    worst_logits = ((z - torch.tensor(run["logits"], dtype=torch.float64)).abs().max() / z.abs().max()).item()
    worst = max(worst_grad, worst_logits)
    worst_all = max(worst_all, worst)
    print(json.dumps({"case": case, "loss": out["loss"], "torch_loss": loss.item(),
                      "worst_rel_diff_grad_double": worst_grad, "worst_rel_diff_logits_float": worst_logits}))
sys.exit(0 if worst_all <= 1e-5 else 1)
