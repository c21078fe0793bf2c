"""Nested loops where only the inner one breaks: each loop runs its body per trip."""
import torch


def f(x, rows=2, cols=3):
    x = x * 2
    for r in range(rows):
        x = x + r
        for c in range(cols):
            if c == 1:
                print("cell", r, c)
            x = x - c
    return x.sum()


ENTRY = f
# each loop's driver is a skipped frame of its own; the work of both bodies runs in graphs
EXPECT_SKIPPED_AFTER = 2


def example_inputs():
    return (torch.ones(3),)
