"""A decoder-style loop whose body only calls its layers, which break further down: each call compiles
as the layer's own frame anyway, so the loop is outlined whole, without a per-trip function."""
import torch
from torch import nn


class Layer(nn.Module):
    def forward(self, x):
        x = x * 2
        print("layer")
        return x + 1


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Layer() for _ in range(3)])

    def forward(self, x, n=3):
        x = torch.relu(x)

        def _gbfix_layers_loop_1():
            nonlocal x
            for layer in self.layers[:n]:
                x = layer(x)

        _gbfix_layers_loop_1()
        return torch.sigmoid(x) * 3


ENTRY = Model
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.ones(2),)
