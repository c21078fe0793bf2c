# golden: --unsafe-fixes
"""`self.body = torch.compile(self.body)` in `__init__`: checkpoints keep `body.` keys. Unsafe: another
name may hold the module `self.body` is (the caller's, an alias), and it would run compiled too."""
import torch
from torch import nn

GOLDEN_KIND = "placement"


class Body(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return torch.sigmoid(self.lin(x))


class Holder(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = Body()
        self.body = torch.compile(self.body, backend="eager")
        self.head = nn.Linear(4, 2)

    def forward(self, x):
        return self.head(self.body(x))


def run(x):
    holder = Holder()
    return holder(x), holder


ENTRY = run


def example_inputs():
    return (torch.randn(3, 4),)
