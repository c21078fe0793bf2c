"""A base class keeps the layers its subclass builds (`super().__init__(layers)`, `self.layers =
layers`), and the layer class's name starts with an underscore: the loop over the layers breaks
where a layer branches on a tensor's value."""
import torch
from torch import nn


class _Layer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.proj = nn.Linear(width, width)

    def forward(self, h):
        if h.sum() > 0:
            h = -h
        return self.proj(h)


class _Stack(nn.Module):
    def __init__(self, layers, scale=1.0):
        super().__init__()
        self.layers = layers
        self.scale = scale

    def forward(self, h):
        h = h * self.scale
        for layer in self.layers:
            h = layer(h).tanh() + h
        return h.softmax(-1)


class Encoder(_Stack):
    def __init__(self, width=4, depth=3):
        layers = nn.ModuleList([_Layer(width) for _ in range(depth)])
        super().__init__(layers, scale=2.0)


ENTRY = Encoder
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(3, 4),)
