"""`if idx.numel() == 0: continue` after `torch.argwhere`: the size of a data-dependent result."""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        for i in range(3):
            idx = torch.argwhere(x > i)
            if idx.numel() == 0:
                continue
            x = x + idx.sum()
        return x.relu()


ENTRY = Model


def example_inputs():
    return (torch.tensor([1.0, -2.0, 3.0, 0.5]),)
