"""What a compiled Coq file (``.vo``, Coq 8.16) records about how it was compiled: the libraries
it was compiled against.

coqc without ``-noinit`` loads the stdlib's Prelude before the file's first sentence, so every
library compiled that way lists ``Coq.Init.Prelude`` among its dependencies; a ``.vo`` that does
not was compiled with ``-noinit`` (HoTT, UniMath, parts of Equations and of coq-elpi), and its
source only reads as it did under ``-noinit`` (the Prelude's notations clash with the library's).
Reading the ``.vo`` answers per file, without starting Coq.

The format (Coq's ``lib/objFile.ml`` and ``library/library.ml``): the bytes ``Coq!``, the
version as a big-endian int32 and the position of the segment table as an int64, then the
segments, the first of which is the library's summary: an OCaml ``Marshal`` value
``{md_name; md_deps; md_ocaml}``, where ``md_deps`` is an array of (dirpath, digest) pairs, a
dirpath being the list of its identifiers, innermost first. :func:`unmarshal` reads OCaml's
marshalling format (``runtime/intern.c``) far enough for these values.
"""

from __future__ import annotations

import functools
import struct
from pathlib import Path

MAGIC = b"Coq!"
PRELUDE = "Coq.Init.Prelude"


class VoFormatError(ValueError):
    """A file that is not a ``.vo`` of the kind read here; the message names the file."""


@functools.lru_cache(maxsize=8192)
def vo_dependencies(path: Path) -> tuple[str, ...]:
    """The logical names of the libraries ``path`` (a ``.vo``) was compiled against, as Coq
    records them: every library loaded when it was compiled (not only those it names), the
    Prelude included unless it was compiled with ``-noinit``. Only the summary segment is read.
    Cached per path: the installed ``.vo`` files a process reads do not change under it."""
    summary = _summary(path)
    try:
        return tuple(".".join(reversed(_dirpath(name))) for name, _digest in summary[1])  # type: ignore[index]
    except (IndexError, TypeError, ValueError) as exc:
        raise VoFormatError(f"{path}: cannot read its summary of dependencies ({exc})") from None


def vo_name(path: Path) -> str:
    """The logical name ``path`` (a ``.vo``) was compiled as (``P.A``), as its summary records it:
    what the file is, whatever name the directory it sits in is bound to now. Not cached: a
    project's files change under a process."""
    try:
        return ".".join(reversed(_dirpath(_summary(path)[0])))  # type: ignore[index]
    except (IndexError, TypeError, ValueError) as exc:
        raise VoFormatError(f"{path}: cannot read the name it was compiled as ({exc})") from None


def _summary(path: Path) -> object:
    """The unmarshalled summary segment of the ``.vo`` at ``path`` (``(md_name, md_deps, md_ocaml)``)."""
    with path.open("rb") as f:
        head = f.read(16 + 32)
        if head[:4] != MAGIC or len(head) < 16 + 20:
            raise VoFormatError(f"{path}: not a compiled Coq file (no {MAGIC!r} header)")
        magic, = struct.unpack_from(">I", head, 16)
        size = (20 + struct.unpack_from(">I", head, 20)[0] if magic == _SMALL_HEADER
                else 32 + struct.unpack_from(">Q", head, 24)[0])
        data = head[16:] + f.read(max(0, size - len(head) + 16))
    try:
        return unmarshal(data)
    except (IndexError, TypeError, ValueError, struct.error) as exc:
        raise VoFormatError(f"{path}: cannot read its summary ({exc})") from None


def compiled_noinit(vo: Path, contrib: Path, library: str) -> bool:
    """Whether the file of the installed library ``library`` (its top logical name) compiled
    into ``vo`` was compiled with ``-noinit``, its dependencies looked up in ``contrib``
    (``user-contrib``).

    It was when it does not depend on the Prelude. It was too when it depends on a file of
    another library that was (the stdlib's ``Init/`` aside, which defines the Prelude): HoTT and
    UniMath ask every file built on them to be compiled with ``-noinit``, since the Prelude's
    notations clash with theirs, and a file that loads the Prelude through a file of its own
    library (Equations' HoTT part, through ``Equations.Init``) then depends on it without
    importing it; opening such a file without ``-noinit`` imports the Prelude and fails on the
    first clash. A file that depends on a ``-noinit`` file of its own library says nothing by
    that: a library may compile its foundations so and the rest with the Prelude.
    """
    deps = vo_dependencies(vo)
    return PRELUDE not in deps or any(_noinit_library(contrib, d) for d in deps
                                      if d.split(".")[0] not in ("Coq", library))


