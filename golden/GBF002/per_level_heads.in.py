"""Per-level heads (as in a detector): each trip a feature map of another size, a break per
trip, and the trip's result appended to a list. The per-trip function returns the result and
the loop helper appends it: a list growing inside the compiled frame would be guarded by its
length and compile the frame again on every trip (12 levels: past the recompile limit)."""
import torch
from torch import nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 3, padding=1)
        self.cls = nn.Conv2d(4, 6, 3, padding=1)

    def forward(self, features):
        outs = []
        for level, feature in enumerate(features):
            h = self.conv(feature).relu()
            logits = self.cls(h)
            n, _, height, width = logits.shape
            logits = logits.view(n, 3, 2, height, width).permute(0, 3, 4, 1, 2).reshape(n, -1, 2)
            if logits.abs().max() > 100:
                print("level", level, "overflow")
            outs.append(logits.softmax(-1))
        return torch.cat(outs, dim=1)


ENTRY = Head
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return ([torch.randn(1, 4, s, s, generator=g) for s in (40, 36, 32, 28, 24, 20, 16, 12, 8, 4, 2, 1)],)
