"""`model = torch.compile(Net().eval())`: build and bind first, then compile."""
import torch
from torch import nn

GOLDEN_KIND = "placement"


class Base(nn.Module):
    def forward(self, x):
        return self.body(x) + x


class Net(Base):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(5, 5), nn.Tanh())


def main(x):
    model = Net().eval()
    model.compile(
        backend="eager",
        fullgraph=True,
    )
    with torch.no_grad():
        out = model(x)
    return out, model


ENTRY = main


def example_inputs():
    return (torch.randn(4, 5),)
