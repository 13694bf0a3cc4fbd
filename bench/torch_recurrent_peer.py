#!/usr/bin/python3
"""PyTorch peer of `attnlab-bench --train-recurrent`: training steps per second on the delayed copy
(vocab 16, n 32, batch 32, distance 8) for the attention model (1 layer, 2 heads, d_model 32, learned
positions, causal), torch.nn.RNN and torch.nn.LSTM (d_model 32, hidden 64): autograd, AdamW (lr 1e-2),
gradient clipping to 1.0 as the task's defaults, one thread, eager mode. Batches are drawn before the
timing. Prints one JSON line per model in attnlab-bench's format with "impl": "pytorch".

    python3 bench/torch_recurrent_peer.py [--quick]
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_util import ms_per_step  # noqa: E402
from torch_model import Model  # noqa: E402
from torch_recurrent import Recurrent  # noqa: E402

torch.set_num_threads(1)
torch.manual_seed(0)
quick = "--quick" in sys.argv
n, batch, vocab, distance = 32, 32, 16, 8


def delayed_batch():
    tokens = torch.randint(0, vocab, (batch, n))
    targets = torch.full((batch, n), -1)
    targets[:, distance:] = tokens[:, :-distance]
    return tokens, targets


batches = [delayed_batch() for _ in range(16)]
allowed = torch.ones(n, n, dtype=torch.bool).tril()
for kind in ["attention", "rnn", "lstm"]:
    if kind == "attention":
        model = Model(vocab, 32, 1, 2, 16, 16, n)
        loss_of = lambda tokens, targets: model(tokens, targets, allowed)
    else:
        model = Recurrent(kind, vocab, 32, 64, 1)
        loss_of = lambda tokens, targets: model(tokens, targets)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.0)

    def step(i):
        tokens, targets = batches[i % len(batches)]
        opt.zero_grad(set_to_none=True)
        loss = loss_of(tokens, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    ms, steps = ms_per_step(step, quick)
    params = sum(p.numel() for p in model.parameters())
    print(json.dumps({"impl": "pytorch", "isa": f"torch-{torch.__version__}", "task": "delayed_copy", "model": kind,
                      "params": params, "n": n, "batch": batch, "steps": steps, "ms_per_step": round(ms, 4),
                      "steps_per_s": round(1000 / ms, 1)}), flush=True)
