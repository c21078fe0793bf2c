"""`DDP(torch.compile(net))`: the wrapper would hold an OptimizedModule."""
import torch
import torch.nn.parallel
from torch import nn

GOLDEN_KIND = "placement"


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)

    def forward(self, idx):
        return self.emb(idx).sum(1)


def setup(idx):
    net = Net()
    net.compile(backend="eager", dynamic=False)
    ddp = torch.nn.parallel.DistributedDataParallel(
        net,
        find_unused_parameters=False,
    )
    return ddp(idx), ddp


ENTRY = setup


def example_inputs():
    return (torch.tensor([[1, 2, 3], [4, 5, 6]]),)
