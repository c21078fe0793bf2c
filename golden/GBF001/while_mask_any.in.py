"""A `while (y > c).any():` inside a loop: the `while` reads a tensor's truth on every trip of the loop around it."""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        for i in range(3):
            y = x.abs() + i
            while (y > 2).any():
                y = y * 0.5
            x = x + y
        return x.relu()


ENTRY = Model


def example_inputs():
    return (torch.tensor([1.0, -2.0, 3.0, 0.5]),)
