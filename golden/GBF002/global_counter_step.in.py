"""A loop that rebinds a module global and computes on a tensor: the per-trip function declares it global too."""
import torch

CALLS = 0


def f(x, n=2):
    global CALLS
    start = CALLS
    x = x + 1
    for i in range(n):
        CALLS += 1
        x = x * 2
        print("call", i)
    return x * (CALLS - start)


ENTRY = f
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.ones(2),)
