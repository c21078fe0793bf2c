# golden: --unsafe-fixes
"""`int()` of a float sum may raise the ValueError of a NaN sum, which the handler catches, so the
split is unsafe and made only with --unsafe-fixes; the rest of the body runs tensor ops, which
cannot raise a ValueError, so compiling it is exact."""
import torch


def fn(x: torch.Tensor):
    h = x.sin()
    _gbfix_ok_1 = False
    try:
        h = h + 1
        _gbfix_ok_1 = True
    except ValueError:
        h = h - 1
    if _gbfix_ok_1:
        n = int(h.sum())
        try:
            h = h * n
        except ValueError:
            h = h - 1
    return h.cos()


ENTRY = fn


def example_inputs():
    return (torch.randn(3),)
