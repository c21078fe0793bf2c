"""The ``else`` body reads names the loop body bound, and the loop variable.

After unrolling, the ``else`` body runs in the parent after the calls, so a
name it reads from the loop body must live in the parent (``nonlocal``), and
the loop variable must hold its last value before the ``else`` body runs.
"""
import torch


def blend(x):
    last: object

    def _gbfix_inner_1(i):
        nonlocal last
        print("step", i)
        last = x * i

    i = 0
    _gbfix_inner_1(i)
    i = 1
    _gbfix_inner_1(i)
    x = x + last + i
    return x


ENTRY = blend


def example_inputs():
    return (torch.ones(3),)
