"""`with Timer() as t:` whose __enter__ reads the clock, and `t` used after the break."""
import time

import torch


class Timer:
    def __enter__(self):
        self.start = time.perf_counter()
        self.elapsed = 0.0
        return self

    def __exit__(self, *exc):
        self.elapsed = time.perf_counter() - self.start
        return False


def fn(x):
    x = x.relu()
    t: object

    def _gbfix_with_1():
        nonlocal t, x
        with Timer() as t:
            x = x @ x.T
            print("matmul done")
            x = x + t.start * 0

    _gbfix_with_1()
    return x.sum() + 0 * t.elapsed


ENTRY = fn
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(4, 4),)
