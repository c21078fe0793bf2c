"""A debug print inside a constant-trip loop skips the whole function."""
import torch


def step(x):
    x = x.sin()
    for i in range(3):
        x = x * 1.5 + i
        print("iteration", i, x.shape)
    return x.cos()


ENTRY = step


def example_inputs():
    return (torch.randn(4, 8),)
