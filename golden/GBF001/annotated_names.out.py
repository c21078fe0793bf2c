"""Annotated names in the loop body: a bare ``name: int`` assigns nothing.

``seen`` carries its value from one trip to the next even though each trip
starts with a bare annotation, so it must live in the parent; ``total`` is
annotated where it is assigned and read after the loop, so the helper's
``nonlocal total`` cannot keep the annotation.
"""
import torch


def running(x):
    seen: object
    total: object

    def _gbfix_inner_1(i):
        nonlocal seen, total
        if i == 2:
            print("previous", seen)
        seen = i
        total = x.sum() * i

    _gbfix_inner_1(0)
    _gbfix_inner_1(1)
    _gbfix_inner_1(2)
    return x * total


ENTRY = running


def example_inputs():
    return (torch.randn(4),)
