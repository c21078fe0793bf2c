"""Tuple target over enumerate of a literal: both values become parameters."""
import torch


class Proj(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.q = torch.nn.Linear(8, 8)
        self.k = torch.nn.Linear(8, 8)
        self.v = torch.nn.Linear(8, 8)

    def forward(self, x):
        outs = []

        def _gbfix_inner_1(i, name):
            y = getattr(self, name)(x)
            print("projected", i, name)
            outs.append(y * (i + 1))

        _gbfix_inner_1(0, "q")
        _gbfix_inner_1(1, "k")
        _gbfix_inner_1(2, "v")
        return torch.stack(outs).sum(0)


ENTRY = Proj


def example_inputs():
    return (torch.randn(2, 8),)
