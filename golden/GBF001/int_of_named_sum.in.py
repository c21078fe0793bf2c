"""`int(total)` of a name bound once to a tensor (`total = x.sum()`) reads its value."""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        for i in range(3):
            total = x.sum()
            x = x * int(total)
        return x.relu()


ENTRY = Model


def example_inputs():
    return (torch.tensor([1.0, -2.0, 3.0, 0.5]),)
