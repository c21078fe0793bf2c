"""`not` in the tests of `if`, a ternary and `assert`: Python folds it into the jump, where Dynamo resumes."""
import torch


def process(scores: torch.Tensor, ids: torch.Tensor):
    scores = scores.softmax(-1)
    if not (ids < 0).any():
        scores = scores * 2
    scores = scores + 1 if not ids.all() else scores - 1
    assert not (ids > 100).any()
    return scores


ENTRY = process


def example_inputs():
    return (torch.randn(2, 5), torch.tensor([1, 2]))
