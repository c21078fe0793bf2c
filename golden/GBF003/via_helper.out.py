"""The break is in a helper called inside the with block."""
import torch


class Scope:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def log_stats(t):
    print("mean", t.mean().item())


def fn(x):
    x = x * 2
    with Scope():
        x = x + 1
    log_stats(x)
    return x.tanh()


ENTRY = fn
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(3),)
