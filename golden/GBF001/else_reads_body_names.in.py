"""The ``else`` body reads names the loop body bound, and the loop variable.

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
