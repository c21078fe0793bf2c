"""A name first bound inside the loop and read after it is pre-bound."""
import torch


def f(x):
    for i in range(3):
        h = torch.relu(x + i)
        print("h", i)
        x = x + h
    return x + h


ENTRY = f


def example_inputs():
    return (torch.randn(6),)
