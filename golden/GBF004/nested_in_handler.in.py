"""A try nested in the handler and in the else clause of a try that is split: the split
keeps them in the function, so they are split in the same run (a second run changes nothing)."""
import torch


def fn(x):
    x = x.sin()
    try:
        y = x + 1
        print("y ready")
        y = y * 2
    except ValueError:
        try:
            y = x - 1
            print("fallback")
        except RuntimeError:
            y = x
    else:
        try:
            y = y.exp()
            print("exp done")
            y = y + 1
        except RuntimeError:
            pass
    return y.cos()


ENTRY = fn


def example_inputs():
    return (torch.randn(3),)
