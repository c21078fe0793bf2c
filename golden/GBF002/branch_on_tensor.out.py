"""A block loop that checks its activations: `if not torch.isfinite(x).all()` branches on a tensor's values."""
import torch
from torch import nn


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])

    def forward(self, x, check=True):
        def _gbfix_blocks_loop_1():
            nonlocal x

            def _gbfix_block_step_2(block):
                nonlocal x
                x = torch.tanh(block(x)) * 0.5
                if check and not torch.isfinite(x).all():
                    raise ValueError("activations are not finite")

            for block in self.blocks:
                _gbfix_block_step_2(block)

        _gbfix_blocks_loop_1()
        return x.sum(-1)


ENTRY = Stack
# the loop helper that drives the per-trip calls is skipped
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(2, 4),)
