# golden: --reach compiled
"""Loops that log, but never under compile: a constructor nothing compiled calls, a method nothing calls."""
import logging

import torch

logger = logging.getLogger(__name__)


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8) for _ in range(3)])
        for i, layer in enumerate(self.layers):
            logger.info("layer %d: %s", i, layer)

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x

    def describe(self):
        for name, p in self.named_parameters():
            print(name, tuple(p.shape))


ENTRY = Block


def example_inputs():
    return (torch.randn(2, 8),)
