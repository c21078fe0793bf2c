"""`continue` in the unrolled body becomes `return` from the helper."""
import torch


def f(x):
    def _gbfix_inner_1(i):
        nonlocal x
        if i % 2:
            torch._dynamo.graph_break()
            return
        x = x + i

    _gbfix_inner_1(0)
    _gbfix_inner_1(1)
    _gbfix_inner_1(2)
    _gbfix_inner_1(3)
    return x * 2


ENTRY = f


def example_inputs():
    return (torch.ones(3),)
