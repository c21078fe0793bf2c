"""A ModuleList loop whose block logs in forward: the model's forward is skipped, but it runs no
tensor op of its own (the blocks, the embedding and the head compile as frames of their own).
Nothing to capture: the loop is reported and left as it is."""
import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        logger.info("block input %s", tuple(x.shape))
        return torch.relu(self.fc(x))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(8, 8)
        self.layers = nn.ModuleList([Block() for _ in range(3)])
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        x = self.embed(x)
        for layer in self.layers:
            x = layer(x)
        return self.head(x)


ENTRY = Model


def example_inputs():
    return (torch.randn(4, 8),)
