"""A vision attention splits q, k and v by per-image lengths read once per element of a comprehension."""
import torch


def attention(x, lengths):
    q, k, v = x.chunk(3, dim=-1)
    parts = [torch.split(t, lengths.tolist(), dim=0) for t in (q, k, v)]
    out = [torch.softmax(a @ b.transpose(0, 1), -1) @ c for a, b, c in zip(*parts)]
    return torch.cat(out)


ENTRY = attention


def example_inputs():
    return (torch.randn(6, 12), torch.tensor([2, 4]))
