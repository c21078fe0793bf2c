"""`model = torch.compile(model)` on a module of this file: compile it in place."""
import torch
from torch import nn

GOLDEN_KIND = "placement"


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def train_step(x):
    model = Net().to("cpu")
    model = torch.compile(model, backend="eager", dynamic=False)  # compile once
    return model(x), model


ENTRY = train_step


def example_inputs():
    return (torch.randn(3, 8),)
