# Resource abuse: allocates host memory without end.
hoard = []


def solve(input, output, rows, cols):
    while True:
        hoard.append(bytearray(64 * 1024 * 1024))
        hoard[-1][::4096] = b"x" * len(hoard[-1][::4096])  # touch every page
