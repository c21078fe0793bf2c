"""A value carried from one iteration to the next.

Left unchanged: a name first bound in the loop and used after it (or on a later trip)
could be shared only through a declaration without a value, which Dynamo cannot read.
"""
import torch


def f(x):
    for i in range(3):
        if i > 0:
            x = x + prev
        prev = x * 0.5
        print(i)
    return x


ENTRY = f


def example_inputs():
    return (torch.ones(2),)
