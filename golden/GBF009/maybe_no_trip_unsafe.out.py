# golden: --unsafe-fixes
"""A loop that may run no trip: hoisting is unsafe (the read would run where it never ran)."""
import torch


def f(x, scale, n=3):
    _gbfix_scale_item_1 = scale.item()
    for i in range(n):
        x = x * _gbfix_scale_item_1 + i
    return x


ENTRY = f


def example_inputs():
    return (torch.randn(4), torch.tensor(0.5))
