"""The loop changes another name for the tensor it reads (`s = scale`): read once before the loop,
the value would miss every change, so nothing is hoisted."""
import torch


def f(x, scale):
    scale = scale.clone()
    s = scale
    for i in range(3):
        x = x * scale.item() + i
        s.add_(1)
    return x


ENTRY = f


def example_inputs():
    return (torch.ones(2), torch.tensor(1.0))
