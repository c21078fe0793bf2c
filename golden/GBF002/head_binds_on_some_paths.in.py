"""The statements after the last break read `scale`, which the head binds only on some paths:
the whole body stays in the per-trip function."""
import torch


def f(x, n=3):
    scale = None
    for i in range(n):
        if i > 0:
            scale = x.abs().max()
        print("trip", i)
        x = x + 1
        x = x * scale if scale is not None else x.tanh()
    return x


ENTRY = f
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.linspace(-1.0, 1.0, 5),)
