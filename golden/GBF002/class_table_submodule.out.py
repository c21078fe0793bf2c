"""A layer's `mlp` built from a module-level table of classes (`MLPS[kind](...)`): the loop over the
layers breaks when a class the table holds breaks, so its frame is skipped and each trip's own work is captured."""
import torch
from torch import nn


class Experts(nn.Module):
    def forward(self, h):
        with torch.no_grad():
            hit = (h > 0).nonzero()
        return h * (hit.shape[0] > 0)


class Sparse(nn.Module):
    def __init__(self):
        super().__init__()
        self.experts = Experts()

    def forward(self, h):
        return self.experts(h)


class Dense(nn.Module):
    def forward(self, h):
        return h.relu()


MLPS = {"sparse": Sparse, "dense": Dense}


class Layer(nn.Module):
    def __init__(self, index):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.mlp = MLPS["sparse" if index % 2 else "dense"]()

    def forward(self, h):
        return self.mlp(self.proj(h))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Layer(i) for i in range(3)])

    def forward(self, h):
        h = h * 2

        def _gbfix_layers_loop_1():
            nonlocal h
            for layer in self.layers:
                h = layer(h) + h

        _gbfix_layers_loop_1()
        return h.softmax(-1)


ENTRY = Model
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(3, 4),)
