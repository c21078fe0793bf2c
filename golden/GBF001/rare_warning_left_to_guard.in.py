# golden: --select GBF001,GBF010
"""The smallest fix first, for a loop GBF001 could unroll: its only break is `warnings.warn` under
an `if` that holds only for a bad scale. GBF010's one-line fix removes that break (a guard,
with `--unsafe-fixes`); unrolling the loop for it would copy its body into a helper. The loop is
left alone and the finding says why."""
import warnings

import torch
from torch import nn


class Mix(nn.Module):
    def forward(self, x, scale: float = 1.0):
        for i in range(3):
            if scale <= 0:
                warnings.warn("scale should be positive")
            x = x * scale + i
        return x


ENTRY = Mix


def example_inputs():
    return (torch.ones(2, 3),)
