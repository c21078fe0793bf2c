"""`int()` of the sum of a float tensor may raise `ValueError` (a NaN sum) or `OverflowError`
(an infinite one): `except ValueError` catches the first, so the read stays in the handler's
reach and the `try` is outlined, not split."""
import torch


def scale(x: torch.Tensor):
    x = x.sin()
    y = x

    def _gbfix_try_1():
        nonlocal y
        try:
            n = int(x.sum())
            y = x * n
        except ValueError:
            y = y - 1

    _gbfix_try_1()
    return y.cos()


ENTRY = scale
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(8),)
