"""A decoder loop that picks each layer's mask from a mapping: the name is bound to the mask argument
(a tensor) or to a dict of masks, so reading it by key is a lookup, not a tensor op. The body only
calls its layers, which compile as frames of their own, so the loop is outlined whole."""
import torch
from torch import nn


class Layer(nn.Module):
    def forward(self, x, mask):
        x = x * mask
        print("layer")
        return x + 1


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Layer() for _ in range(3)])
        self.kinds = ["full", "window", "full"]

    def forward(self, x, attention_mask=None):
        x = torch.relu(x)
        if not isinstance(masks := attention_mask, dict):
            masks = {"full": torch.ones_like(x), "window": torch.ones_like(x) * 0.5}

        def _gbfix_layers_loop_1():
            nonlocal x
            for i, layer in enumerate(self.layers):
                x = layer(x, masks[self.kinds[i]])

        _gbfix_layers_loop_1()
        return torch.sigmoid(x) * 3


ENTRY = Model
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.ones(2),)
