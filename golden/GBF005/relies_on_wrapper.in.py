"""A file that reads `_orig_mod` relies on the wrapper: left alone."""
import torch
from torch import nn

GOLDEN_KIND = "placement"


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        return self.lin(x)


def run(x):
    model = Net()
    model = torch.compile(model, backend="eager")
    plain = model._orig_mod
    return model(x) + plain(x), model


ENTRY = run


def example_inputs():
    return (torch.randn(2, 3),)
