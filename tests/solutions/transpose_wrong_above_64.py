# Bug on purpose: a "tiling" bug above the CPU-mode caps: rows from 64 on are never transposed.
def solve(input, output, rows, cols):
    output[:, :64].copy_(input[:64].T)
