# golden: --unsafe-fixes
"""`ddp = torch.compile(ddp)` on a DDP wrapper: compile `ddp.module` instead. Unsafe: the module the
wrapper holds is compiled in place, and any other name for it would run compiled too."""
import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel

GOLDEN_KIND = "placement"


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(5, 2)

    def forward(self, x):
        return self.lin(x).softmax(-1)


def setup(x):
    model = Net()
    model = DistributedDataParallel(model)
    model = torch.compile(model, backend="eager")
    return model(x), model


ENTRY = setup


def example_inputs():
    return (torch.randn(4, 5),)
