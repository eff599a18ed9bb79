# Bug on purpose: writes input + 1 into the last column of the output.
import torch


def solve(input, output, rows, cols):
    output.copy_(input.T)
    output[-1, :] += 1
