"""FSDP2's `fully_shard` returns the module itself: compile it, then shard it."""
import torch
from torch import nn
from torch.distributed.fsdp import fully_shard

GOLDEN_KIND = "placement"


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        return self.lin(x) * 0.5


def setup(x):
    model = Net()
    model = torch.compile(fully_shard(model), backend="eager")
    return model(x), model


ENTRY = setup


def example_inputs():
    return (torch.randn(2, 3),)
