"""A closure defined before the loop reads the loop variable while the loop runs.

Unrolling would pass the value as the helper's parameter and leave the
parent's variable stale, so the closure would see the wrong value: refused."""
import torch


def f(x):
    i = 0

    def scaled(t):
        return t * (i + 1)

    for i in range(3):
        x = scaled(x)
        print(i)
    return x


ENTRY = f


def example_inputs():
    return (torch.ones(2),)
