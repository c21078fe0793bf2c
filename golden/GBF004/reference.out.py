"""The guide's example: a break inside try; graph_break() cannot raise, so the split is safe."""
import torch


def fn(x):
    x = x.sin()
    _gbfix_ok_1 = False
    try:
        x = x + 1
        _gbfix_ok_1 = True
    except ValueError:
        x = x - 1
    if _gbfix_ok_1:
        torch._dynamo.graph_break()
        try:
            x = x * 2
        except ValueError:
            x = x - 1
    return x.cos()


ENTRY = fn


def example_inputs():
    return (torch.randn(3),)
