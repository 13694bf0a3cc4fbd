"""The learning engine's model (docs/train.md) in PyTorch, for the training benchmark's peer and the
gradient check: attention-only transformer, learned or no positions, per-head W_Q/W_K/W_V, W_O,
untied or tied unembedding, masks as an additive -inf, mean cross-entropy over the target positions."""
import math

import torch


class Model(torch.nn.Module):
    def __init__(self, vocab, d_model, layers, heads, d_k, d_v, n_ctx, positional="learned", tied=False,
                 alpha=None, dtype=torch.float32):
        super().__init__()
        self.heads, self.d_k, self.d_v, self.tied, self.positional = heads, d_k, d_v, tied, positional
        self.alpha = alpha if alpha is not None else 1.0 / math.sqrt(d_k)
        p = lambda *shape, sd: torch.nn.Parameter(torch.randn(*shape, dtype=dtype) * sd)
        sd = 1.0 / math.sqrt(d_model)
        self.w_e = p(vocab, d_model, sd=0.1)
        self.pos = p(n_ctx, d_model, sd=0.1) if positional == "learned" else None
        self.w_q = torch.nn.ParameterList([p(d_model, heads * d_k, sd=sd) for _ in range(layers)])
        self.w_k = torch.nn.ParameterList([p(d_model, heads * d_k, sd=sd) for _ in range(layers)])
        self.w_v = torch.nn.ParameterList([p(d_model, heads * d_v, sd=sd) for _ in range(layers)])
        self.w_o = torch.nn.ParameterList([p(heads * d_v, d_model, sd=sd) for _ in range(layers)])
        self.w_u = None if tied else p(d_model, vocab, sd=sd)

    def forward(self, tokens, targets, allowed):
        """tokens, targets: (B, n) long, -1 = no target; allowed: (n, n) bool. Returns the mean loss."""
        B, n = tokens.shape
        x = self.w_e[tokens]
        if self.pos is not None:
            x = x + self.pos[:n]
        neg = torch.zeros(n, n, dtype=x.dtype).masked_fill(~allowed, float("-inf"))
        H, dk, dv = self.heads, self.d_k, self.d_v
        for wq, wk, wv, wo in zip(self.w_q, self.w_k, self.w_v, self.w_o):
            q = (x @ wq).view(B, n, H, dk).transpose(1, 2)
            k = (x @ wk).view(B, n, H, dk).transpose(1, 2)
            v = (x @ wv).view(B, n, H, dv).transpose(1, 2)
            a = torch.softmax(q @ k.transpose(-1, -2) * self.alpha + neg, dim=-1)
            x = x + (a @ v).transpose(1, 2).reshape(B, n, H * dv) @ wo
        logits = x @ (self.w_e.t() if self.tied else self.w_u)
        return torch.nn.functional.cross_entropy(logits.reshape(B * n, -1), targets.reshape(-1), ignore_index=-1)
