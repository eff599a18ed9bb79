"""The commands people run between judgements start in a fraction of a second:
they import neither torch nor triton (seconds), and the ``judge`` entry point
ends the process as soon as its work is done (issue 16)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from click.testing import CliRunner

from judge.cli import main
from judge.judging import runner

from conftest import CHALLENGES, ROOT

# Each command runs in one fresh interpreter, in turn; after each, torch and
# triton must still be missing from sys.modules.
_CHECK = textwrap.dedent("""
    import json, sys
    from judge.cli import main
    heavy = {}
    for args in json.loads(sys.argv[1]):
        try:
            main(args, prog_name="judge", standalone_mode=False)
        except SystemExit:
            pass
        heavy[" ".join(args)] = sorted(m for m in ("torch", "triton") if m in sys.modules)
    print(json.dumps(heavy), file=sys.stderr)
""")


def _environment(tmp_path) -> dict:
    env = dict(os.environ, JUDGE_CACHE_DIR=str(tmp_path / "cache"), JUDGE_DATA_DIR=str(tmp_path / "data"))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def test_commands_between_judgements_import_neither_torch_nor_triton(tmp_path, monkeypatch):
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(tmp_path / "cache"))
    assert CliRunner().invoke(main, ["show", "transpose"]).exit_code == 0  # computes the example once
    commands = [["--help"], ["list"], ["show", "transpose"], ["init", "transpose", str(tmp_path / "s.py")],
                ["new", "my_op", "--dir", str(tmp_path)], ["validate", "--help"], ["history"],
                ["run", "--help"], ["server", "--help"], ["server", "status"]]
    done = subprocess.run([sys.executable, "-c", _CHECK, json.dumps(commands)], capture_output=True,
                          text=True, env=_environment(tmp_path), cwd=tmp_path, timeout=60)
    heavy = json.loads(done.stderr.strip().splitlines()[-1])
    assert heavy == {" ".join(c): [] for c in commands}, done.stderr


def test_show_prints_the_same_example_from_its_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(tmp_path))
    first = CliRunner().invoke(main, ["show", "transpose"])
    cached = json.loads((tmp_path / "examples.json").read_text())
    second = CliRunner().invoke(main, ["show", "transpose"])
    assert first.exit_code == second.exit_code == 0 and first.output == second.output
    assert list(cached.values()) == ["rows=2, cols=3\ninput = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]\n"
                                     "output = [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]"]


def test_an_edited_spec_gets_a_fresh_example_and_the_old_text_is_dropped(tmp_path, monkeypatch):
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(tmp_path / "cache"))
    spec_file = tmp_path / "transpose.yaml"
    text = (CHALLENGES / "transpose.yaml").read_text()
    for example in ("{rows: 2, cols: 3}", "{rows: 1, cols: 2}"):
        spec_file.write_text(text.replace("example: {rows: 2, cols: 3}", f"example: {example}"))
        result = CliRunner().invoke(main, ["show", str(spec_file)])
        assert result.exit_code == 0, result.output
    assert "rows=1, cols=2\ninput = [[1.0, 2.0]]\noutput = [[1.0], [2.0]]" in result.output
    assert len(json.loads((tmp_path / "cache" / "examples.json").read_text())) == 1


def test_the_entry_point_keeps_exit_codes_and_output(tmp_path):
    env = _environment(tmp_path)
    unknown = subprocess.run([sys.executable, "-m", "judge", "show", "no_such_challenge"], capture_output=True,
                             text=True, env=env, timeout=60)
    version = subprocess.run([sys.executable, "-m", "judge", "--version"], capture_output=True, text=True,
                             env=env, timeout=60)
    assert unknown.returncode == 2 and "no_such_challenge" in unknown.stderr
    assert version.returncode == 0 and version.stdout.startswith("judge, version")


def test_the_driver_version_is_read_as_nvidia_smi_prints_it():
    lines = {"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.133.20  Release Build  (dvs@U16)  "
             "Tue Mar 25 18:31:25 UTC 2025": "570.133.20",
             "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.54.03  Tue Jun  6 22:20:39 UTC 2023": "535.54.03"}
    for line, version in lines.items():
        assert runner._DRIVER_VERSION.search(line).group(1) == version


def test_the_judge_reports_triton_without_importing_it():
    import triton

    assert runner._triton_version() == triton.__version__
