"""try/finally: outlined (safe)."""
import torch

LOG = []


def fn(x):
    x = x.abs()
    try:
        x = x + 1
        print("in try")
    finally:
        LOG.append("done")
    return x.sqrt()


ENTRY = fn
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(3),)
