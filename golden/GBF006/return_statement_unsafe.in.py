# golden: --unsafe-fixes
"""With --unsafe-fixes: the compile goes on its own line before the `return`."""
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
