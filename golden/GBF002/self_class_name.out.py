"""A loop that names its class through `self.__class__`: an attribute, not the method's `__class__` cell."""
import torch
from torch import nn


class Refiner(nn.Module):
    def __init__(self, steps=3):
        super().__init__()
        self.steps = steps
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        x = self.fc(x)

        def _gbfix_loop_1():
            nonlocal x

            def _gbfix_step_2(step):
                nonlocal x
                x = x + 0.1 * self.fc(x)
                print(self.__class__.__name__, "step", step)

            for step in range(self.steps):
                _gbfix_step_2(step)

        _gbfix_loop_1()
        return x.tanh()


ENTRY = Refiner
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(2, 4),)
