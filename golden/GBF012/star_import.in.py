"""A star import may bind `bool` (`from torch import *` binds the dtype `torch.bool`): `not bool(...)`
would call the dtype, so nothing is rewritten."""
import torch
from torch import *  # noqa: F403


def process(scores: torch.Tensor, ids: torch.Tensor):
    scores = scores.softmax(-1)
    valid = not (ids < 0).any()
    return scores * 2 if valid else scores


ENTRY = process


def example_inputs():
    return (torch.randn(2, 5), torch.tensor([1, 2]))
