"""A block loop with one op of its own after it, and a generator expression before it: skipped,
the function runs the generator's frame eagerly with the calls it makes, so outlining the loop
captures that work too, and the loop is outlined whole."""
import torch
from torch import nn


class Layer(nn.Module):
    def forward(self, x):
        x = x * 2
        print("layer")
        return x + 1


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Layer(), Layer()])

    def embed(self, t):
        return torch.tanh(t) * 3 - 1

    def forward(self, x, extras):
        extras = tuple(self.embed(e) for e in extras)
        for layer in self.layers:
            x = layer(x)
        return x + extras[0]


ENTRY = Block
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.ones(2, 3), (torch.ones(2, 3), torch.zeros(2, 3)))
