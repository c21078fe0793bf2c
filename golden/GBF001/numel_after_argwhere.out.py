"""`if idx.numel() == 0: continue` after `torch.argwhere`: the size of a data-dependent result."""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        def _gbfix_inner_1(i):
            nonlocal x
            idx = torch.argwhere(x > i)
            if idx.numel() == 0:
                return
            x = x + idx.sum()

        _gbfix_inner_1(0)
        _gbfix_inner_1(1)
        _gbfix_inner_1(2)
        return x.relu()


ENTRY = Model


def example_inputs():
    return (torch.tensor([1.0, -2.0, 3.0, 0.5]),)
