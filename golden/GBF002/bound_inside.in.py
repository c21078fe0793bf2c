"""`best` is first bound inside the loop and read after it.

Left unchanged: a name first bound in the loop and used after it (or on a later trip)
could be shared only through a declaration without a value, which Dynamo cannot read.
"""
import torch


def f(x, n=3):
    x = x.relu()
    for i in range(n):
        best = x.max()
        print("round", i, best.item())
        x = x - best * 0.1
    return x + best


ENTRY = f
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.arange(5.0),)
