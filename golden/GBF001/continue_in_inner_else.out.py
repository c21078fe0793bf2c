"""A ``continue`` in the ``else`` of an inner loop belongs to the outer loop.

Unrolling the outer loop turns it into ``return``; the inner loop's body keeps
its own ``continue``s.
"""
import torch


def refine(x):
    j: object

    def _gbfix_inner_1(i):
        nonlocal j, x
        print("pass", i)
        for j in range(3):
            if j == 1:
                continue
            x = x + j
        else:
            x = x * 0.5
            return

    _gbfix_inner_1(0)
    _gbfix_inner_1(1)
    return x


ENTRY = refine


def example_inputs():
    return (torch.randn(4),)
