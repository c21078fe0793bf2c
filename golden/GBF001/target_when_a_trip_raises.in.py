# golden: --select GBF001,GBF004
"""A trip that raises: the loop variable keeps that trip's value, as the loop leaves it."""
import torch


def f(x):
    try:
        for i in range(3):
            x = x + i
            torch._dynamo.graph_break()
            if i == 1:
                raise ValueError("stop")
    except ValueError:
        x = x * 2
    return x + i


ENTRY = f
# GBF004 outlines the `try`: its helper is what is still skipped.
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.ones(2),)
