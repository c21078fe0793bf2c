"""Annotated names in the loop body: a bare ``name: int`` assigns nothing.

Left unchanged: a name first bound in the loop and used after it (or on a later trip)
could be shared only through a declaration without a value, which Dynamo cannot read.
``seen`` carries its value from one trip to the next even though each trip
starts with a bare annotation, so it must live in the parent; ``total`` is
annotated where it is assigned and read after the loop, so the helper's
``nonlocal total`` cannot keep the annotation.
"""
import torch


def running(x):
    for i in range(3):
        seen: int
        if i == 2:
            print("previous", seen)
        seen = i
        total: float = x.sum() * i
    return x * total


ENTRY = running


def example_inputs():
    return (torch.randn(4),)
