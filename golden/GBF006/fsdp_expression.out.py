"""FSDP around an expression: bind the module to the target name first."""
import torch
from torch import nn
from torch.distributed.fsdp import FullyShardedDataParallel

GOLDEN_KIND = "placement"


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return x + self.lin(x)


def setup(x):
    model = Block().eval()
    model.compile(backend="eager")
    model = FullyShardedDataParallel(model)
    return model(x), model


ENTRY = setup


def example_inputs():
    return (torch.randn(3, 4),)
