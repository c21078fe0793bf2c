# golden: --unsafe-fixes
"""`.item()` can raise, so splitting is unsafe; applied only with --unsafe-fixes."""
import torch


def fn(x):
    _gbfix_ok_1 = False
    try:
        x = x + 1
        _gbfix_ok_1 = True
    except RuntimeError:
        x = x - 1
    if _gbfix_ok_1:
        value = x.sum().item()
        try:
            x = x * value
        except RuntimeError:
            x = x - 1
    return x


ENTRY = fn


def example_inputs():
    return (torch.randn(3),)
