"""`F.one_hot(t, num_classes=-1)`: the default, written out, leaves the class count to the data."""
import torch
import torch.nn.functional as F


class Model(torch.nn.Module):
    def forward(self, x):
        for i in range(3):
            x = x + F.one_hot(x.abs().long(), num_classes=-1).sum()
        return x.relu()


ENTRY = Model


def example_inputs():
    return (torch.tensor([1.0, 2.0, 3.0, 0.5]),)
