"""A ModuleList loop whose block logs in forward: the model's forward is skipped."""
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
        def _gbfix_layers_loop_1():
            nonlocal x
            def _gbfix_layer_step_2(layer):
                nonlocal x
                x = layer(x)
            for layer in self.layers:
                _gbfix_layer_step_2(layer)
        _gbfix_layers_loop_1()
        return self.head(x)


ENTRY = Model
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(4, 8),)
