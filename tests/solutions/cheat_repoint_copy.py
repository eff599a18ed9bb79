# Cheat (copy challenge): re-points the output at the input instead of writing it.  The judge
# read whatever the Python tensor viewed after solve(): accepted with no kernel at all, on the
# GPU and on the CPU (issue 24).  Now: the seal sees the new storage (runtime_error), and the
# bytes read back are the judge's own buffer's.


def solve(a, b, N):
    b.set_(a)
