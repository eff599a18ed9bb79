import torch
import torch.nn as nn


class Model(nn.Module):
    """Frobenius-norm normalization, scaled (a stand-in of KernelBench's 37_FrobeniusNorm_, whose 1.9 G elements make
    every output below 4e-5): the scale gives these 131072 elements the same magnitudes, below KernelBench's float32
    atol of 1e-4, so zeros pass its tolerance."""

    def __init__(self, scale: float):
        super(Model, self).__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x / torch.norm(x, p="fro") * self.scale


batch_size = 64
features = 2048
scale = 0.01


def get_inputs():
    return [torch.rand(batch_size, features)]


def get_init_inputs():
    return [scale]
