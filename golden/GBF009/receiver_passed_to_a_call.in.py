"""The tensor read is handed to a call in the loop, which could change it: nothing is hoisted."""
import torch


def bump(t):
    t.add_(1)


def f(x, t):
    t = t.clone()
    for i in range(3):
        bump(t)
        x = x * t.item()
    return x


ENTRY = f


def example_inputs():
    return (torch.randn(4), torch.tensor(0.5))
