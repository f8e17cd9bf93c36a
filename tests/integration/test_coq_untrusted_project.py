"""A Coq project's files and the caches built from them, as untrusted input through the real index,
tracer and command line: a ``.v`` that is a FIFO or not UTF-8 is one line naming it, a corrupt
index cache or trace cache is warned about once and rebuilt, and a ``_CoqProject`` that links
elsewhere is refused before a line of it is read."""

from __future__ import annotations

import json
import os
import shutil
import warnings
from pathlib import Path

import pytest

from prover.cli import main
from prover.coq.project import load_project

FIXTURE = Path(__file__).parents[1] / "fixtures" / "coqproj"
SECRET = "root:x:0:0:secret-line\n"


@pytest.fixture
def proj(tmp_path, private_cache):
    root = tmp_path / "coqproj"
    shutil.copytree(FIXTURE, root)
    load_project.cache_clear()
    return root


def _fill(root: Path, out: Path) -> int:
    return main(["fill-admitted", str(root), "--out", str(out), "--timeout", "20", "--no-progress",
                 "--generator", "fixed", "--generator-opt", 'tactics=["auto."]'])


@pytest.mark.timeout(120)
@pytest.mark.parametrize("kind", ["fifo", "not-utf8"])
def test_a_project_source_that_is_a_fifo_or_not_utf8_is_one_line_naming_it(proj, tmp_path, capsys, kind):
    """Fails if ``fill-admitted`` on a project whose ``.v`` is a FIFO waits for a writer forever
    (the timeout fails it), or one whose ``.v`` holds bytes that are not UTF-8 ends in a
    ``UnicodeDecodeError`` traceback, instead of exit 2 with one line naming the file."""
    source = proj / "theories" / "C.v"
    source.unlink()
    if kind == "fifo":
        os.mkfifo(source)
    else:
        source.write_bytes(b"Lemma c : True. Proof. exact I. Qed.\n(* \xff\xfe *)\n")
    assert _fill(proj, tmp_path / "run") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "theories/C.v" in err and "Traceback" not in err, err


@pytest.mark.parametrize("content", [b"garbage{", b"[1,2]", b'{"files": [1]}', b"\xff\xfe"])
def test_a_corrupt_index_cache_is_warned_about_once_and_rebuilt(proj, content):
    """Fails if a cached index that is not an index (corrupt JSON, another shape) crashes every
    command that loads the project, instead of one warning naming it and an index built again
    and written over it."""
    from prover.coq.index import load_index
    from prover.coq.install import cache_dir

    project = load_project(str(proj))
    expected = sorted(load_index(project, progress=False).files)
    (cache,) = cache_dir().glob(f"index-*-{project.key}-*.json")
    cache.write_bytes(content)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert sorted(load_index(project, progress=False).files) == expected
    warned = [str(w.message) for w in caught if "index cache" in str(w.message)]
    assert len(warned) == 1 and str(cache) in warned[0] and "rebuilding it" in warned[0], warned
    assert sorted(f["path"] for f in json.loads(cache.read_text())["files"]) == expected


@pytest.mark.timeout(300)
@pytest.mark.parametrize("variant", ["garbage", "fifo", "link"])
def test_a_bad_trace_cache_is_traced_again_never_read_through(proj, tmp_path, variant):
    """Fails if a per-file trace cache that is garbage, a FIFO or a link to another file crashes
    the trace, hangs, or is read through (the link's target would be parsed; with a trace's shape,
    copied into the splits): the file is traced again, in place of the bad cache, with a warning."""
    from prover.coq.tracer import _cache_path, ensure_traced

    out = tmp_path / "trace"
    project = load_project(str(proj))
    ensure_traced(["theories/C.v"], out_dir=out, progress=False, project=project)
    cache = _cache_path(out, "theories/C.v")
    good = json.loads(cache.read_text())
    secret = tmp_path / "secret"
    secret.write_text(json.dumps({**good, "theorems": [{"traced_tactics": [], "secret": SECRET}]}))
    cache.unlink()
    {"garbage": lambda: cache.write_text("garbage{"), "fifo": lambda: os.mkfifo(cache),
     "link": lambda: cache.symlink_to(secret)}[variant]()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        summary = ensure_traced(["theories/C.v"], out_dir=out, progress=False, project=project)
    assert summary.traced == 1 and not cache.is_symlink() and cache.is_file()
    assert json.loads(cache.read_text())["theorems"] == good["theorems"]
    assert any(str(cache) in str(w.message) for w in caught)
    assert "secret-line" not in "".join((out / f"{s}.json").read_text() for s in ("train", "val", "test"))
    assert "secret-line" in secret.read_text()


def test_a_coqproject_linked_elsewhere_is_refused_by_fill_admitted_in_one_line(proj, tmp_path, capsys):
    """Fails if ``fill-admitted`` follows a ``_CoqProject`` that is a link to another file: its
    lines came back as dozens of warnings quoting the file, instead of one refusal."""
    secret = tmp_path / "passwd"
    secret.write_text(SECRET * 30)
    (proj / "_CoqProject").unlink()
    (proj / "_CoqProject").symlink_to(secret)
    assert _fill(proj, tmp_path / "run") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "_CoqProject is a symlink" in err and "secret-line" not in err, err


def test_a_checkpoint_the_user_named_that_is_missing_fails_the_run_before_it_starts(tmp_path, capsys):
    """Fails if ``--generator-opt policy=PATH`` naming no checkpoint only warns and the run goes
    on, its config.json recording a policy it never loaded: exit 2, one line naming it and the
    command that rebuilds it, and no run directory written."""
    from generator.learned_policy import REBUILD

    policy, out = tmp_path / "nosuch.pt", tmp_path / "run"
    code = main(["eval", "--env", "coq", "--benchmark", "coq-stdlib:test", "--limit", "1", "--timeout", "5",
                 "--no-progress", "--generator", "coq_default", "--generator-opt", f"policy={policy}",
                 "--generator-opt", "learned=false", "--generator-opt", "hammer=false", "--out", str(out)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1, err
    assert str(policy) in err and REBUILD in err and "warning" not in err
    assert not (out / "config.json").exists()
