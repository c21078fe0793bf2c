"""A ``continue`` in the ``else`` of an inner loop belongs to the outer loop.

Left unchanged: a name first bound in the loop and used after it (or on a later trip)
could be shared only through a declaration without a value, which Dynamo cannot read.
Unrolling the outer loop turns it into ``return``; the inner loop's body keeps
its own ``continue``s.
"""
import torch


def refine(x):
    for i in range(2):
        print("pass", i)
        for j in range(3):
            if j == 1:
                continue
            x = x + j
        else:
            x = x * 0.5
            continue
    return x


ENTRY = refine


def example_inputs():
    return (torch.randn(4),)
