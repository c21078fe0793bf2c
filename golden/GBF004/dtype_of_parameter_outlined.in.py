"""The logged `x.dtype` reads an attribute of a parameter without an annotation, which may be any
object: without a tensor there, the read raises the `AttributeError` the handler catches, so the
log call stays inside the `try` (outlined)."""
import logging

import torch

logger = logging.getLogger(__name__)


def step(x):
    h = torch.zeros(3)
    try:
        h = h + x * 2
        logger.warning("input dtype %s", x.dtype)
    except AttributeError:
        h = h - 1
    return h.cos()


ENTRY = step
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(3),)
