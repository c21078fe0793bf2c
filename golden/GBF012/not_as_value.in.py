"""Logits processing keeps `not (ids < 0).any()` as a value: Dynamo cannot resume after that instruction."""
import torch


def process(scores: torch.Tensor, ids: torch.LongTensor):
    scores = scores.softmax(-1) * 2
    valid = ids is not None and ids.dim() == 2 and not (ids < 0).any()
    scores = scores + 1
    return scores * 3 if valid else scores - 1


ENTRY = process


def example_inputs():
    return (torch.randn(2, 5), torch.tensor([[1, 2], [3, 4]]))
