"""A decoding loop that stops when every row has produced the end id, read from the whole list
of ids so far. A function called once per trip would see `ids` one longer on every call and be
compiled again each trip, until Dynamo's recompile limit makes it (and what it calls) run
eagerly; a loop helper running the trips itself recompiles the same way (its resume function
after the break). Left as written, with the reason."""
import torch


class Decoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = torch.nn.Linear(4, 4)
        self.head = torch.nn.Linear(4, 3)

    def forward(self, x):
        ids = []
        scores = []
        h = (x * 2).tanh()
        for _ in range(12):
            h = self.cell(h).tanh()
            step = self.head(h)
            scores.append(step)
            ids.append(step.argmax(dim=1))
            if torch.stack(ids, dim=1).eq(7).any(-1).all():
                break
        out = torch.stack(scores, dim=1).softmax(-1)
        return out * h.sum().sigmoid() + out.cos()


ENTRY = Decoder


def example_inputs():
    return (torch.randn(2, 4),)
