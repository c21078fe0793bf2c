"""A built-in torch.nn module inside DDP: `.compile()` would compile nothing, left alone."""
import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

GOLDEN_KIND = "placement"


def setup(x):
    mlp = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    model = torch.compile(DDP(mlp), backend="eager")
    return model(x), model


ENTRY = setup


def example_inputs():
    return (torch.randn(2, 2),)
