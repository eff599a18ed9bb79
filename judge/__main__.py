"""``python -m judge``: the same CLI as the ``judge`` command."""

from judge.cli import main

if __name__ == "__main__":
    main(prog_name="judge")
