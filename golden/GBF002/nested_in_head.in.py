"""The inner loop breaks and comes before the outer body's tensor work: it stays in the outer
loop helper, which also defines the inner loop's per-trip function; the outer per-trip
function holds the rest. One helper level for both loops."""
import torch


def f(x, rows=2, cols=3):
    for r in range(rows):
        for c in range(cols):
            print("cell", r, c)
            x = x + c
        x = x * 2
        x = x.tanh() + r
    return x


ENTRY = f
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.linspace(-1.0, 1.0, 4),)
