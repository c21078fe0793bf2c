"""A bare `except:` catches everything: outlined (safe)."""
import torch


def fn(x):
    x = x + 1

    def _gbfix_try_1():
        nonlocal x
        try:
            x = x * 2
            torch._dynamo.graph_break()
            x = x - 1
        except:  # noqa: E722
            x = x * 0

    _gbfix_try_1()
    return x.sin()


ENTRY = fn
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(3),)
