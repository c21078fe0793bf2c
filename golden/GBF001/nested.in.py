"""Nested constant loops: both are unrolled, inner first."""
import torch


def grid(x):
    for i in range(2):
        x = x + 1
        for j in (10, 20):
            x = x * 0.5 + j
            print("cell", i, j)
    return x


ENTRY = grid


def example_inputs():
    return (torch.randn(3),)
