"""The Coq backend's untrusted files, read without Coq: a benchmark listing, a ``_CoqProject`` and a
dune file, a per-file trace cache. Each bad one is one line naming it (no traceback), a FIFO is
never waited on and a link never followed; a cache that cannot be read is warned about and redone."""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from types import SimpleNamespace

import pytest

from prover.coq.project import ProjectError, load_project
from prover.coq.split import listed_theorems
from prover.coq.tracer import TRACE_FORMAT, _cache_path, _load_cached
from search_tree.errors import UserError

SECRET = "root:x:0:0:secret-line\n"


def _secret(tmp_path: Path) -> Path:
    path = tmp_path / "secret"
    path.write_text(SECRET)
    return path


def _one_line(exc: BaseException, *named: str) -> str:
    message = str(exc)
    assert "\n" not in message and all(n in message for n in named), message
    assert "secret-line" not in message
    return message


@pytest.mark.parametrize("text, problem", [
    ("5", "expected a JSON list"),
    ("NaN", "expected a JSON list"),
    ('{"project": "p", "file": "A.v", "name": "x"}', "expected a JSON list"),
    ("[5]", "entry 1: expected an object"),
    ('[{"project": 5, "file": "A.v", "name": "x"}]', "entry 1: expected an object"),
    ('[{"project": "p", "file": 5, "name": "x"}]', "entry 1: expected an object"),
    ('[{"project": "p", "file": "A.v", "name": ["y"]}]', "entry 1: expected an object"),
    ('[{"project": "p", "file": "A.v", "name": "x", "flags": 5}]', "entry 1: flags must be a list of strings"),
    ('[{"project": "p", "file": "A.v", "name": "x", "flags": ["-Q", 5]}]', "entry 1: flags must be"),
    pytest.param("[" * 100000 + "]" * 100000, "not valid JSON", id="nested-100000-deep"),
    ("[{", "not valid JSON"),
])
def test_a_listing_of_another_shape_is_one_line_naming_it_and_the_entry(tmp_path, text, problem):
    """Fails if a ``--benchmark FILE.json`` whose top level or entries are of another shape ends in
    a ``TypeError``/``AttributeError`` (or a RecursionError) instead of one line naming the file
    and the entry."""
    listing = tmp_path / "bench.json"
    listing.write_text(text)
    with pytest.raises(UserError) as caught:
        listed_theorems(str(listing))
    _one_line(caught.value, str(listing), problem)


def test_a_jsonl_listing_names_its_bad_line_and_entry(tmp_path):
    """Fails if a JSONL entry of another shape, or a line that is not JSON, is not named."""
    listing = tmp_path / "bench.jsonl"
    good = json.dumps({"project": "p", "file": "A.v", "name": "x", "flags": 7})
    listing.write_text("\n" + good + "\n")
    with pytest.raises(UserError) as caught:
        listed_theorems(str(listing))
    _one_line(caught.value, str(listing), "entry 1: flags must be a list of strings")
    listing.write_text(good.replace("7", '["-Q", "t", "P"]') + "\nnot json\n")
    with pytest.raises(UserError) as caught:
        listed_theorems(str(listing))
    _one_line(caught.value, str(listing), "line 2 is not valid JSON")


@pytest.mark.parametrize("kind", ["fifo", "link", "directory", "not-utf8", "missing"])
def test_a_listing_that_is_no_regular_text_file_is_refused_without_waiting(tmp_path, kind):
    """Fails if a listing that is a FIFO hangs (the test would time out), a link is followed (the
    secret's text would be parsed, and quoted), or a directory, missing file or non-UTF-8 bytes
    end in a traceback."""
    listing = tmp_path / "bench.json"
    {"fifo": lambda: os.mkfifo(listing), "link": lambda: listing.symlink_to(_secret(tmp_path)),
     "directory": listing.mkdir, "not-utf8": lambda: listing.write_bytes(b"[\xff]"),
     "missing": lambda: None}[kind]()
    with pytest.raises(UserError) as caught:
        listed_theorems(str(listing))
    _one_line(caught.value, str(listing))


def _project(tmp_path: Path, coqproject: str = "-Q theories P\ntheories/A.v\n") -> Path:
    root = tmp_path / "proj"
    (root / "theories").mkdir(parents=True)
    (root / "theories" / "A.v").write_text("Lemma a : True. Proof. exact I. Qed.\n")
    (root / "_CoqProject").write_text(coqproject)
    return root


