"""A loop over a class constant read through the class's name (`Mixer.NUM_STEPS`): the class binds
it once, on one line, and no code of the module stores to an attribute of that name, so the trip
count is known and the loop is unrolled. Read through `self` it would not count (a subclass in
another module may override it): that loop is left to GBF002."""
import torch
from torch import nn


class Mixer(nn.Module):
    NUM_STEPS = 3

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        for step in range(Mixer.NUM_STEPS):
            x = torch.tanh(self.fc(x)) + step
            print("step", step)
        return x


ENTRY = Mixer


def example_inputs():
    return (torch.randn(2, 4),)
