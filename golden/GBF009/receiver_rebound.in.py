"""The tensor read is rebound on every trip: its value differs, nothing is hoisted."""
import torch


def f(x, t):
    for i in range(3):
        t = t + 1
        x = x * t.item()
    return x


ENTRY = f


def example_inputs():
    return (torch.randn(4), torch.tensor(0.5))
