"""The file binds `bool` to something else: `not bool(...)` would not mean `not`, so nothing is rewritten."""
import torch

bool = lambda value: True  # noqa: E731


def process(scores: torch.Tensor, ids: torch.Tensor):
    scores = scores.softmax(-1)
    valid = not (ids < 0).any()
    return scores * 2 if valid else scores


ENTRY = process


def example_inputs():
    return (torch.randn(2, 5), torch.tensor([1, -2]))
