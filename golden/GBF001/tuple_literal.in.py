"""Loop over a tuple of constants."""
import torch


def scale_all(x):
    out = torch.zeros_like(x)
    for scale in (0.5, 1.0, 2.0):
        out = out + x * scale
        print("scale", scale)
    return out


ENTRY = scale_all


def example_inputs():
    return (torch.randn(5),)
