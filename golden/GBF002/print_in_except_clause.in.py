"""A loop whose only output call is in an `except` clause: Dynamo traces the clause only after an
exception, so the normal path keeps the whole frame in one graph and there is nothing to fix."""
import torch
from torch import nn


class Lookup(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.scales = {0: 0.5, 1: 2.0, 2: 1.5}

    def forward(self, x):
        for step in range(3):
            try:
                x = self.fc(x) * self.scales[step]
            except KeyError:
                print("no scale for step", step)
        return x


ENTRY = Lookup
EXPECT_SKIPPED_AFTER = 0


def example_inputs():
    return (torch.randn(2, 4),)
