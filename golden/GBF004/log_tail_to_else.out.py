"""The guide's recipe for a break that ends a `try` body: a logger call whose arguments are a
tensor's dtype and shape cannot raise what `except ValueError` catches, so it moves to `else:`,
which runs it exactly when the body completed, outside the handler."""
import logging

import torch

logger = logging.getLogger(__name__)


def step(x: torch.Tensor):
    h = x.sin()
    try:
        h = h * 2 + 1
    except ValueError:
        h = h - 1
    else:
        logger.info("h is %s of %s", h.dtype, h.shape)
    return h.cos()


ENTRY = step


def example_inputs():
    return (torch.randn(4, 3),)
