"""The neighbour of `trip_breaks_in_its_call`: the body still breaks inside the call it makes, but
does real work of its own around it (a normalisation, a gated residual): more than a handful of
inline ops, so each trip's function is worth its frames and the loop gets one."""
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, h):
        if h.sum() > 0:
            h = h * 0.5
        return self.proj(h)


class Stack(nn.Module):
    def __init__(self, depth=3, dim=4):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])
        self.gate = nn.Parameter(torch.linspace(0.1, 0.9, dim))

    def forward(self, h):
        for block in self.blocks:
            centred = h - h.mean(-1, keepdim=True)
            normed = centred / (centred.pow(2).mean(-1, keepdim=True) + 1e-5).sqrt()
            update = block(normed)
            h = h + torch.sigmoid(self.gate) * update.tanh() * 0.5
        return h.softmax(-1)


ENTRY = Stack
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.linspace(-1.0, 1.0, 12).reshape(3, 4),)
