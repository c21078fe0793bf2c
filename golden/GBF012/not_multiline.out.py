"""A `not` whose operand is written on the lines below it is still `not` of a tensor used as a value."""
import torch


def process(scores: torch.Tensor, mask: torch.Tensor):
    scores = scores.softmax(-1) * 2
    empty = not bool((mask > 0).any())
    scores = scores + 1
    return scores * 3 if empty else scores - 1


ENTRY = process


def example_inputs():
    return (torch.randn(2, 5), torch.tensor([1.0, -1.0]))
