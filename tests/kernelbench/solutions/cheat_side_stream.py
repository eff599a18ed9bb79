"""KernelBench's non_default_stream_kernel, in Python (GPU): the work goes on a stream of its own and forward
returns without waiting for it.  A timer that records events on the default stream alone sees almost nothing;
the judge synchronizes the whole device and audits the events with the host clock, so the time counts."""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.side = None

    def forward(self, A, B):
        if self.side is None:
            self.side = torch.cuda.Stream()
        with torch.cuda.stream(self.side):
            return torch.matmul(A, B)
