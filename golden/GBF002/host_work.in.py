"""Position ids built on the host: per row, the runs of equal token types come from
`itertools.groupby` over `types.tolist()`, Python numbers copied off the device, and each run
becomes a small index tensor sized by them. Both breaking loops (the rows, with a boolean mask;
the runs, with an `.item()`) are host work: a frame per trip would guard and run a few index ops
and cost more than it captures. The findings are reported with no fix."""
import itertools

import torch
from torch import nn


class Positions(nn.Module):
    def forward(self, input_ids, token_types, mask):
        position_ids = torch.zeros(input_ids.shape[0], input_ids.shape[1], dtype=torch.long)
        deltas = []
        for row, ids in enumerate(input_ids):
            types = token_types[row][mask[row].bool()]
            runs = []
            for key, group in itertools.groupby(enumerate(types.tolist()), lambda pair: pair[1]):
                group = list(group)
                runs.append((key, group[0][0], group[-1][0] + 1))
            start = 0
            pieces = []
            for kind, first, end in runs:
                length = end - first
                if kind == 0:
                    pieces.append(torch.arange(length) + start)
                else:
                    pieces.append(torch.full((length,), start) + int(ids[first].item()) % 2)
                start += length
            positions = torch.cat(pieces)
            position_ids[row, mask[row].bool()] = positions
            deltas.append(positions.max() + 1 - len(ids))
        return position_ids, torch.stack(deltas)


ENTRY = Positions


def example_inputs():
    input_ids = torch.tensor([[5, 6, 7, 8, 9, 10], [1, 2, 3, 4, 5, 6]])
    token_types = torch.tensor([[0, 0, 1, 1, 0, 0], [0, 1, 1, 1, 0, 0]])
    mask = torch.tensor([[1, 1, 1, 1, 1, 0], [1, 1, 1, 1, 1, 1]])
    return (input_ids, token_types, mask)
