"""judge/defence/folders.py: the worker's folders measured and removed by descriptors (the red team of issue 46:
a tree deeper than Python's recursion, files below PATH_MAX, a link in a read-only folder)."""

from __future__ import annotations

import os

from judge.defence.folders import ScratchFolder, remove_tree, tree_bytes


def _deep(top, depth: int, name: str = "d") -> int:
    """``depth`` nested folders below ``top``; a descriptor of the deepest."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir(name, dir_fd=fd)
        below = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = below
    return fd


def _write(fd: int, name: str, size: int) -> None:
    with open(os.open(name, os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd), "wb") as f:
        f.write(b"x" * size)


def test_a_tree_deeper_than_recursion_and_path_max_is_counted_and_removed(tmp_path):
    top = tmp_path / "top"
    top.mkdir()
    fd = _deep(top, 40, "n" * 255)  # 40 x 256 characters: far past PATH_MAX
    _write(fd, "deep", 1 << 20)
    os.close(fd)
    fd = _deep(top, 3000)  # past Python's recursion limit
    _write(fd, "f", 4096)
    os.close(fd)
    assert tree_bytes(str(top), 1 << 40) >= (1 << 20) + 4096
    assert tree_bytes(str(top), 0) >= 4096  # counted only to just past the limit
    assert remove_tree(str(top)) and not top.exists()


def test_a_link_is_removed_never_followed_and_read_only_folders_are_emptied(tmp_path):
    private = tmp_path / "private.txt"
    private.write_text("the user's")
    private.chmod(0o400)
    folder = ScratchFolder("judge-test-")
    try:
        locked = os.path.join(folder.name, "locked")
        os.mkdir(locked)
        os.symlink(private, os.path.join(locked, "link"))
        os.symlink(tmp_path, os.path.join(folder.name, "folder-link"))
        os.chmod(locked, 0o500)
        os.mkdir(os.path.join(folder.name, "closed"))
        os.chmod(os.path.join(folder.name, "closed"), 0)
        assert tree_bytes(folder.name, 1 << 40) < 64 * 1024  # the links' targets are not counted
        assert folder.cleanup() and not os.path.exists(folder.name)
    finally:
        remove_tree(folder.name)
    assert private.read_text() == "the user's" and private.stat().st_mode & 0o777 == 0o400
    assert tmp_path.exists()


def test_what_is_not_there_or_not_a_folder(tmp_path):
    assert remove_tree(str(tmp_path / "absent"))
    assert tree_bytes(str(tmp_path / "absent"), 10) == 0
    plain = tmp_path / "file"
    plain.write_text("x")
    assert remove_tree(str(plain)) and not plain.exists()
