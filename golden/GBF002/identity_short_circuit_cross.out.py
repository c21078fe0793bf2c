"""Cross-attention behind `query is key or torch.equal(query, key)`: the layers hand the decoder's
states as query and the memory as key, two tensors, so `torch.equal` runs and breaks in the layer
loop (of the same shapes or not): the loop's body is outlined."""
import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 12)

    def forward(self, query, key, value):
        if (query is key or torch.equal(query, key)) and (key is value or torch.equal(key, value)):
            q, k, v = self.proj(query).chunk(3, dim=-1)
        else:
            q, k, v = query, key, value
        return torch.softmax(q @ k.transpose(-1, -2), dim=-1) @ v


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.att = Attention()

    def forward(self, x, memory):
        return x + self.att(x, memory, memory)


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Layer() for _ in range(3)])

    def forward(self, x, memory):
        def _gbfix_layers_loop_1():
            nonlocal x

            def _gbfix_layer_step_2(layer):
                nonlocal x
                x = torch.tanh(layer(x, memory)) * 0.5 + x

            for layer in self.layers:
                _gbfix_layer_step_2(layer)

        _gbfix_layers_loop_1()
        return x.sum(-1)


ENTRY = Decoder
# the loop helper that drives the per-trip calls is skipped
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(2, 5, 4), torch.randn(2, 6, 4))
