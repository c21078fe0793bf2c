# golden: --select GBF001,GBF002
"""A module name bound twice is not a constant: the loop is not unrolled (GBF002 runs its body per trip)."""
import torch

NUM_STEPS = 2
NUM_STEPS = 3


def step(x):
    x = x.sin()
    for i in range(NUM_STEPS):
        x = x * 1.5 + i
        print("iteration", i)
    return x.cos()


ENTRY = step
# the loop helper that drives the per-trip calls is skipped
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(4, 8),)
