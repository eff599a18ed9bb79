"""Building a CUDA C++ solution, the pure part: nvcc's command lines, the build's
cache key, the dependency file nvcc writes, and its diagnostics cut down to the
user's file.  No I/O: judge/worker/cuda_build.py runs the commands and keeps the cache.

The solution compiles in two steps: to an object with ``-MD`` (nvcc lists the
headers it read, so an edited local header rebuilds), then to a shared library
linked against the shared CUDA runtime: the process already holds torch's, so
the solution's kernels and the judge's timer share one runtime, one context and
one legacy default stream.  The code is built for the GPU it runs on (``sm_90a``
on an H100: its architecture-specific instructions such as ``wgmma`` included).
"""

from __future__ import annotations

import hashlib
import re

__all__ = ["BUILD_VERSION", "COMPILE_FLAGS", "CUTLASS_FLAGS", "arch_flags", "compile_command", "link_command",
           "cache_key", "parse_dependencies", "local_dependencies", "user_diagnostics", "MAX_DIAGNOSTIC_LINES",
           "cutlass_version", "missing_cutlass_header", "cutlass_identity"]

BUILD_VERSION = 2  # part of every cache key: a change to how solutions are built rebuilds them all
COMPILE_FLAGS = ("-O3", "-std=c++17", "-lineinfo", "-Xcompiler", "-fPIC")
# --no-undefined: a declared but missing function is a link error now, not a failure at load.
LINK_FLAGS = ("-shared", "-cudart", "shared", "-Xlinker", "--no-undefined")
# With the CUTLASS/CuTe headers on the include path: CuTe's layouts call constexpr host functions from device
# code, which nvcc refuses without this flag (CUTLASS's own builds pass it too).
CUTLASS_FLAGS = ("--expt-relaxed-constexpr",)
MAX_DIAGNOSTIC_LINES = 60
MAX_LINE = 400  # characters of one diagnostic line (a static_assert can print megabytes on one)
MAX_DIAGNOSTIC_CHARS = 16_000


def arch_flags(capability: tuple[int, int]) -> list[str]:
    """Code for exactly this GPU: ``sm_90a`` for compute capability 9.0 (the ``a`` variants, which hold the
    architecture-specific instructions, exist from 9.0 on), ``sm_89`` for 8.9."""
    major, minor = int(capability[0]), int(capability[1])
    arch = f"{major}{minor}{'a' if major >= 9 else ''}"
    return [f"-gencode=arch=compute_{arch},code=sm_{arch}"]


def compile_command(nvcc: str, source: str, obj: str, deps: str, capability: tuple[int, int],
                    include_dirs: list[str], extra: list[str], library_dirs: list[str] = ()) -> list[str]:
    """nvcc's command that compiles ``source`` to ``obj`` and lists its headers in ``deps``.  ``library_dirs``:
    the CUTLASS/CuTe headers' folders, searched after the solution's own (``-isystem``: their warnings are
    not the user's), with the flags CuTe needs."""
    includes = [f"-I{folder}" for folder in include_dirs]
    libraries = [part for folder in library_dirs for part in ("-isystem", folder)]
    cutlass = list(CUTLASS_FLAGS) if library_dirs else []
    return [nvcc, *COMPILE_FLAGS, *arch_flags(capability), *includes, *libraries, *cutlass, *extra, "-MD", "-MF",
            deps, "-c", source, "-o", obj]


def link_command(nvcc: str, obj: str, library: str, capability: tuple[int, int], runtime_dir: str,
                 extra: list[str]) -> list[str]:
    """nvcc's command that links ``obj`` into the shared library ``library`` (the runtime found by its
    soname, already loaded by torch; ``runtime_dir`` as the fallback search path)."""
    rpath = ["-Xlinker", f"-rpath,{runtime_dir}"] if runtime_dir else []
    return [nvcc, *LINK_FLAGS, *arch_flags(capability), *rpath, *extra, obj, "-o", library]


def cache_key(source: bytes, nvcc_identity: str, capability: tuple[int, int], extra: list[str],
              context: str = "", libraries: str = "") -> str:
    """What decides the build, hashed: the source, the flags, the compiler, the GPU, ``context`` (the
    solution's folder and its headers' digests) and ``libraries`` (the CUTLASS headers': ``cutlass_identity``).
    Headers read from elsewhere are checked separately (``local_dependencies``), since only nvcc knows them."""
    digest = hashlib.sha256()
    for part in (f"v{BUILD_VERSION}", " ".join(COMPILE_FLAGS + LINK_FLAGS), nvcc_identity,
                 " ".join(arch_flags(capability)), "\0".join(extra), context, libraries):
        digest.update(part.encode() + b"\0")
    digest.update(source)
    return digest.hexdigest()[:32]


