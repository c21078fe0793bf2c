"""Classes chosen through local names: `mlp_class = Sparse if ... else Dense` in a layer, and a list of
layers built by `layer_class = KINDS[...]; layers.append(layer_class(i))` handed to `nn.ModuleList`: the loop
over them breaks when either class breaks."""
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


class Layer(nn.Module):
    def __init__(self, index):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        mlp_class = Sparse if index % 2 else Dense
        self.mlp = mlp_class()

    def forward(self, h):
        return self.mlp(self.proj(h))


class Plain(nn.Module):
    def __init__(self, index):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, h):
        return self.proj(h)


KINDS = {"moe": Layer, "plain": Plain}


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        layers = []
        for i in range(3):
            layer_class = KINDS["moe" if i else "plain"]
            layers.append(layer_class(i))
        self.layers = nn.ModuleList(layers)

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
