"""try/finally: outlined (safe)."""
import torch

LOG = []


def fn(x):
    x = x.abs()

    def _gbfix_try_1():
        nonlocal x
        try:
            x = x + 1
            print("in try")
        finally:
            LOG.append("done")

    _gbfix_try_1()
    return x.sqrt()


ENTRY = fn
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(3),)
