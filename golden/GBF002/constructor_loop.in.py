"""A loop that logs in a constructor: nothing of a tensor runs there, so nothing to capture."""
import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class Model(nn.Module):
    def __init__(self, sizes=(8, 8, 2)):
        super().__init__()
        self.layers = nn.ModuleList()
        for size_in, size_out in zip(sizes, sizes[1:]):
            logger.info("layer %d -> %d", size_in, size_out)
            self.layers.append(nn.Linear(size_in, size_out))

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x


ENTRY = Model


def example_inputs():
    return (torch.randn(4, 8),)
