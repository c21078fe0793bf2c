"""An alignment's backtrace: the loop walks back through the backpointers and builds Python lists
of ints with `.item()`. What it computes are Python values, not tensors, so it is host work
whatever it runs over (a `range`): reported with no fix. The neighbour that stores tensors
(`host_results_neighbour`) is still rewritten."""
import torch
from torch import nn


class Aligner(nn.Module):
    def forward(self, scores, backpointers, length: int):
        best = scores.softmax(-1)
        loc = int(best[-1].argmax())
        path = [loc]
        labels = []
        for step in range(length - 1, 0, -1):
            loc = backpointers[step, path[0]].long().item()
            path.insert(0, loc)
            labels.insert(0, str(loc))
        return best * 2, path, labels


ENTRY = Aligner


def example_inputs():
    scores = torch.arange(12.0).reshape(4, 3)
    backpointers = torch.tensor([[0, 1, 2], [1, 1, 0], [2, 0, 1], [0, 2, 2]])
    return (scores, backpointers, 4)
