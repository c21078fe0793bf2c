"""The break is inside a helper called in the try: the call may raise, so outline."""
import torch


def check(t):
    if t.isnan().any().item():
        raise ValueError("nan")
    print("ok")


def fn(x):
    x = x.exp()

    def _gbfix_try_1():
        nonlocal x
        try:
            x = x + 1
            check(x)
            x = x * 2
        except ValueError:
            x = torch.zeros_like(x)

    _gbfix_try_1()
    return x.log1p()


ENTRY = fn
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(3),)
