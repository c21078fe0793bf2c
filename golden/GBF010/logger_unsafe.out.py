# golden: --unsafe-fixes
import logging

import torch

GOLDEN_KIND = "cause"
COMPILES_ITSELF = True
PRINTED = "none"
OPS_IN_GRAPH = 7

logger = logging.getLogger(__name__)


@torch._dynamo.config.patch(ignore_logger_methods={logging.Logger.warning})
@torch.compile(backend="eager")
def accumulate(x):
    total = torch.zeros_like(x)
    for i in range(3):
        total = total + x * i
        logger.warning("added trip %d", i)
    return total


ENTRY = accumulate


def example_inputs():
    return (torch.arange(4.0),)
