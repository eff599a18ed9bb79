"""2_Linear in plain PyTorch with the weights Model gets: ModelNew makes the same nn.Linear first, so KernelBench's
seeded initialisation (and the judge's) gives it the same values; forward is an addmm of its own."""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.addmm(self.linear.bias, x, self.linear.weight.t())
