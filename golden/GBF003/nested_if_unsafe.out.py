# golden: --unsafe-fixes
"""Break inside an `if` in the block: no split possible, outlined even with --unsafe-fixes."""
import torch


class Scope:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def fn(x, verbose=True):
    x = x.exp()

    def _gbfix_with_1():
        nonlocal x
        with Scope():
            x = x + 1
            if verbose:
                print("x grew")

    _gbfix_with_1()
    return x.log()


ENTRY = fn
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(3),)
