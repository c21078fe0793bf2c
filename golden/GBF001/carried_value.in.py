"""A value carried from one iteration to the next lives in the parent (declared, not bound)."""
import torch


def f(x):
    for i in range(3):
        if i > 0:
            x = x + prev
        prev = x * 0.5
        print(i)
    return x


ENTRY = f


def example_inputs():
    return (torch.ones(2),)
