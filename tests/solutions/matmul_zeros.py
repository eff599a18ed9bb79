# Writes zeros: the KernelBench hole (zeros pass a loose absolute tolerance) must stay closed.
def solve(A, B, C, M, N, K):
    C.zero_()
