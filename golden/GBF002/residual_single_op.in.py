"""A residual block whose loop only calls its layers, which break further down: outlined whole, the
loop would bring one op (`residual + x`) into a graph, and the compiled frame around it costs more
on every call than that op saves. The finding is reported with no fix."""
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
        self.layers = nn.ModuleList([Layer(), nn.ELU(), Layer()])
        self.shortcut = nn.Identity()

    def forward(self, x):
        residual = x
        for layer in self.layers:
            x = layer(x)
        return self.shortcut(residual) + x


ENTRY = Block


def example_inputs():
    return (torch.ones(2, 3),)
