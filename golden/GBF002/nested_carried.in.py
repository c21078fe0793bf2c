"""A name an inner loop binds and the outer body reads after it carries a value from trip to
trip (the inner loop runs no trip when `r` is odd): it lives in the outer loop helper. The
inner loop's own target, read only inside it, stays the per-trip function's."""
import torch


def f(x, rows=3):
    for r in range(rows):
        for c in range(1 - r % 2):
            print("cell", r, c)
            last = x * (r + 1)
        x = x + last
    return x


ENTRY = f
EXPECT_SKIPPED_AFTER = 2


def example_inputs():
    return (torch.linspace(-1.0, 1.0, 4),)
