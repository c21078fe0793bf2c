"""The list `.tolist()` returns is changed by the comprehension's element: hoisting would share it, so safe fixes leave it."""
import torch


def f(x, lengths):
    sizes = [len(extend(lengths.tolist(), i)) for i in (1, 2)]
    return x * sum(sizes)


def extend(values, n):
    values.extend([0] * n)
    return values


ENTRY = f


def example_inputs():
    return (torch.randn(4), torch.tensor([1, 2]))
