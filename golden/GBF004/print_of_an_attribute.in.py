"""The break prints an attribute, and reading one may raise what the handler catches (`x.grad.shape`
when `x.grad` is None): the `try` is not split, as the print would leave the handler; it is outlined."""
import torch


def step(x):
    x = x.sin()
    try:
        y = x + 1
        print("shape", y.shape)
        y = y * 2
    except AttributeError:
        y = x - 1
    return y.cos()


ENTRY = step
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.ones(3),)
