"""`continue` ends one trip's call; a name carried from trip to trip lives in the loop helper."""
import torch


def f(x, n=4):
    total = x * 0
    last = None
    for i in range(n):
        if i % 2:
            print("skip", i)
            continue
        last = x * i
        total = total + last
    return total + last


ENTRY = f
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.ones(3),)
