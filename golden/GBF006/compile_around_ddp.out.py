"""`torch.compile(DDP(model))`: compile the inner module, then wrap it."""
import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

GOLDEN_KIND = "placement"


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 3)

    def forward(self, x):
        return torch.tanh(self.fc(x))


def setup(x, rank=None):
    model = Net().to("cpu")
    model.compile(backend="eager")
    model = DDP(model, device_ids=rank)  # wrap
    return model(x), model


ENTRY = setup


def example_inputs():
    return (torch.randn(2, 6),)
