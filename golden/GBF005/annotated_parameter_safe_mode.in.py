"""Without --unsafe-fixes an unknown class is reported, not rewritten."""
import torch
from torch import nn

GOLDEN_KIND = "placement"


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        return self.lin(x).relu()


def prepare(model: nn.Module) -> nn.Module:
    model = torch.compile(model, backend="eager")
    return model


def run(x):
    model = prepare(Net())
    return model(x), model


ENTRY = run


def example_inputs():
    return (torch.randn(2, 3),)
