# Hostile (issue 38's red team): writes gigabytes into Triton's cache folder, which every run shared and the
# disk watchdog did not count (2.3 GiB against a 2 GiB limit).  Now a solution's Triton cache is its own and
# counted with its scratch folder.  JUDGE_TEST_FILL_MB says how much.
import os
import time


def solve(input, output, rows, cols):
    output.copy_(input.T)
    folder = os.environ["TRITON_CACHE_DIR"]
    block = b"\1" * (1 << 20)
    for i in range(int(os.environ.get("JUDGE_TEST_FILL_MB", "96"))):
        with open(os.path.join(folder, f"fill-{i}.bin"), "wb") as f:  # each under the file-size limit
            f.write(block)
    time.sleep(3)  # the watchdog sums the folders every second
