"""The body rebinds the loop variable, read after the loop: it stays the loop helper's, shared."""
import torch


def f(x, n=3):
    for i in range(n):
        i = i * 10
        x = x + i
        print("trip", i)
    return x * i


ENTRY = f
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.ones(2),)
