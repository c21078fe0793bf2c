"""`math.sqrt(x.abs().sum())`: a `math` function asks the tensor for `__float__`, reading its value."""
import math

import torch


class Model(torch.nn.Module):
    def forward(self, x):
        for i in range(3):
            x = x / math.sqrt(x.abs().sum())
        return x.relu()


ENTRY = Model


def example_inputs():
    return (torch.tensor([1.0, -2.0, 3.0, 0.5]),)
