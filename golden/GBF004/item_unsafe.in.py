# golden: --unsafe-fixes
"""`.item()` can raise a RuntimeError, so splitting is unsafe; and the rest of the body, compiled
after a split, may raise one too (a tensor op), which Dynamo would raise past the handler: the
split is refused even with --unsafe-fixes. Every tensor op is in the `try`, so nothing is done."""
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
