import torch
import torch.nn as nn


class Model(nn.Module):
    """The minimum over 65536 values of torch.rand (a stand-in of KernelBench's 53_Min_reduction_over_a_dimension):
    almost always below KernelBench's float32 atol of 1e-4, so zeros pass its tolerance."""

    def __init__(self, dim: int):
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.min(x, dim=self.dim)[0]


batch_size = 2
dim1 = 65536


def get_inputs():
    return [torch.rand(batch_size, dim1)]


def get_init_inputs():
    return [1]
