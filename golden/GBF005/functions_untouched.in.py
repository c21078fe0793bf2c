"""torch.compile on functions, as a decorator or a call, is never touched."""
import torch
from torch import nn

GOLDEN_KIND = "placement"


@torch.compile(backend="eager")
def scaled(x):
    return x * 3


def shift(x):
    return x - 1


fast_shift = torch.compile(shift, backend="eager")


def run(x):
    layer = nn.Linear(2, 2)
    return fast_shift(scaled(x)), layer


ENTRY = run


def example_inputs():
    return (torch.randn(2, 2),)
