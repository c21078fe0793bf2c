"""`math.sqrt(x.shape[-1])` reads a shape, a Python int: nothing breaks, nothing changes."""
import math

import torch


class Model(torch.nn.Module):
    def forward(self, x):
        for i in range(3):
            x = x / math.sqrt(x.shape[-1])
        return x.relu()


ENTRY = Model


def example_inputs():
    return (torch.tensor([1.0, -2.0, 3.0, 0.5]),)
