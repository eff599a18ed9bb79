import torch
import torch.nn as nn


class Model(nn.Module):
    """L2 normalization along dim 1 in float16 (a stand-in of KernelBench's 39_L2Norm_ judged in fp16, whose
    tolerance is 1e-2): every output is below 0.007, so zeros pass that tolerance."""

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x / torch.norm(x, p=2, dim=1, keepdim=True)


batch_size = 2
dim = 65536


def get_inputs():
    return [torch.rand(batch_size, dim).half()]


def get_init_inputs():
    return []
