"""Cross-attention behind `query is key or torch.equal(query, key)`: the layers hand the decoder's
states as query and the memory as key, two tensors, so `torch.equal` runs and breaks in the layer
loop (of the same shapes or not). The finding stands; the loop is left as written: each trip's work
is in `layer`, which breaks inside, and outlining the loop whole would bring one op (`x.sum(-1)`)
into a graph."""
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
        for layer in self.layers:
            x = torch.tanh(layer(x, memory)) * 0.5 + x
        return x.sum(-1)


ENTRY = Decoder


def example_inputs():
    return (torch.randn(2, 5, 4), torch.randn(2, 6, 4))
