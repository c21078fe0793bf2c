"""The break is in a same-module helper called from the loop."""
import torch


def report(t):
    print("norm", t.norm().item())


def f(x):
    def _gbfix_inner_1(i):
        nonlocal x
        x = x * 2
        report(x)

    _gbfix_inner_1(0)
    _gbfix_inner_1(1)
    _gbfix_inner_1(2)
    return x


ENTRY = f


def example_inputs():
    return (torch.ones(4),)
