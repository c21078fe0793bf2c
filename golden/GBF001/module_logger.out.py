"""A transformer-like block whose forward logs inside a fixed loop; uses self."""
import logging

import torch

logger = logging.getLogger(__name__)


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(16)
        self.mlp = torch.nn.Linear(16, 16)

    def forward(self, x):
        def _gbfix_inner_1(i):
            nonlocal x
            h = self.norm(x)
            logger.debug("layer %d", i)
            x = x + self.mlp(h)

        _gbfix_inner_1(0)
        _gbfix_inner_1(1)
        _gbfix_inner_1(2)
        _gbfix_inner_1(3)
        return x


ENTRY = Block


def example_inputs():
    return (torch.randn(2, 16),)
