"""A module returns whether its mask is all set, with `not` in the value: the rest of the frame ran eagerly."""
import torch


class Check(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(4, 4)

    def forward(self, x, mask):
        y = self.proj(x).relu()
        z = y * 2 + 1
        return z, not(mask.all())


ENTRY = Check


def example_inputs():
    return (torch.randn(3, 4), torch.tensor([True, False]))
