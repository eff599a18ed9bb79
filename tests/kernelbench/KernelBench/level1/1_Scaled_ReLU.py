import torch
import torch.nn as nn


class Model(nn.Module):
    """ReLU, then a scale given to the constructor (a stand-in of KernelBench's level-1 activations)."""

    def __init__(self, scale: float):
        super(Model, self).__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x) * self.scale


batch_size = 64
dim = 8192
scale = 2.0


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [scale]