@pytest.mark.parametrize("kind", ["link", "fifo", "dangling-link"])
def test_a_coqproject_that_is_no_regular_file_is_refused_before_it_is_read(tmp_path, kind, recwarn):
    """Fails if a ``_CoqProject`` that links to a file outside is followed (its lines come back as
    warnings quoting it: "ignoring 'root:x:0:0...'"), or one that is a FIFO hangs or is taken as
    no ``_CoqProject`` at all."""
    root = _project(tmp_path)
    (root / "_CoqProject").unlink()
    {"link": lambda: (root / "_CoqProject").symlink_to(_secret(tmp_path)),
     "fifo": lambda: os.mkfifo(root / "_CoqProject"),
     "dangling-link": lambda: (root / "_CoqProject").symlink_to(tmp_path / "nowhere")}[kind]()
    load_project.cache_clear()
    with pytest.raises(ProjectError) as caught:
        load_project(str(root))
    _one_line(caught.value, str(root / "_CoqProject"))
    assert not [w for w in recwarn if "secret-line" in str(w.message)]


@pytest.mark.parametrize("name", ["dune-project", "theories/dune"])
def test_a_dune_file_that_is_a_link_is_refused(tmp_path, name):
    """Fails if a ``dune-project`` or ``dune`` file that links elsewhere is read through (or, for
    ``dune-project``, silently taken as no dune project)."""
    root = tmp_path / "proj"
    (root / "theories").mkdir(parents=True)
    (root / "theories" / "A.v").write_text("Lemma a : True. Proof. exact I. Qed.\n")
    (root / "dune-project").write_text("(lang dune 3.8)\n(using coq 0.8)\n")
    (root / "theories" / "dune").write_text("(coq.theory (name P))\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text((root / name).read_text())
    (root / name).unlink()
    (root / name).symlink_to(elsewhere)
    load_project.cache_clear()
    with pytest.raises(UserError) as caught:
        load_project(str(root))
    _one_line(caught.value, str(root / name), "symlink")


def test_a_listed_file_under_no_load_path_is_a_project_error_at_load(tmp_path):
    """Fails if ``-Q /etc Foo`` with ``theories/A.v`` listed loads, leaving a plain ``ValueError``
    ("under no -Q/-R directory") to the first command that names the file."""
    root = _project(tmp_path, "-Q /etc Foo\ntheories/A.v\n")
    load_project.cache_clear()
    with pytest.raises(ProjectError) as caught:
        load_project(str(root))
    _one_line(caught.value, str(root / "_CoqProject"), "theories/A.v is under no -Q/-R directory")


# --- the tracer's per-file cache ------------------------------------------------------------------

def _cache_variants(tmp_path: Path) -> dict:
    secret = _secret(tmp_path)
    return {
        "garbage": lambda p: p.write_text("garbage{"),
        "list": lambda p: p.write_text("[1]"),
        "not-utf8": lambda p: p.write_bytes(b'{"format": "\xff"}'),
        "fifo": lambda p: os.mkfifo(p),
        "link": lambda p: p.symlink_to(secret),
        "bad-theorems": lambda p: p.write_text(json.dumps({"format": TRACE_FORMAT, "sha1": "abc", "theorems": [5],
                                                                "error": None})),
    }


@pytest.mark.parametrize("variant", ["garbage", "list", "not-utf8", "fifo", "link", "bad-theorems"])
def test_an_unusable_trace_cache_is_warned_about_and_traced_again(tmp_path, variant):
    """Fails if a per-file trace cache that is not a trace (garbage, ``[1]``, bytes that are not
    UTF-8, a trace of another shape) raises, a FIFO hangs, or a link to another file is followed:
    each must read as "not traced", with a warning naming the cache."""
    index = SimpleNamespace(file=lambda path: SimpleNamespace(sha1="abc"))
    out = tmp_path / "trace"
    cache = _cache_path(out, "theories/C.v")
    cache.parent.mkdir(parents=True)
    _cache_variants(tmp_path)[variant](cache)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert _load_cached(out, index, "theories/C.v") is None  # type: ignore[arg-type]
    assert [str(cache) in str(w.message) and "tracing the file again" in str(w.message) for w in caught] == [True]
    assert not any("secret-line" in str(w.message) for w in caught)


def test_a_stale_or_current_trace_cache_is_read_without_a_warning(tmp_path):
    """Fails if a trace of another source (stale: traced again, silently) warns, or a current one
    is not returned."""
    index = SimpleNamespace(file=lambda path: SimpleNamespace(sha1="abc"))
    cache = _cache_path(tmp_path, "C.v")
    cache.parent.mkdir(parents=True)
    current = {"format": TRACE_FORMAT, "sha1": "abc", "theorems": [], "error": None, "skipped": []}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cache.write_text(json.dumps({**current, "sha1": "old"}))
        assert _load_cached(tmp_path, index, "C.v") is None  # type: ignore[arg-type]
        cache.write_text(json.dumps(current))
        assert _load_cached(tmp_path, index, "C.v") == current  # type: ignore[arg-type]
