"""No graph break in the loop: nothing to do."""
import torch


def f(x):
    for i in range(3):
        x = x + i
    return x


ENTRY = f


def example_inputs():
    return (torch.ones(2),)
