"""A loop over a slice of a module list (`self.layers[: n]`) whose layers break further down: the same
modules as the whole list, so the loop's frame is skipped. The loop is outlined whole, with no per-trip
function: each trip's work is in `layer`, which breaks inside and compiles as a frame of its own either
way, so a per-trip function would break at that call too, for the two ops around it
(GBF002/trip_breaks_in_its_call)."""
import torch
from torch import nn


class Router(nn.Module):
    def forward(self, h):
        with torch.no_grad():
            hit = (h > 0).nonzero()
        return h * (hit.shape[0] > 0)


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.router = Router()

    def forward(self, h):
        return self.router(self.proj(h))


class Model(nn.Module):
    def __init__(self, depth=2):
        super().__init__()
        self.depth = depth
        self.layers = nn.ModuleList([Layer() for _ in range(3)])

    def forward(self, h):
        h = h * 2
        for layer in self.layers[: self.depth]:
            h = layer(h).relu() + h
        return h.softmax(-1)


ENTRY = Model
# the loop helper that runs the trips is skipped
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(3, 4),)
