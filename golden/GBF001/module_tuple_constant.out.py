"""Iterating a module-level tuple of constants: one call per element."""
import torch

SCALES = (0.5, 2.0)


def scale_all(x):
    out = torch.zeros_like(x)

    def _gbfix_inner_1(scale):
        nonlocal out
        out = out + x * scale
        print("scale", scale)

    _gbfix_inner_1(0.5)
    _gbfix_inner_1(2.0)
    return out


ENTRY = scale_all


def example_inputs():
    return (torch.randn(5),)
