"""`for ... else` and the loop variable read after the loop."""
import torch


def f(x):
    for i in [1, 2, 3]:
        x = x + i
        torch._dynamo.graph_break()
    else:
        x = x * 10
    return x + i


ENTRY = f


def example_inputs():
    return (torch.ones(2),)
