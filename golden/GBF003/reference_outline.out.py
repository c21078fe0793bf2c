"""The guide's example: a break inside a custom context manager of no effect, split by default."""
import torch


class CustomCtxManager:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def fn(x):
    x = x.sin()
    with CustomCtxManager():
        x = x + 1
    torch._dynamo.graph_break()
    with CustomCtxManager():
        x = x * 2
    return x.cos()


ENTRY = fn
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(3),)