def parse_dependencies(text: str) -> list[str]:
    """The prerequisites of a make rule as nvcc writes it (``obj: a.cu b.h \\`` continued lines,
    spaces in names escaped with a backslash)."""
    body = text.replace("\\\n", " ")
    _, colon, rest = body.partition(": ")
    if not colon:
        return []
    names = re.findall(r"(?:\\ |[^\s])+", rest)
    return [name.replace("\\ ", " ") for name in names]


def local_dependencies(dependencies: list[str], source: str, system_roots: list[str]) -> list[str]:
    """The headers that belong to the user, not to the toolkit or the system: those a later build must
    find unchanged to reuse this one (the source itself is in the key)."""
    roots = tuple(root.rstrip("/") + "/" for root in system_roots if root)
    return sorted({d for d in dependencies if d != source and not d.startswith(roots)})


def user_diagnostics(output: str, source: str, shown: str, build_dir: str, folder: str = "") -> str:
    """nvcc's output as the user needs it: their file as its name and their headers (in ``folder``, the
    solution's) by relative path, the judge's build folder hidden, diagnostics about the toolkit's or the
    system's headers (absolute paths) dropped unless nothing else is left, at most
    ``MAX_DIAGNOSTIC_LINES`` lines."""
    text = output.replace(source, shown)
    for prefix in (build_dir, folder):
        if prefix:
            text = text.replace(prefix.rstrip("/") + "/", "")
    text = re.sub(r"/\S*/(tmpxft_[0-9a-f_]+-\d+_)", r"\1", text)  # nvcc's intermediates: a name is enough
    blocks = _blocks([_cut(line) for line in text.splitlines()])
    kept = [b for b in blocks if not b[0].startswith("/")] or blocks
    lines = [line for block in kept for line in block]
    if len(lines) > MAX_DIAGNOSTIC_LINES:
        cut = len(lines) - MAX_DIAGNOSTIC_LINES
        lines = lines[:MAX_DIAGNOSTIC_LINES] + [f"... ({cut} more lines)"]
    shown_text = "\n".join(lines).strip()
    if len(shown_text) > MAX_DIAGNOSTIC_CHARS:
        cut = len(shown_text) - MAX_DIAGNOSTIC_CHARS
        shown_text = shown_text[:MAX_DIAGNOSTIC_CHARS] + f"\n... ({cut} more characters)"
    return shown_text


def _cut(line: str) -> str:
    return line if len(line) <= MAX_LINE else line[:MAX_LINE] + f" ... ({len(line) - MAX_LINE} more characters)"


def _blocks(lines: list[str]) -> list[list[str]]:
    """A diagnostic's head line with the lines indented under it (the source excerpt, the caret)."""
    blocks: list[list[str]] = []
    for line in lines:
        if not line.strip():
            continue
        if blocks and (line[:1].isspace() or line.lstrip().startswith("^")):
            blocks[-1].append(line)
        else:
            blocks.append([line])
    return blocks


_VERSION_PART = re.compile(r"^\s*#\s*define\s+CUTLASS_(MAJOR|MINOR|PATCH)\s+(\d+)", re.MULTILINE)


def cutlass_version(version_header: str) -> str:
    """``4.2.0`` from the text of CUTLASS's ``cutlass/version.h``; "unknown" when it says no version."""
    parts = dict(_VERSION_PART.findall(version_header))
    if not all(name in parts for name in ("MAJOR", "MINOR", "PATCH")):
        return "unknown"
    return f"{int(parts['MAJOR'])}.{int(parts['MINOR'])}.{int(parts['PATCH'])}"


def cutlass_identity(include_dirs: list[str], version: str, version_digest: str) -> str:
    """What of the CUTLASS headers decides a build (for ``cache_key``): where they are, their version and the
    digest of their ``version.h``.  Their files are not hashed one by one on every run (CuTe reads hundreds):
    a checkout edited in place keeps its key; JUDGE_NVCC_FLAGS or a new version.h builds again."""
    return f"cutlass {version} {version_digest} " + " ".join(include_dirs)


# nvcc's host preprocessor ("mine.cu:1:10: fatal error: cute/tensor.hpp: No such file or directory") or its
# front end ('cannot open source file "cute/tensor.hpp"'), for a header of CUTLASS's or CuTe's.
_MISSING_HEADER = re.compile(r'(?:fatal error: |cannot open source file ")((?:cute|cutlass)/[\w./-]+)'
                             r'(?:: No such file or directory|")')


def missing_cutlass_header(output: str) -> str | None:
    """The CUTLASS or CuTe header nvcc could not find (``cute/tensor.hpp``), if its output says so."""
    found = _MISSING_HEADER.search(output)
    return found.group(1) if found else None
