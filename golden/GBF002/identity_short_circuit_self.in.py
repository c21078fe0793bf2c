"""Self-attention behind `query is key or torch.equal(query, key)`: every layer hands one tensor for
query, key and value, so Dynamo answers `is` while tracing and never runs `torch.equal`; the layer
loop compiles into one graph and stays as written."""
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

    def forward(self, x):
        return x + self.att(x, x, x)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Layer() for _ in range(3)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x.sum(-1)


ENTRY = Encoder


def example_inputs():
    return (torch.randn(2, 5, 4),)
