"""`from torch import compile` shadows the builtin; the qualified name still says torch.compile."""
import torch as t
from torch import compile, nn

GOLDEN_KIND = "placement"


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(2, 3, 3)

    @classmethod
    def from_pretrained(cls, seed):
        t.manual_seed(seed)
        return cls()

    def forward(self, x):
        return self.conv(x).mean(-1)


def run(x):
    model = Net.from_pretrained(7)
    model.compile(backend="eager")
    other = Net()
    other.compile(backend="eager")
    return model(x) + other(x), nn.ModuleList([model, other])


ENTRY = run


def example_inputs():
    return (t.randn(2, 2, 9),)
