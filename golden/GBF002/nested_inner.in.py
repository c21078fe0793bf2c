"""Nested loops where only the inner one breaks: one loop helper runs both loops (the outer
body eagerly) and defines the inner loop's per-trip function: one helper level."""
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
# the one loop helper is skipped; the inner body's work runs in graphs
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.ones(3),)
