"""A name first bound inside the loop and read after it.

Left unchanged: a name first bound in the loop and used after it (or on a later trip)
could be shared only through a declaration without a value, which Dynamo cannot read.
"""
import torch


def f(x):
    for i in range(3):
        h = torch.relu(x + i)
        print("h", i)
        x = x + h
    return x + h


ENTRY = f


def example_inputs():
    return (torch.randn(6),)
