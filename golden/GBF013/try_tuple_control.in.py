"""The same skipped `fn`, but the comprehensions iterate a tuple and a `range`: their own frames
compile, no finding."""
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
    scaled = {k: scale(x, v) for k, v in tuple(SCALES.items())}
    doubled = [scale(x, i) for i in range(2)]
    return scaled, doubled


ENTRY = fn


def example_inputs():
    return (torch.randn(3),)
