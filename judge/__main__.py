"""``python -m judge``: the same CLI as the ``judge`` command."""

from judge.cli import entry

if __name__ == "__main__":
    entry()
