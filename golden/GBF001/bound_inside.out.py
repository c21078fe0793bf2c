"""A name first bound inside the loop and read after it is pre-bound."""
import torch


def f(x):
    h: object

    def _gbfix_inner_1(i):
        nonlocal h, x
        h = torch.relu(x + i)
        print("h", i)
        x = x + h

    _gbfix_inner_1(0)
    _gbfix_inner_1(1)
    _gbfix_inner_1(2)
    return x + h


ENTRY = f


def example_inputs():
    return (torch.randn(6),)
