"""`any(k > i for k in range(2))` reads Python ints: nothing breaks, nothing changes."""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        for i in range(3):
            if any(k > i for k in range(2)):
                x = x * 2
            x = x + 1
        return x.relu()


ENTRY = Model


def example_inputs():
    return (torch.tensor([1.0, -2.0, 3.0, 0.5]),)
