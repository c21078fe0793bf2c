"""segment-anything's `Sam.forward`: decorated with `@torch.no_grad()`, it loops over the batch and calls
a prompt encoder that adjusts embeddings through boolean masks of its labels (`x[mask] += v` reads
`x[mask]`, a data-dependent shape). The break is placed on the loop of the decorated method, which is
outlined whole, with no per-trip function: each record's work is in the prompt encoder, which breaks
inside and compiles as a frame of its own either way, so a per-trip function would break at that call
too and bring three ops around it into graphs (GBF002/trip_breaks_in_its_call)."""
import torch
from torch import nn


class PromptEncoder(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.pe = nn.Linear(2, dim)
        self.not_a_point_embed = nn.Embedding(1, dim)
        self.point_embeddings = nn.ModuleList([nn.Embedding(1, dim) for _ in range(2)])

    def _embed_points(self, points, labels):
        point_embedding = self.pe(points + 0.5)
        point_embedding[labels == -1] = 0.0
        point_embedding[labels == -1] += self.not_a_point_embed.weight
        point_embedding[labels == 0] += self.point_embeddings[0].weight
        point_embedding[labels == 1] += self.point_embeddings[1].weight
        return point_embedding

    def forward(self, points, labels):
        return self._embed_points(points, labels)


class Sam(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.prompt_encoder = PromptEncoder(dim)
        self.decoder = nn.Linear(dim, dim)

    @torch.no_grad()
    def forward(self, batched_input):
        outputs = []
        for record in batched_input:
            sparse = self.prompt_encoder(record["points"], record["labels"])
            outputs.append(self.decoder(sparse).relu())
        return outputs


ENTRY = Sam


def example_inputs():
    g = torch.Generator().manual_seed(0)
    batch = [
        {"points": torch.randn(1, 3, 2, generator=g), "labels": torch.tensor([[1, 0, -1]])},
        {"points": torch.randn(1, 3, 2, generator=g), "labels": torch.tensor([[0, 1, 1]])},
    ]
    return (batch,)
