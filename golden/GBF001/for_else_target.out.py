"""`for ... else` and the loop variable read after the loop."""
import torch


def f(x):
    def _gbfix_inner_1(i):
        nonlocal x
        x = x + i
        torch._dynamo.graph_break()

    i = 1
    _gbfix_inner_1(i)
    i = 2
    _gbfix_inner_1(i)
    i = 3
    _gbfix_inner_1(i)
    x = x * 10
    return x + i


ENTRY = f


def example_inputs():
    return (torch.ones(2),)
