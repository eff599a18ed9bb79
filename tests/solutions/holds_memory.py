# Correct, but holds 512 MiB of touched memory: the kernel takes tens of milliseconds to tear a
# process like this down after SIGKILL (tests/test_startup.py: a stopped worker has ended).
_HELD = bytearray(512 << 20)
for _page in range(0, len(_HELD), 4096):
    _HELD[_page] = 1


def solve(input, output, rows, cols):
    output.copy_(input.T)
