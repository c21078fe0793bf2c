"""A runtime-length loop inside a method, using self."""
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
                print("refine step", step)

            for step in range(self.steps):
                _gbfix_step_2(step)

        _gbfix_loop_1()
        return x.tanh()


ENTRY = Refiner
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(2, 4),)
