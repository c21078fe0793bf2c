"""The guide's example: a break inside a custom context manager (safe fix: outline)."""
import torch


class CustomCtxManager:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def fn(x):
    x = x.sin()

    def _gbfix_with_1():
        nonlocal x
        with CustomCtxManager():
            x = x + 1
            torch._dynamo.graph_break()
            x = x * 2

    _gbfix_with_1()
    return x.cos()


ENTRY = fn
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(3),)
