# golden: --select GBF002,GBF010
"""The smallest fix first: the layer loop's only break is a log call on a rare path (under an
`if` that holds only when caching while training). GBF010's one-line guard removes that break;
restructuring the loop for it would move the whole body into helpers. The loop is left alone,
and the finding says why (the guard itself is GBF010's, an unsafe fix)."""
import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(3, 3) for _ in range(2))

    def forward(self, x, use_cache: bool = False):
        for layer in self.layers:
            if use_cache and self.training:
                logger.warning("use_cache=True is incompatible with training; setting it to False")
                use_cache = False
            x = layer(x) + x * 0.5
        return x


ENTRY = Encoder


def example_inputs():
    return (torch.ones(2, 3),)
