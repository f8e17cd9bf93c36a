"""Reading what a compiled Coq file records about its compilation (:mod:`prover.coq.vo`), on
``.vo`` bytes written here in Coq 8.16's layout: whether it was compiled without the Prelude."""

from __future__ import annotations

import struct

import pytest

from prover.coq.vo import PRELUDE, VoFormatError, compiled_noinit, unmarshal, vo_dependencies, vo_name


def _string(s: str) -> bytes:
    data = s.encode()
    return bytes([0x20 | len(data)]) + data if len(data) < 32 else bytes([0x09, len(data)]) + data


def _block(*fields: bytes, tag: int = 0) -> bytes:
    return bytes([0x80 | tag | len(fields) << 4]) + b"".join(fields)


def _dirpath(name: str) -> bytes:
    """An OCaml list of the identifiers of ``name``, innermost first (Coq's DirPath.t)."""
    out = b"\x40"  # []
    for ident in name.split("."):
        out = _block(_string(ident), out)
    return out


def _marshal(value: bytes) -> bytes:
    return struct.pack(">IIIII", 0x8495A6BE, len(value), 0, 0, 0) + value


def _vo(path, name: str, deps: list[str]) -> None:
    """A ``.vo`` whose summary segment is ``{md_name; md_deps; md_ocaml}``; ``deps`` in the
    array as (dirpath, Dvo_or_vi digest) pairs. Only the summary is read, so nothing follows."""
    array = bytes([0x08]) + struct.pack(">I", len(deps) << 10) + b"".join(
        _block(_dirpath(d), _block(_string("0123456789abcdef"))) for d in deps)
    summary = _marshal(_block(_dirpath(name), array, _string("")))
    path.write_bytes(b"Coq!" + struct.pack(">iq", 81601, 0) + summary)


def test_unmarshal_reads_ints_strings_blocks_and_shared_values():
    """Fails if a shared reference (code 0x04) does not point back at the value it names."""
    shared = _block(_string("abc"), bytes([0x04, 1]), bytes([0x01]) + struct.pack(">h", -300))
    assert unmarshal(_marshal(shared)) == [b"abc", b"abc", -300]


def test_dependencies_and_noinit_are_read_from_the_summary(tmp_path):
    """A library depending on the Prelude was compiled without ``-noinit``; one that does not was
    compiled with it, and so was one that depends on such a file of another library (HoTT's
    clients) even when it loads the Prelude through another file; one of the same library's
    does not tell, nor do the stdlib's own ``Init/`` files."""
    contrib = tmp_path
    (contrib / "Bare").mkdir()
    (contrib / "Plain").mkdir()
    _vo(contrib / "Bare" / "Base.vo", "Bare.Base", [])
    _vo(contrib / "Plain" / "Use.vo", "Plain.Use", ["Coq.Init.Notations", PRELUDE])
    _vo(contrib / "Plain" / "OnBare.vo", "Plain.OnBare", ["Coq.Init.Notations", PRELUDE, "Bare.Base"])
    assert vo_dependencies(contrib / "Plain" / "OnBare.vo") == ("Coq.Init.Notations", PRELUDE, "Bare.Base")
    assert vo_name(contrib / "Plain" / "OnBare.vo") == "Plain.OnBare"  # what it was compiled as
    assert compiled_noinit(contrib / "Bare" / "Base.vo", contrib, "Bare")
    assert not compiled_noinit(contrib / "Plain" / "Use.vo", contrib, "Plain")  # Coq.Init.Notations is no reason
    assert compiled_noinit(contrib / "Plain" / "OnBare.vo", contrib, "Plain")
    _vo(contrib / "Bare" / "OnBase.vo", "Bare.OnBase", ["Coq.Init.Notations", PRELUDE, "Bare.Base"])
    assert not compiled_noinit(contrib / "Bare" / "OnBase.vo", contrib, "Bare")  # its own library's: no reason


def test_a_file_that_is_not_a_vo_is_an_error_naming_it(tmp_path):
    bad = tmp_path / "Bad.vo"
    bad.write_bytes(b"not a vo file at all, but long enough to have a header")
    with pytest.raises(VoFormatError, match="Bad.vo: not a compiled Coq file"):
        vo_dependencies(bad)
    truncated = tmp_path / "Cut.vo"
    truncated.write_bytes(b"Coq!" + struct.pack(">iq", 81601, 0) + struct.pack(">IIIII", 0x8495A6BE, 9, 0, 0, 0) + b"\x08")
    with pytest.raises(VoFormatError, match="Cut.vo: cannot read its summary"):
        vo_dependencies(truncated)
