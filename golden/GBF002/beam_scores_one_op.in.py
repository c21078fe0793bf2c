"""A decoding step over the best candidates (after torchaudio's `RNNTBeamSearch._gen_a_hypos`): each
trip reads a score from the device and runs a cell when it beats the beam. The function runs one tensor
op of its own (the cell is a frame of its own either way): left as it is, since a rewrite would bring at
most that op into a graph, for a loop helper and a frame per trip that Dynamo guards and resumes
(torchaudio's beam search compiled its per-trip function again for every new score, up to the limit)."""

import torch


class BeamStep(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = torch.nn.Linear(2, 2)

    def forward(self, nbest_scores, hidden, beam_width: int = 3, b_nbest_score: float = 0.1):
        for i in range(beam_width):
            if nbest_scores[i].item() > b_nbest_score:
                hidden = self.cell(hidden)
        return hidden


ENTRY = BeamStep


def example_inputs():
    return (torch.tensor([0.5, 0.05, 0.3]), torch.ones(2))
