# golden: --unsafe-fixes --select GBF003,GBF004
"""A `with` inside a `try` is outlined first (GBF003); the helper call then holds
the break. Splitting the `try` would take the whole block out of the handlers,
so GBF004 outlines the `try` even with --unsafe-fixes (found by the fuzzer)."""
import torch


class Rec:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def fn(x, n=1):
    x = x.sin()
    for i in range(n):
        x = x + 1

    def _gbfix_try_1():
        nonlocal x
        try:
            x = x + 1
            with Rec() as r:
                x = x + i + 0 * (r is None)
                print("inside")
        except NameError:
            x = x * 10

    _gbfix_try_1()
    return x.cos()


ENTRY = fn
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.ones(2),)
