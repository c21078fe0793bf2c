"""A small transformer encoder whose debug print inside the layer loop makes
torch.compile skip the whole forward."""
import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, dim: int = 32, heads: int = 4):
        super().__init__()
        self.attn = nn.ModuleList(nn.MultiheadAttention(dim, heads, batch_first=True) for _ in range(4))
        self.mlp = nn.ModuleList(nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim)) for _ in range(4))
        self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.norm(x)
        for i in range(4):
            h, _ = self.attn[i](x, x, x, need_weights=False)
            x = x + h
            x = x + self.mlp[i](x)
            print(f"layer {i}: mean={x.mean().item():.4f}")
        return self.norm(x)


ENTRY = Encoder


def example_inputs():
    return (torch.randn(2, 10, 32),)
