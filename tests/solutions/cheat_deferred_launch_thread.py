# Cheat (issue 25, 5): solve() returns at once and a thread launches the copy afterwards, past the
# end event: accepted at 1.3 us.  Now the outputs must be final when the call's device-wide
# synchronize returns (a digest of them is compared when they are sent), and a time below what the
# bytes need is refused.
import threading
import time


def solve(a, b, N):
    def later():
        time.sleep(0.0002)
        b.copy_(a)

    threading.Thread(target=later).start()
