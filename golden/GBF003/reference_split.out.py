# golden: --unsafe-fixes
"""The guide's example, split around the break (unsafe: enters the manager twice)."""
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


def example_inputs():
    return (torch.randn(3),)
