"""The ``else`` body reads names the loop body bound, and the loop variable.

Left unchanged: a name first bound in the loop and used after it (or on a later trip)
could be shared only through a declaration without a value, which Dynamo cannot read.
After unrolling, the ``else`` body runs in the parent after the calls, so a
name it reads from the loop body must live in the parent (``nonlocal``), and
the loop variable must hold its last value before the ``else`` body runs.
"""
import torch


def blend(x):
    for i in range(2):
        print("step", i)
        last = x * i
    else:
        x = x + last + i
    return x


ENTRY = blend


def example_inputs():
    return (torch.ones(3),)
