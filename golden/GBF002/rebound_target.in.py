"""The body rebinds the loop variable, read after the loop.

Left unchanged: a name first bound in the loop and used after it (or on a later trip)
could be shared only through a declaration without a value, which Dynamo cannot read.
"""
import torch


def f(x, n=3):
    for i in range(n):
        i = i * 10
        x = x + i
        print("trip", i)
    return x * i


ENTRY = f
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.ones(2),)
