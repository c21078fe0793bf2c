"""A codec block calls its LSTM: Dynamo does not trace recurrent modules, so the block's frame is skipped."""
import torch


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(4, 4, 2)

    def forward(self, hidden_states):
        hidden_states = hidden_states.permute(2, 0, 1)
        hidden_states = self.lstm(hidden_states)[0] + hidden_states
        return hidden_states.permute(1, 2, 0)


ENTRY = Block


def example_inputs():
    return (torch.randn(2, 4, 3),)
