# Resource abuse: allocates GPU memory without end.
import torch

hoard = []


def solve(input, output, rows, cols):
    while True:
        hoard.append(torch.empty(1024**3, dtype=torch.uint8, device=input.device))
