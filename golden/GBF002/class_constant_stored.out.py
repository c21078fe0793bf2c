"""A class constant the module stores to elsewhere (`Mixer.NUM_STEPS = 5` after a config is read)
is not a constant: GBF001 does not unroll the loop over it, and GBF002 runs its body once per trip."""
import torch
from torch import nn


class Mixer(nn.Module):
    NUM_STEPS = 3

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        def _gbfix_loop_1():
            nonlocal x

            def _gbfix_step_2(step):
                nonlocal x
                x = torch.tanh(self.fc(x)) + step
                print("step", step)

            for step in range(Mixer.NUM_STEPS):
                _gbfix_step_2(step)

        _gbfix_loop_1()
        return x


def configure(steps):
    Mixer.NUM_STEPS = steps


ENTRY = Mixer
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(2, 4),)