@functools.lru_cache(maxsize=8192)
def _noinit_library(contrib: Path, module: str) -> bool:
    """Whether the installed library file ``module`` was compiled without depending on the Prelude."""
    vo = contrib.joinpath(*module.split(".")).with_suffix(".vo")
    return vo.is_file() and PRELUDE not in vo_dependencies(vo)


def _dirpath(value: object) -> list[str]:
    """A marshalled OCaml list of strings (``a :: b :: []``) as a Python list."""
    out: list[str] = []
    while value != 0:
        if not isinstance(value, list) or len(value) != 2 or not isinstance(value[0], bytes):
            raise ValueError(f"not a dirpath: {value!r:.80}")
        out.append(value[0].decode())
        value = value[1]
    return out


_SMALL_HEADER = 0x8495A6BE
_BIG_HEADER = 0x8495A6BF


def unmarshal(data: bytes, offset: int = 0) -> object:
    """The OCaml value marshalled at ``offset`` of ``data``: an int, ``bytes`` for a string, a
    float, or a list of fields for a block (its tag is not kept: the values read here need none).
    Custom blocks (int32/int64/bigarrays) and code pointers are refused: summaries hold none."""
    magic, = struct.unpack_from(">I", data, offset)
    if magic == _SMALL_HEADER:
        pos = offset + 20
    elif magic == _BIG_HEADER:
        pos = offset + 32
    else:
        raise ValueError(f"no OCaml marshal header at byte {offset}")
    objects: list[object] = []  # values that a shared reference may point back at, in order
    value, _ = _read(data, pos, objects)
    return value


def _read(data: bytes, pos: int, objects: list[object]) -> tuple[object, int]:
    """One value at ``pos``: (value, position after it). Blocks are filled in place, so that a
    shared reference to a block being read sees the same list object."""
    code = data[pos]
    pos += 1
    if code >= 0x80:  # small block: tag in the low 4 bits, size in the next 3
        return _block((code >> 4) & 0x7, data, pos, objects)
    if code >= 0x40:
        return code & 0x3F, pos
    if code >= 0x20:
        return _string(data, pos, code & 0x1F, objects)
    if code in _INTS:
        fmt = _INTS[code]
        return struct.unpack_from(fmt, data, pos)[0], pos + struct.calcsize(fmt)
    if code in _SHARED:
        fmt = _SHARED[code]
        back = struct.unpack_from(fmt, data, pos)[0]
        return objects[len(objects) - back], pos + struct.calcsize(fmt)
    if code == 0x08:  # BLOCK32: header word with the size above bit 10
        header, = struct.unpack_from(">I", data, pos)
        return _block(header >> 10, data, pos + 4, objects)
    if code == 0x13:  # BLOCK64
        header, = struct.unpack_from(">Q", data, pos)
        return _block(header >> 10, data, pos + 8, objects)
    if code in _STRINGS:
        fmt = _STRINGS[code]
        length = struct.unpack_from(fmt, data, pos)[0]
        return _string(data, pos + struct.calcsize(fmt), length, objects)
    if code in (0x0B, 0x0C):  # a double, big- or little-endian
        value = struct.unpack_from(">d" if code == 0x0B else "<d", data, pos)[0]
        objects.append(value)
        return value, pos + 8
    raise ValueError(f"unsupported OCaml marshal code {code:#x} at byte {pos - 1}")


_INTS = {0x00: ">b", 0x01: ">h", 0x02: ">i", 0x03: ">q"}
_SHARED = {0x04: ">B", 0x05: ">H", 0x06: ">I", 0x14: ">Q"}
_STRINGS = {0x09: ">B", 0x0A: ">I", 0x15: ">Q"}


def _string(data: bytes, pos: int, length: int, objects: list[object]) -> tuple[bytes, int]:
    value = data[pos:pos + length]
    if len(value) != length:
        raise ValueError("a string runs past the end of the data")
    objects.append(value)
    return value, pos + length


def _block(size: int, data: bytes, pos: int, objects: list[object]) -> tuple[object, int]:
    if size == 0:  # an atom (a constant constructor with arguments none): not shared
        return [], pos
    fields: list[object] = []
    objects.append(fields)
    for _ in range(size):
        value, pos = _read(data, pos, objects)
        fields.append(value)
    return fields, pos
