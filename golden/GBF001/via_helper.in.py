"""The break is in a same-module helper called from the loop."""
import torch


def report(t):
    print("norm", t.norm().item())


def f(x):
    for i in range(3):
        x = x * 2
        report(x)
    return x


ENTRY = f


def example_inputs():
    return (torch.ones(4),)
