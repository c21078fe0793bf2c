"""A block loop that drops the rows a block zeroes: `h[h.sum(-1) > 0]` indexes with a boolean mask (nonzero)."""
import torch
from torch import nn


class RowFilter(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])

    def forward(self, x):
        h = x * 2.0
        for blk in self.blocks:
            h = torch.tanh(blk(h)) + 0.25
            h = h[h.sum(-1) > 0]
            h = h * 0.5
        return h.sum(0)


ENTRY = RowFilter
# the loop helper that drives the per-trip calls is skipped
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(8, 4),)
