import torch
import torch.nn as nn


class Model(nn.Module):
    """A mean squared error scaled down to about 2e-5: below KernelBench's float32 atol of 1e-4, so an output of
    zeros passes its tolerance (the hole the judge's check of constant outputs closes)."""

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return torch.mean((predictions - targets) ** 2) * 1e-4


batch_size = 128
input_shape = (4096,)


def get_inputs():
    return [torch.rand(batch_size, *input_shape), torch.rand(batch_size, *input_shape)]


def get_init_inputs():
    return []
