"""The function lists its own names after the loop: outlined, the loop variable `i` would leave its
frame and the helper's name would join it, so `locals()` would see other names. Not rewritten; the
finding gives the reason."""
import torch


def f(x):
    for i in range(3):
        x = x + i
        print(i)
    names = sorted(locals())
    return x * len(names)


ENTRY = f


def example_inputs():
    return (torch.randn(4),)
