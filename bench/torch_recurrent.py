"""The learning engine's recurrent models (docs/train.md) in PyTorch: an embedding, torch.nn.RNN (tanh) or
torch.nn.LSTM, and a linear unembedding, with the engine's weights loaded by name (the model file's
weight_ih_l0, ... are the state_dict keys; w_u is hidden x vocab, so Linear's weight is its transpose)."""
import torch


class Recurrent(torch.nn.Module):
    def __init__(self, kind, vocab, d_model, hidden, layers, dtype=torch.float32):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, d_model, dtype=dtype)
        cell = torch.nn.LSTM if kind == "lstm" else torch.nn.RNN
        self.rnn = cell(d_model, hidden, layers, batch_first=True, dtype=dtype)
        self.out = torch.nn.Linear(hidden, vocab, dtype=dtype)

    def load(self, weights):
        """weights: a model file's "weights" object."""
        t = lambda v: torch.tensor(v, dtype=self.out.weight.dtype)
        with torch.no_grad():
            self.embed.weight.copy_(t(weights["w_e"]))
            for name, p in self.rnn.named_parameters():
                p.copy_(t(weights[name]))
            self.out.weight.copy_(t(weights["w_u"]).t())
            self.out.bias.copy_(t(weights["b_u"]))

    def logits(self, tokens):
        h, _ = self.rnn(self.embed(tokens))
        return self.out(h)

    def forward(self, tokens, targets):
        """tokens, targets: (B, n) long, -1 = no target. Returns the mean cross-entropy over the targets."""
        z = self.logits(tokens)
        return torch.nn.functional.cross_entropy(z.reshape(-1, z.shape[-1]), targets.reshape(-1), ignore_index=-1)

    def grads(self):
        """The gradients in the model file's layout and names."""
        g = {"w_e": self.embed.weight.grad, "w_u": self.out.weight.grad.t(), "b_u": self.out.bias.grad}
        for name, p in self.rnn.named_parameters():
            g[name] = p.grad
        return g
