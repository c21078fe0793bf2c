"""`fn` compiles (its break is in straight-line code): the comprehension is traced inline, no finding."""
import torch

SCALES = {"a": 1.0, "b": 2.0}


def shift(x):
    return x + 1


def scale(x, v):
    return x * v


def fn(x):
    x = shift(x)
    torch._dynamo.graph_break()
    return {k: scale(x, v) for k, v in SCALES.items()}


ENTRY = fn


def example_inputs():
    return (torch.randn(3),)
