import torch
from torch import nn

GOLDEN_KIND = "cause"
COMPILES_ITSELF = True
PRINTED = "same"
OPS_IN_GRAPH = 6


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(4, 4))

    def forward(self, x):
        for depth in range(2):
            x = torch.relu(x @ self.weight)
            print("depth", depth, x.norm())
        return x


torch.manual_seed(0)
# compile the model once, at import
torch._dynamo.config.reorderable_logging_functions.add(print)  # gbfix GBF010: print() runs after the compiled graph, in the frame torch.compile starts on
model = torch.compile(Stack(), backend="eager")
ENTRY = model


def example_inputs():
    return (torch.randn(2, 4),)
