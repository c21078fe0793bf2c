# golden: --reach compiled
"""A helper method that forward calls logs in its loop: compiled code reaches it, so it is fixed;
the same loop in a method nothing calls is left alone."""
import logging

import torch

logger = logging.getLogger(__name__)


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = torch.nn.Linear(8, 8)

    def forward(self, x):
        return self.refine(self.mlp(x))

    def refine(self, x):
        def _gbfix_inner_1(i):
            nonlocal x
            x = x * 0.5 + torch.tanh(x)
            logger.debug("refine %d", i)

        _gbfix_inner_1(0)
        _gbfix_inner_1(1)
        _gbfix_inner_1(2)
        return x

    def refine_slowly(self, x):
        for i in range(3):
            x = x * 0.5 + torch.tanh(x)
            logger.debug("refine %d", i)
        return x


ENTRY = Block


def example_inputs():
    return (torch.randn(2, 8),)
