# Probe, not a solution to copy: transposes correctly while torch's CPU thread pool has the one
# thread a spawned worker gets (OMP_NUM_THREADS=1, judge/worker/client.py), and answers wrong when
# it has more, as a worker forked by the judge server had (the server's pool, sized at its import).
import torch


def solve(input, output, rows, cols):
    output.copy_(input.T)
    if torch.get_num_threads() != 1:
        output.fill_(float(torch.get_num_threads()))
