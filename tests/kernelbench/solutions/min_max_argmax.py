"""5_Min_Max_Argmax: three outputs, a float scalar input, an int64 output compared exactly."""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x, offset):
        low, high = torch.aminmax(x, dim=-1)
        return low + offset, high + offset, x.argmax(dim=-1)
