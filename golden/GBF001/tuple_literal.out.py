"""Loop over a tuple of constants."""
import torch


def scale_all(x):
    out = torch.zeros_like(x)

    def _gbfix_inner_1(scale):
        nonlocal out
        out = out + x * scale
        print("scale", scale)

    _gbfix_inner_1(0.5)
    _gbfix_inner_1(1.0)
    _gbfix_inner_1(2.0)
    return out


ENTRY = scale_all


def example_inputs():
    return (torch.randn(5),)
