"""Iterating a module-level tuple of constants: one call per element."""
import torch

SCALES = (0.5, 2.0)


def scale_all(x):
    out = torch.zeros_like(x)
    for scale in SCALES:
        out = out + x * scale
        print("scale", scale)
    return out


ENTRY = scale_all


def example_inputs():
    return (torch.randn(5),)
