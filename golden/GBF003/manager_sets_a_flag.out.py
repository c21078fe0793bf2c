"""A manager whose entry sets a module-level flag that its exit clears: the print moved out of the
block would run with the flag off, so the block is outlined (its helper is skipped)."""
import torch

STATE = {"quiet": False}


class Quiet:
    def __enter__(self):
        STATE["quiet"] = True
        return self

    def __exit__(self, *exc):
        STATE["quiet"] = False
        return False


def step(x):
    x = x.sin()

    def _gbfix_with_1():
        nonlocal x
        with Quiet():
            x = x + 1
            print("quiet" if STATE["quiet"] else "loud")
            x = x * 2

    _gbfix_with_1()
    return x.cos()


ENTRY = step
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(3),)
