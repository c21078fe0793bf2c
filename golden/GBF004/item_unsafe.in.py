# golden: --unsafe-fixes
"""`.item()` can raise, so splitting is unsafe; applied only with --unsafe-fixes."""
import torch


def fn(x):
    try:
        x = x + 1
        value = x.sum().item()
        x = x * value
    except RuntimeError:
        x = x - 1
    return x


ENTRY = fn


def example_inputs():
    return (torch.randn(3),)
