import torch
import torch.nn as nn


class Model(nn.Module):
    """Softmax over 32768 features (a stand-in of KernelBench's 23_Softmax, whose 393216 features make every output
    about 2.5e-6): each of these 2 x 32768 outputs is below KernelBench's float32 atol of 1e-4, so zeros pass its tolerance."""

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=1)


batch_size = 2
dim = 32768


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
