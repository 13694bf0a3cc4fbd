"""What the PyTorch peers share: a small model trained by attnlab-cli with its gradient for a random
explicit batch (the gradient checks), and the timing loop of a training step (the speed peers)."""
import json
import os
import subprocess
import time

import torch


def cli_case(cli, cfg, tmp, i):
    """Trains `cfg` for a few steps with the CLI, draws a batch of 3 sequences (every third target -1)
    and asks `grad --double` for it. Returns (model file, tokens, targets, grad output, model path)."""
    cfg = dict(cfg, train={"steps": 5, "eval_batch": 2})
    model_path, batch_path = os.path.join(tmp, f"m{i}.json"), os.path.join(tmp, f"b{i}.json")
    subprocess.run(cli + ["train", "-", "--out", model_path, "--quiet"], input=json.dumps(cfg), text=True, check=True)
    m = json.load(open(model_path))
    n, V = m["config"]["n"], m["config"]["vocab"]
    g = torch.Generator().manual_seed(i)
    tokens = torch.randint(0, V, (3, n), generator=g)
    targets = torch.randint(0, V, (3, n), generator=g)
    targets[:, ::3] = -1
    json.dump({"tokens": tokens.tolist(), "targets": targets.tolist()}, open(batch_path, "w"))
    out = json.loads(subprocess.run(cli + ["grad", model_path, batch_path, "--double"], capture_output=True, text=True,
                                    check=True).stdout)
    return m, tokens, targets, out, model_path


def ms_per_step(step, quick):
    """step(i) runs training step i. 10 warm-up steps, then at least 50 and about 2 s (0.5 s quick)."""
    for i in range(10):
        step(i)
    steps, t0 = 0, time.perf_counter()
    while steps < 50 or time.perf_counter() - t0 < (0.5 if quick else 2.0):
        step(steps)
        steps += 1
    return (time.perf_counter() - t0) * 1000 / steps, steps
