"""The guide's example: a break inside try; graph_break() cannot raise, so the split is safe."""
import torch


def fn(x):
    x = x.sin()
    try:
        x = x + 1
        torch._dynamo.graph_break()
        x = x * 2
    except ValueError:
        x = x - 1
    return x.cos()


ENTRY = fn


def example_inputs():
    return (torch.randn(3),)
