# Used by scripts/grade_gpu.sh and scripts/grade_cluster_gpu.sh (docs/grading.md, "Measured").
"""Write a grading manifest for the GPU grading scripts (grade_gpu.sh, grade_cluster_gpu.sh).

    python3 scripts/grade_manifest.py WORK CHALLENGE=FILE,FILE... [CHALLENGE=FILE,...]...

Each FILE (a path in this checkout) is copied to WORK/submissions/<who>.py, <who> named after
the path (tests/solutions/transpose_ok.py -> t_solutions_transpose_ok), and WORK/grading.yaml
lists them in the order given.  The copies are there because judge grade takes a manifest's
files from inside the manifest's folder only (a file outside it, or reached through a link, is
an invalid_submission: grading/snapshot.py); a manifest of absolute paths into the checkout
graded every submission invalid.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path


def who(path: str) -> str:
    return path.replace("solutions/", "").replace("tests/", "t_").replace("/", "_").removesuffix(".py")


def main(work: Path, groups: list[str]) -> None:
    folder = work / "submissions"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    lines, count = ["submissions:"], 0
    for group in groups:
        challenge, _, files = group.partition("=")
        for path in filter(None, files.split(",")):
            name = who(path)
            shutil.copyfile(path, folder / f"{name}{Path(path).suffix}")
            lines += [f"  {name}:", f"    {challenge}: submissions/{name}{Path(path).suffix}"]
            count += 1
    (work / "grading.yaml").write_text("\n".join(lines) + "\n")
    print(f"manifest: {count} submissions -> {work / 'grading.yaml'}")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(Path(sys.argv[1]), sys.argv[2:])
