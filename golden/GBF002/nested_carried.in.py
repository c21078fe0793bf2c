"""A name an inner loop binds and the outer body reads after it carries a value from trip to
trip (the inner loop runs no trip when `r` is odd), and nothing binds it before: sharing it
with a per-trip function would take a declaration without a value, so the loop helper runs
both loops itself."""
import torch


def f(x, rows=3):
    for r in range(rows):
        for c in range(1 - r % 2):
            print("cell", r, c)
            last = x * (r + 1)
        x = x + last
    return x


ENTRY = f
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.linspace(-1.0, 1.0, 4),)
