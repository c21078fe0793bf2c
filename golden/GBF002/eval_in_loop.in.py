"""A constant-trip loop whose body calls eval(): the evaluated text names `scale`, a local of `f`
that no other code of the body names. A helper would not see it (NameError at run time), so the
loop is neither unrolled nor outlined; the finding gives the reason."""
import torch


def f(x, scale=2.0):
    for i in range(3):
        x = x + eval("scale * i")
        print(i)
    return x


ENTRY = f


def example_inputs():
    return (torch.randn(4),)
