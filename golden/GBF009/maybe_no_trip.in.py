"""Safe fixes only: a loop that may run no trip keeps its read (GBF002 runs its body per trip instead)."""
import torch


def f(x, scale, n=3):
    for i in range(n):
        x = x * scale.item() + i
    return x


ENTRY = f


def example_inputs():
    return (torch.randn(4), torch.tensor(0.5))
