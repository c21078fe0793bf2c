# golden: --select GBF001,GBF012
"""A `not` used as a value inside a loop: rewritten too, so that the helper GBF001 unrolls the loop into can resume after it."""
import torch


def process(scores: torch.Tensor, ids: torch.Tensor):
    flags = []

    def _gbfix_inner_1(row):
        nonlocal scores
        scores = scores * 2
        flags.append(not bool((ids[row] < 0).any()))

    _gbfix_inner_1(0)
    _gbfix_inner_1(1)
    return scores, flags


ENTRY = process


def example_inputs():
    return (torch.randn(2, 5), torch.tensor([[1, 2], [3, -4]]))
