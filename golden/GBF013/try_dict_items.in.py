"""A break in a `try` skips `fn`, which runs no tensor op of its own (its helpers do): its dict
comprehension over `.items()` is then a frame Dynamo skips too."""
import torch

SCALES = {"a": 1.0, "b": 2.0}


def shift(x):
    return x + 1


def scale(x, v):
    return x * v


def fn(x):
    try:
        x = shift(x)
        torch._dynamo.graph_break()
    except ValueError:
        x = shift(x)
    return {k: scale(x, v) for k, v in SCALES.items()}


ENTRY = fn


def example_inputs():
    return (torch.randn(3),)
