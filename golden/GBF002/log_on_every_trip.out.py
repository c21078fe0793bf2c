# golden: --select GBF002,GBF010
"""The neighbour of `rare_log_in_layer_loop`: the log call runs on every trip (no `if` around
it), so it is no rare path; with GBF010 unable to fix it safely here, the loop is rewritten."""
import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(3, 3) for _ in range(2))

    def forward(self, x):
        def _gbfix_layers_loop_1():
            nonlocal x

            def _gbfix_layer_step_2(layer):
                nonlocal x
                x = layer(x) + x * 0.5

            for layer in self.layers:
                logger.debug("layer %s", type(layer).__name__)
                _gbfix_layer_step_2(layer)

        _gbfix_layers_loop_1()
        return x


#: the per-trip function, which breaks at the log call, is what stays skipped
EXPECT_SKIPPED_AFTER = 1
ENTRY = Encoder


def example_inputs():
    return (torch.ones(2, 3),)
