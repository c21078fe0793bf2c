# golden: --select GBF005,GBF006
"""The usual training script: compile the model in place, then wrap it in DDP."""
import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

GOLDEN_KIND = "placement"


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.GELU())
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        return self.head(self.body(x))


def main(x):
    model = Net().to("cpu")
    model.compile(backend="eager")
    ddp = DDP(model)
    return ddp(x), ddp


ENTRY = main


def example_inputs():
    return (torch.randn(3, 4),)
