"""`return a, b` in a `while … else` of an outlined loop returns one tuple, not its parts."""
import torch


def settle(x, n=3):
    i = 0
    while i < n:
        x = x * 2
        print("step", i)
        i += 1
    else:
        return x.sum(), x
    return x, x


ENTRY = settle
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.arange(4.0),)
