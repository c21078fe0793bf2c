"""`model` is a bare parameter, so its class is unknown: reported, not rewritten (see _unsafe)."""
import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

GOLDEN_KIND = "placement"


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        return self.lin(x) - x


def wrap(model):
    return DDP(torch.compile(model, backend="eager"))


def setup(x):
    ddp = wrap(Net())
    return ddp(x), ddp


ENTRY = setup


def example_inputs():
    return (torch.randn(2, 3),)
