# golden: --select GBF001,GBF010
import logging

import torch

logger = logging.getLogger(__name__)


def smooth(x):
    # the logger call has only an unsafe cause fix: in a safe run GBF001 unrolls the loop
    for i in range(3):
        x = (x + x.roll(1)) / 2
        print("pass", i)
        logger.debug("smoothed %d", i)
    return x


compiled_smooth = torch.compile(smooth, backend="eager")
ENTRY = smooth


def example_inputs():
    return (torch.arange(6.0),)
