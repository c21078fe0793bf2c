"""`teacher = model` before `model = torch.compile(model)`: compiled in place, the module would run
compiled under the name `teacher` too, where the wrapper left it eager. Not fixed by default."""
import torch
from torch import nn

GOLDEN_KIND = "placement"


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(x)


def train_step(x):
    model = Net()
    teacher = model
    model = torch.compile(model, backend="eager")
    return model(x), teacher(x)


ENTRY = train_step


def example_inputs():
    return (torch.randn(3, 8),)
