"""`no_grad` imported under another name is still recognised as resumable."""
import torch
from torch import no_grad as ng


def fn(x):
    with ng():
        x = x * 3
        print("inside no_grad")
    return x - 1


ENTRY = fn


def example_inputs():
    return (torch.randn(3),)
