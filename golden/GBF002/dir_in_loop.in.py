"""A constant-trip loop whose body calls dir() with no argument: it lists the names of the frame
it runs in, so in a helper it would miss `bias`, a local of `f` that no other code of the body
names (3 names instead of 4). The loop is neither unrolled nor outlined; the finding gives the
reason."""
import torch


def f(x, scale=2.0):
    bias = 1.0
    for i in range(3):
        x = x + len(dir()) * scale
        print(i)
    return x + bias


ENTRY = f


def example_inputs():
    return (torch.randn(4),)
