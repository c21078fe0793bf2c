"""`ddp = DDP(torch.compile(net))` with `net` called on its own later: compiled in place, `net(x)` would
run compiled too, where the wrapper left it eager. Not fixed by default."""
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
    net = Net()
    ddp = DistributedDataParallel(torch.compile(net, backend="eager"))
    plain = net(x)
    return ddp(x) + plain, ddp


ENTRY = setup


def example_inputs():
    return (torch.randn(4, 5),)
