"""A with block that breaks in a function that only dispatches to modules: nothing to capture."""
import time

import torch
from torch import nn

STARTS = []


class Stopwatch:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Linear(4, 4)
        self.outer = nn.Linear(4, 2)

    def forward(self, x):
        with Stopwatch():
            STARTS.append(time.perf_counter())
            hidden = self.inner(x)
        return self.outer(hidden)


ENTRY = Model


def example_inputs():
    return (torch.randn(3, 4),)
