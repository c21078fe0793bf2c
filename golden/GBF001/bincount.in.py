"""`torch.bincount` counts each value: its length is the largest value plus one."""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        for i in range(3):
            ids = (x.abs() * (i + 1)).long()
            x = x + torch.bincount(ids).sum()
        return x.relu()


ENTRY = Model


def example_inputs():
    return (torch.tensor([1.0, -2.0, 3.0, 0.5]),)
