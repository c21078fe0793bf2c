"""A decoder's step loop in a method exported with `@torch.jit.export`: an entry its users call
(and compile) beside `forward`, so its loop is found as a loop of `forward` would be."""
import torch
from torch import nn


class Decoder(nn.Module):
    def __init__(self, steps=3, gate=0.5):
        super().__init__()
        self.steps = steps
        self.gate = gate

    def forward(self, x):
        return x.tanh()

    @torch.jit.export
    def infer(self, x):
        finished = torch.zeros(x.shape[0], dtype=torch.bool)
        total = torch.zeros_like(x)

        def _gbfix_loop_1():
            nonlocal finished, total, x

            def _gbfix_step_2(_):
                nonlocal finished, total, x
                x = torch.tanh(x * 1.5) + 0.1
                total = total + x
                finished |= x.mean(-1) > self.gate
                if torch.all(finished):
                    x = x * 0.5

            for _ in range(self.steps):
                _gbfix_step_2(_)

        _gbfix_loop_1()
        return total


DECODER = Decoder()


def decode(x):
    return DECODER.infer(x)


ENTRY = decode
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(2, 4),)
