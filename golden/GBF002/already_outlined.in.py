"""Already outlined by gbfix: a second run changes nothing."""
import torch


def f(x, n=2):
    x = x.sin()
    def _gbfix_loop_1():
        nonlocal x
        for i in range(n):
            x = x + i
            print(i)
    _gbfix_loop_1()
    return x.cos()


ENTRY = f


def example_inputs():
    return (torch.ones(2),)
