"""A loop that reads the method's own `__class__` cell: left alone, it belongs to the frame."""
import torch
from torch import nn


class Refiner(nn.Module):
    def __init__(self, steps=3):
        super().__init__()
        self.steps = steps
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        x = self.fc(x)
        for step in range(self.steps):
            x = x + 0.1 * self.fc(x)
            print(__class__.__name__, "step", step)
        return x.tanh()


ENTRY = Refiner


def example_inputs():
    return (torch.randn(2, 4),)
