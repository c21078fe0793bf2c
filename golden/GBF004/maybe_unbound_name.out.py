"""The print reads a name bound only inside a loop: if the loop runs no trip, reading it
raises UnboundLocalError, which the handler catches. Splitting would take the print out of
the handler, so the try is outlined (safe)."""
import torch


def fn(x):
    x = x.sin()

    def _gbfix_try_1():
        nonlocal x
        try:
            for row in x:
                last = row
            print("last row", last)
            x = x * 2
        except Exception:
            x = x * 0

    _gbfix_try_1()
    return x.cos()


ENTRY = fn
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(3, 2),)
