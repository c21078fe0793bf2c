"""A module-level list is not a constant: code holding it may change it, so the loop is not unrolled."""
import torch

SCALES = [1.0, 2.0]


def register(scale):
    SCALES.append(scale)


def apply_scales(x):
    for s in SCALES:
        x = x * s
        print("scale", s)
    return x


register(3.0)
ENTRY = apply_scales


def example_inputs():
    return (torch.ones(2),)
