"""The guide's example with a manager that records its entries and exits: split, it would record
two of each, so the safe fix outlines the block."""
import torch

EVENTS = []


class CustomCtxManager:
    def __enter__(self):
        EVENTS.append("enter")
        return self

    def __exit__(self, *exc):
        EVENTS.append("exit")
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
