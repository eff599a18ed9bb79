"""``python -m judge``: the same CLI as the ``judge`` command."""

from judge.launch import main

if __name__ == "__main__":
    main()
