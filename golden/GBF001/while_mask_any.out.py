"""A `while (y > c).any():` inside a loop: the `while` reads a tensor's truth on every trip of the loop around it."""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        def _gbfix_inner_1(i):
            nonlocal x
            y = x.abs() + i
            while (y > 2).any():
                y = y * 0.5
            x = x + y

        _gbfix_inner_1(0)
        _gbfix_inner_1(1)
        _gbfix_inner_1(2)
        return x.relu()


ENTRY = Model


def example_inputs():
    return (torch.tensor([1.0, -2.0, 3.0, 0.5]),)
