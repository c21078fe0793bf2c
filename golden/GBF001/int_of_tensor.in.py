"""`int()` of a tensor reads its value on every trip: a break (a Python number is left alone)."""
import torch


class Scaler(torch.nn.Module):
    def forward(self, x, steps=2):
        for i in range(3):
            x = x * int((x > 0).sum()) + int(steps)
        return x


ENTRY = Scaler


def example_inputs():
    return (torch.tensor([1.0, 2.0, 3.0, 0.5]),)
