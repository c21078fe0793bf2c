"""Two unrolled loops bind the same name, read after both.

Each loop's helper declares ``nonlocal scale`` relying on the other loop's
binding; once both are helpers, the parent must still bind ``scale``.
"""
import torch


def calibrate(x):
    scale: object

    def _gbfix_inner_1(i):
        nonlocal scale
        print("warm-up", i)
        scale = x.abs().mean() + i

    _gbfix_inner_1(0)
    _gbfix_inner_1(1)

    def _gbfix_inner_2(j):
        nonlocal scale
        print("measure", j)
        scale = x.abs().max() * j

    _gbfix_inner_2(0)
    _gbfix_inner_2(1)
    return x * scale


ENTRY = calibrate


def example_inputs():
    return (torch.randn(5),)
