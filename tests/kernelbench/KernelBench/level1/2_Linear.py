import torch
import torch.nn as nn


class Model(nn.Module):
    """A linear layer: its weights are drawn by nn.Linear's own initialisation, under the judge's seed."""

    def __init__(self, in_features: int, out_features: int):
        super(Model, self).__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear(x)


batch_size = 32
in_features = 256
out_features = 128


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
