"""`continue` in the unrolled body becomes `return` from the helper."""
import torch


def f(x):
    for i in range(4):
        if i % 2:
            torch._dynamo.graph_break()
            continue
        x = x + i
    return x * 2


ENTRY = f


def example_inputs():
    return (torch.ones(3),)
