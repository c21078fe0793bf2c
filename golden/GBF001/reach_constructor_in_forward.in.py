# golden: --reach compiled
"""A constructor counts when compiled code calls it: a cache object built inside forward.
The constructor of a class nothing compiled builds is left alone."""
import torch


class Scales:
    def __init__(self, x):
        for i in range(3):
            x = x * 0.5 + 1.0
            print("scale", i)
        self.value = x


class Block(torch.nn.Module):
    def forward(self, x):
        scales = Scales(x)
        return x + scales.value


class Unused:
    def __init__(self, x):
        for i in range(3):
            x = x * 0.5 + 1.0
            print("never built", i)
        self.value = x


ENTRY = Block


def example_inputs():
    return (torch.randn(2, 8),)
