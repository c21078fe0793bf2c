"""A value carried from one iteration to the next lives in the parent (declared, not bound)."""
import torch


def f(x):
    prev: object

    def _gbfix_inner_1(i):
        nonlocal prev, x
        if i > 0:
            x = x + prev
        prev = x * 0.5
        print(i)

    _gbfix_inner_1(0)
    _gbfix_inner_1(1)
    _gbfix_inner_1(2)
    return x


ENTRY = f


def example_inputs():
    return (torch.ones(2),)
