"""The guide's recipe for a break that starts a `try` body: `int()` of the sum of a bool tensor
is an int of a 0-dim integral tensor, which cannot raise the `ValueError` the handler catches
(no NaN, no several elements), so the read is hoisted before the `try`."""
import torch


def count_positive(x: torch.Tensor):
    mask = x > 0
    n = int(mask.sum())
    try:
        y = x * n
    except ValueError:
        y = x
    return y.relu() + 1


ENTRY = count_positive


def example_inputs():
    return (torch.randn(8),)
