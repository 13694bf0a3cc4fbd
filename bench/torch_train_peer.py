#!/usr/bin/python3
"""PyTorch peer of `attnlab-bench --train`: the same induction model (2 layers, n 32, batch 32, vocab 28,
causal, learned positions), autograd + torch.optim.AdamW (lr 1e-2), one thread, eager mode. Prints one
JSON line per case in attnlab-bench's format with "impl": "pytorch". Batches are drawn like the
engine's task (a pattern of 6-14 distinct tokens repeated), before the timing.

    python3 bench/torch_train_peer.py [--quick]
"""
import json
import os
import random
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_util import ms_per_step  # noqa: E402
from torch_model import Model  # noqa: E402

torch.set_num_threads(1)
torch.manual_seed(0)
random.seed(0)
quick = "--quick" in sys.argv
n, batch, vocab = 32, 32, 28


def induction_batch():
    tokens, targets = [], []
    for _ in range(batch):
        period = random.randint(6, 14)
        pattern = random.sample(range(vocab - 1), period)
        x = [pattern[i % period] for i in range(n)]
        tokens.append(x)
        targets.append([x[i + 1] if period <= i < n - 1 else -1 for i in range(n)])
    return torch.tensor(tokens), torch.tensor(targets)


batches = [induction_batch() for _ in range(16)]
allowed = torch.ones(n, n, dtype=torch.bool).tril()
for d_model, heads in [(32, 2), (32, 4), (64, 2), (64, 4)]:
    model = Model(vocab, d_model, 2, heads, d_model // heads, d_model // heads, n)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.0)

    def step(i):
        tokens, targets = batches[i % len(batches)]
        opt.zero_grad(set_to_none=True)
        loss = model(tokens, targets, allowed)
        loss.backward()
        opt.step()

    ms, steps = ms_per_step(step, quick)
    print(json.dumps({"impl": "pytorch", "isa": f"torch-{torch.__version__}", "layers": 2, "d_model": d_model,
                      "heads": heads, "n": n, "batch": batch, "steps": steps, "ms_per_step": round(ms, 4),
                      "steps_per_s": round(1000 / ms, 1)}), flush=True)
