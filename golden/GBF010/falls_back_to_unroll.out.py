# golden: --select GBF001,GBF010
import logging

import torch

logger = logging.getLogger(__name__)


def smooth(x):
    # the logger call has only an unsafe cause fix: in a safe run GBF001 unrolls the loop
    def _gbfix_inner_1(i):
        nonlocal x
        x = (x + x.roll(1)) / 2
        print("pass", i)
        logger.debug("smoothed %d", i)

    _gbfix_inner_1(0)
    _gbfix_inner_1(1)
    _gbfix_inner_1(2)
    return x


compiled_smooth = torch.compile(smooth, backend="eager")
ENTRY = smooth


def example_inputs():
    return (torch.arange(6.0),)
