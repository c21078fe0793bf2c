"""Nothing here shows that `build()`'s result is a module: reported, not rewritten."""
import torch
from torch import nn

GOLDEN_KIND = "placement"


def build():
    return nn.Linear(3, 3)


def run(x):
    model = build()
    model = torch.compile(model, backend="eager")
    return model(x), model


ENTRY = run


def example_inputs():
    return (torch.randn(2, 3),)
