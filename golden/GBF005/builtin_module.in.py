"""Built-in torch.nn modules keep torch.compile: `.compile()` would compile nothing."""
import torch
from torch import nn

GOLDEN_KIND = "placement"


def run(x):
    mlp = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 4))
    mlp = torch.compile(mlp, backend="eager")
    return mlp(x), mlp


ENTRY = run


def example_inputs():
    return (torch.randn(2, 4),)
