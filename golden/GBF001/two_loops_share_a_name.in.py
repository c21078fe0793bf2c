"""Two unrolled loops bind the same name, read after both.

Each loop's helper declares ``nonlocal scale`` relying on the other loop's
binding; once both are helpers, the parent must still bind ``scale``.
"""
import torch


def calibrate(x):
    for i in range(2):
        print("warm-up", i)
        scale = x.abs().mean() + i
    for j in range(2):
        print("measure", j)
        scale = x.abs().max() * j
    return x * scale


ENTRY = calibrate


def example_inputs():
    return (torch.randn(5),)
