"""A `while` loop whose body both breaks and returns."""
import torch


def f(x, n=5):
    i = 0
    while i < n:
        x = x + i
        if x.sum() > 1000:
            return x * 0
        print("trip", i)
        if i == 3:
            break
        i += 1
    return x.cos()


ENTRY = f
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.ones(3),)
