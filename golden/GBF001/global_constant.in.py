# golden: --select GBF001,GBF002
"""A module name some function declares `global` may change: not a constant, nothing unrolled."""
import torch

NUM_STEPS = 3


def configure(n):
    global NUM_STEPS
    NUM_STEPS = n


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
