"""A `continue` after the last break ends that trip's call: it becomes a return of the per-trip function."""
import torch


def f(x, n=4):
    for i in range(n):
        print("trip", i)
        if i % 2:
            x = x * 0.5
            continue
        x = x + i
        x = x.relu() * 2
    return x


ENTRY = f
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.linspace(-1.0, 1.0, 5),)
