"""`for i, layer in enumerate(self.layers[: n])` over layers whose `mlp` is one of two classes: the loop
breaks when either class's forward does, so its frame is skipped. The loop is outlined whole, with no
per-trip function: each trip's work is in `layer`, which breaks inside and compiles as a frame of its
own either way, so a per-trip function would break at that call too, for the three ops around it
(GBF002/trip_breaks_in_its_call)."""
import torch
from torch import nn


class Experts(nn.Module):
    def forward(self, h):
        with torch.no_grad():
            hit = (h > 0).nonzero()
        return h * (hit.shape[0] > 0)


class Sparse(nn.Module):
    def __init__(self):
        super().__init__()
        self.experts = Experts()

    def forward(self, h):
        return self.experts(h)


class Dense(nn.Module):
    def forward(self, h):
        return h.relu()


class Layer(nn.Module):
    def __init__(self, index):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        if index % 2:
            self.mlp = Sparse()
        else:
            self.mlp = Dense()

    def forward(self, h):
        return self.mlp(self.proj(h))


class Model(nn.Module):
    def __init__(self, depth=3):
        super().__init__()
        self.depth = depth
        self.layers = nn.ModuleList([Layer(i) for i in range(4)])

    def forward(self, h):
        h = h * 2
        for i, layer in enumerate(self.layers[: self.depth]):
            h = layer(h) * (i + 1) + h
        return h.softmax(-1)


ENTRY = Model
# the loop helper that runs the trips is skipped
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(3, 4),)
