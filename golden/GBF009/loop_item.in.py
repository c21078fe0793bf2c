"""A scale read out of a tensor on every trip of a constant loop: read once before it."""
import torch


def f(x, scale):
    x = x.relu()
    for i in range(3):
        x = x * scale.item() + i
    return x.sum()


ENTRY = f


def example_inputs():
    return (torch.randn(4), torch.tensor(0.5))
