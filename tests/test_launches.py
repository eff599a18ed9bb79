"""The worker's count of the solution's own kernel launches (judge/worker/launches.py; issue 29 item 10)."""

from __future__ import annotations

import types

from judge.worker.launches import LaunchCount


def _kernel(filename: str):
    code = compile("def kernel(x):\n    pass\n", filename, "exec")
    namespace: dict = {}
    exec(code, namespace)  # noqa: S102 - a function whose code says it lives in ``filename``
    return types.SimpleNamespace(fn=namespace["kernel"])


def test_only_kernels_defined_in_the_solutions_folder_count(tmp_path):
    count = LaunchCount()
    count.folder = f"{tmp_path}/"
    own, helper = _kernel(str(tmp_path / "solution.py")), _kernel(str(tmp_path / "_helpers.py"))
    library = _kernel("/usr/lib/python3/site-packages/somelib/kernels.py")
    beside = _kernel(f"{tmp_path}-other/solution.py")  # a folder whose name starts the same
    for kernel in (own, helper, library, beside, own):
        count.launched(kernel)
    assert count.count == 3
    count.reset()
    assert count.count == 0
    count.note()  # a CUDA C++ solution's launcher counts itself
    assert count.count == 1
