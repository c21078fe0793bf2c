"""A `break` statement: unrolling cannot express it, GBF001 leaves the loop."""
import torch


def f(x):
    for i in range(5):
        x = x + 1
        if i == 2:
            print("stop")
            break
    return x


ENTRY = f


def example_inputs():
    return (torch.ones(2),)
