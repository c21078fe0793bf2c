"""A name first bound in an inner constant loop and read after the outer one.

Unrolling the inner loop declares the name (``last: object``) in the outer
loop's body; unrolling the outer loop must not keep that annotation next to
its own ``nonlocal last`` (a SyntaxError).
"""
import torch


def accumulate(x):
    last: object

    def _gbfix_inner_1(i):
        nonlocal last, x
        x = x + i

        def _gbfix_inner_2(j):
            nonlocal last
            print("step", i, j)
            last = x * j

        _gbfix_inner_2(0)
        _gbfix_inner_2(1)

    _gbfix_inner_1(0)
    _gbfix_inner_1(1)
    return x + last


ENTRY = accumulate


def example_inputs():
    return (torch.randn(4),)
