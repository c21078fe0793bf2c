"""A name first bound in an inner constant loop and read after the outer one.

Left unchanged: a name first bound in the loop and used after it (or on a later trip)
could be shared only through a declaration without a value, which Dynamo cannot read.
Unrolling the inner loop declares the name (``last: object``) in the outer
loop's body; unrolling the outer loop must not keep that annotation next to
its own ``nonlocal last`` (a SyntaxError).
"""
import torch


def accumulate(x):
    for i in range(2):
        x = x + i
        for j in range(2):
            print("step", i, j)
            last = x * j
    return x + last


ENTRY = accumulate


def example_inputs():
    return (torch.randn(4),)
