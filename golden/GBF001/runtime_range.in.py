"""A runtime trip count is not a constant-trip loop (GBF002's job)."""
import torch


def f(x, n=3):
    for i in range(n):
        x = x + 1
        print(i)
    return x


ENTRY = f


def example_inputs():
    return (torch.ones(2),)
