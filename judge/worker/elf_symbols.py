"""The functions a shared library exports, read from its ELF dynamic symbol table.

Used for one thing: a CUDA C++ solution whose ``solve`` has C++ linkage (no
``extern "C"``, as LeetGPU's older starters were written) is exported under a
mangled name (``_Z5solvePKfPfi``); when exactly one exported function is a
global ``solve``, the judge calls it (judge/worker/cuda_solve.py).  ELF64,
little-endian (x86-64, Arm64), as the libraries nvcc links here are.
"""

from __future__ import annotations

import struct

__all__ = ["exported_functions", "mangled_solves"]

_SHT_DYNSYM = 11
_STT_FUNC = 2


def exported_functions(path: str) -> list[str]:
    """Names of the functions ``path`` defines and exports; [] for anything that is not ELF64 little-endian."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return []
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = []
    for _, kind, _, _, offset, size, link, _, _, entsize in sections:
        if kind != _SHT_DYNSYM or not entsize:
            continue
        strings_offset = sections[link][4]
        for at in range(offset, offset + size, entsize):
            name, info, _, shndx, _, _ = struct.unpack_from("<IBBHQQ", data, at)
            if (info & 0xF) == _STT_FUNC and shndx != 0 and (info >> 4) in (1, 2):
                end = data.index(b"\0", strings_offset + name)
                names.append(data[strings_offset + name:end].decode(errors="replace"))
    return names


def mangled_solves(path: str) -> list[str]:
    """The exported functions that are a global ``solve`` with C++ linkage (Itanium mangling)."""
    return [name for name in exported_functions(path) if name.startswith("_Z5solve")]
