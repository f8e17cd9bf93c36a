"""A run directory is untrusted input: no name in it leads a command outside it.

Each test plants what a copied or hostile run directory can hold (a symlink to a file or directory
of the user's, a leftover temporary name, a record naming a file elsewhere, a FIFO, a mistyped
field) and requires the real ``eval``, ``report`` and :mod:`search_tree.safe_files` code either to
refuse it with one line and exit 2, or to go on without touching anything outside the directory.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from prover.cli import main
from prover.run.evaluation import CorruptResults, ResultsFile
from search_tree.errors import UserError
from search_tree.safe_files import UnsafePath, make_dir, open_file, read_regular, replace_file

EVAL = ["eval", "--env", "synthetic", "--benchmark", "synthetic:2", "--generator", "fixed", "--generator-opt",
        'tactics=["intro","split","auto"]', "--timeout", "5", "--workers", "1", "--no-progress"]
LEGACY = Path(__file__).parents[1] / "fixtures" / "legacy_runs" / "best_first"


def _one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str], *words: str) -> str:
    assert main(argv) == 2, argv
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and all(w in err[0] for w in words), err
    return err[0]


def _snapshot(path: Path) -> dict[str, bytes]:
    """Every file under ``path`` (or ``path`` itself) with its bytes, links not followed."""
    if path.is_file():
        return {path.name: path.read_bytes()}
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


@pytest.fixture
def unfinished(tmp_path: Path) -> Path:
    """A finished ``eval`` run with its last result line taken away, so a resume runs one attempt
    (and appends to starts.jsonl and results.jsonl, and writes a log)."""
    out = tmp_path / "run1"
    assert main([*EVAL, "--out", str(out)]) == 0
    lines = (out / "results.jsonl").read_text().splitlines(keepends=True)
    (out / "results.jsonl").write_text("".join(lines[:-1]))
    return out


@pytest.mark.parametrize("name", ["results.jsonl", "starts.jsonl", "config.json", "logs"])
def test_resume_refuses_a_run_entry_that_is_a_symlink_and_leaves_its_target_alone(unfinished, tmp_path, capsys, name):
    """Fails if eval resumes into a run whose results.jsonl (its torn-looking tail was cut from the
    user's file), starts.jsonl (appended to), config.json or logs (a log was written into the
    user's directory) is a symlink to something outside, instead of refusing with one line."""
    entry = unfinished / name
    outside = tmp_path / f"users-{name}"
    if entry.is_dir():
        shutil.copytree(entry, outside)
        shutil.rmtree(entry)
    else:
        outside.write_bytes(entry.read_bytes() + (b'{"looks": "torn' if name == "results.jsonl" else b""))
        entry.unlink()
    entry.symlink_to(outside)
    before = _snapshot(outside)
    _one_line_error(capsys, [*EVAL, "--out", str(unfinished)], str(entry), "symlink")
    assert _snapshot(outside) == before


def test_a_dangling_lock_link_creates_no_file_outside(unfinished, tmp_path, capsys):
    """Fails if a ``.lock`` that is a symlink to a path that does not exist makes eval create that
    file outside the run directory."""
    (unfinished / ".lock").unlink()
    (unfinished / ".lock").symlink_to(tmp_path / "created-outside")
    _one_line_error(capsys, [*EVAL, "--out", str(unfinished)], ".lock", "symlink")
    assert not (tmp_path / "created-outside").exists()


def test_a_leftover_temporary_name_is_never_written_through(tmp_path, capsys):
    """Fails if the atomic write of config.json or of a log opens a fixed ``NAME.tmp``: a link of
    that name to a user's file had the file overwritten (and then moved into the run)."""
    out = tmp_path / "run"
    out.mkdir()
    mine = tmp_path / "mine.txt"
    mine.write_text("the user's file")
    (out / "config.json.tmp").symlink_to(mine)
    assert main([*EVAL, "--out", str(out)]) == 0
    logs = sorted((out / "logs").iterdir())
    (out / "results.jsonl").write_text("".join((out / "results.jsonl").read_text().splitlines(keepends=True)[:-1]))
    for log in logs:
        log.unlink()
        log.with_name(log.name + ".tmp").symlink_to(mine)
    assert main([*EVAL, "--out", str(out)]) == 0
    assert mine.read_text() == "the user's file"
    assert json.loads((out / "config.json").read_text())["run"]["benchmark"] == "synthetic:2"


@pytest.fixture
def legacy(tmp_path: Path) -> Path:
    out = tmp_path / "run"
    shutil.copytree(LEGACY, out)
    return out


def test_report_replaces_symlinked_files_instead_of_writing_through_them(legacy, tmp_path):
    """Fails if ``report`` writes report.md, a plot or a tree page through a symlink of that name
    to a file of the user's, rather than putting a new file in its place."""
    assert main(["report", str(legacy)]) == 0
    written = [legacy / "report.md", *sorted((legacy / "plots").iterdir()), *sorted((legacy / "trees").iterdir())]
    assert len(written) >= 5
    for n, path in enumerate(written):
        (tmp_path / f"mine{n}").write_text("the user's file")
        path.unlink()
        path.symlink_to(tmp_path / f"mine{n}")
    assert main(["report", str(legacy)]) == 0
    assert all((tmp_path / f"mine{n}").read_text() == "the user's file" for n in range(len(written)))
    assert not any(p.is_symlink() for p in written) and "# Run report" in (legacy / "report.md").read_text()


@pytest.mark.parametrize("name", ["plots", "trees"])
def test_report_refuses_an_output_directory_that_is_a_symlink(legacy, tmp_path, capsys, name):
    """Fails if ``report`` writes plots or tree pages into a directory outside the run that a
    symlink ``plots`` or ``trees`` points to."""
    (tmp_path / "outside").mkdir()
    (legacy / name).symlink_to(tmp_path / "outside")
    _one_line_error(capsys, ["report", str(legacy)], str(legacy / name), "symlink")
    assert list((tmp_path / "outside").iterdir()) == []


def _edit_first_record(run: Path, edit) -> None:  # type: ignore[no-untyped-def]
    lines = (run / "results.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    edit(first)
    (run / "results.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")


@pytest.mark.parametrize("log", ["/etc/hostname", "../secret.jsonl", "logs/../../secret.jsonl", "logs/a/b.jsonl",
                                 "logs/..", "results.jsonl", 5, ["a"], {"x": 1}])
def test_a_log_field_that_names_a_file_outside_logs_is_a_corrupt_record(legacy, tmp_path, log):
    """Fails if a record's ``log`` may name a file outside ``logs/`` (an absolute path, ``..``): the
    report read it and copied it into trees/*.html. Also a ``log`` that is not a string (5, a list)
    gave a traceback."""
    (tmp_path / "secret.jsonl").write_text('{"event": "state", "state": 0, "goals": "SECRET"}\n')
    _edit_first_record(legacy, lambda r: r.update(log=log))
    with pytest.raises(CorruptResults, match=":1 is a record whose log is"):
        ResultsFile(legacy / "results.jsonl").load()
    assert main(["report", str(legacy)]) == 0
    assert not any("SECRET" in p.read_text() for p in (legacy / "trees").iterdir())


@pytest.mark.parametrize("kind", ["fifo", "symlink", "directory"])
def test_a_log_that_is_not_a_regular_file_in_logs_is_left_out(legacy, tmp_path, capsys, kind):
    """Fails if the report opens a log that is a FIFO (it hung), a symlink out of the run (its
    target was copied into the tree page) or a directory, instead of leaving it out with a warning."""
    (tmp_path / "secret.jsonl").write_text('{"event": "state", "state": 0, "goals": "SECRET"}\n')
    log = legacy / json.loads((legacy / "results.jsonl").read_text().splitlines()[0])["log"]
    log.unlink()
    {"fifo": lambda: os.mkfifo(log), "symlink": lambda: log.symlink_to(tmp_path / "secret.jsonl"),
     "directory": log.mkdir}[kind]()
    assert main(["report", str(legacy)]) == 0
    assert f"warning: {log} is " in capsys.readouterr().err
    assert not any("SECRET" in p.read_text() for p in (legacy / "trees").iterdir())


def test_a_logs_directory_that_is_a_symlink_is_not_read_by_the_report(legacy, tmp_path, capsys):
    """Fails if the report reads the logs of a ``logs`` that is a symlink to a directory elsewhere."""
    shutil.move(legacy / "logs", tmp_path / "elsewhere")
    (legacy / "logs").symlink_to(tmp_path / "elsewhere")
    assert main(["report", str(legacy)]) == 0
    assert f"warning: {legacy / 'logs'} is a symlink" in capsys.readouterr().err


@pytest.mark.parametrize("edit, problem", [
    (lambda r: r.update(retries="x"), 'retries is "x"'),
    (lambda r: r.update(retries=-1), "retries is -1"),
    (lambda r: (r.update(retries=None), r.pop("retry_reasons")), "retries is null"),
    (lambda r: r.update(retry_reasons=5), "retry_reasons is 5"),
    (lambda r: r.update(retry_reasons=[1]), "retry_reasons is [1]"),
    (lambda r: r["result"].update(stats={"premises": 5}), "result.stats.premises is 5"),
    (lambda r: r["result"].update(stats={"premises": {"retrieved": "a", "used": 1}}), "result.stats.premises is"),
])
def test_a_mistyped_field_is_a_corrupt_record_and_report_says_so_in_one_line(legacy, capsys, edit, problem):
    """Fails if a record whose retries, retry_reasons or premise counts have another type passes
    the record check: report then died with a TypeError (exit 1) instead of skipping the line."""
    _edit_first_record(legacy, edit)
    with pytest.raises(CorruptResults, match=":1 is a record whose " + problem.replace("[", r"\[")):
        ResultsFile(legacy / "results.jsonl").load()
    assert main(["report", str(legacy)]) == 0
    assert "skipped" in capsys.readouterr().err
    assert "| corrupt result lines skipped | 1 |" in (legacy / "report.md").read_text()


@pytest.mark.parametrize("part", ["env", "prover", "generator", "retriever"])
def test_a_config_without_a_component_is_one_line(legacy, capsys, part):
    """Fails if a config.json whose ``run.components`` lacks one of the four components passes
    ``read_config``: report died with a KeyError."""
    config = json.loads((legacy / "config.json").read_text())
    del config["run"]["components"][part]
    (legacy / "config.json").write_text(json.dumps(config))
    _one_line_error(capsys, ["report", str(legacy)], "has no components 'run.components'", part)
    assert not (legacy / "report.md").exists()


# --- the helpers themselves ------------------------------------------------------------------------

def test_the_safe_file_helpers_never_follow_a_link(tmp_path):
    """Fails if replace_file writes through a link (or leaves a temporary file), if open_file,
    make_dir or read_regular follow one, or if read_regular waits on a FIFO."""
    mine = tmp_path / "mine"
    mine.write_text("mine")
    link = tmp_path / "link"
    link.symlink_to(mine)
    replace_file(link, b"new", mode=0o640)
    assert mine.read_text() == "mine" and not link.is_symlink() and link.read_bytes() == b"new"
    assert link.stat().st_mode & 0o777 == 0o640 and sorted(p.name for p in tmp_path.iterdir()) == ["link", "mine"]
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    with pytest.raises(UnsafePath, match="dangling is a symlink"):
        open_file(tmp_path / "dangling", os.O_WRONLY | os.O_CREAT)
    assert not (tmp_path / "nowhere").exists()
    (tmp_path / "dir-link").symlink_to(tmp_path)
    with pytest.raises(UnsafePath, match="dir-link is a symlink"):
        make_dir(tmp_path / "dir-link")
    with pytest.raises(UnsafePath, match="dir-link is a symlink"):
        make_dir(tmp_path / "dir-link" / "sub", under=tmp_path)
    assert make_dir(tmp_path / "a" / "b", under=tmp_path).is_dir()
    with pytest.raises(UnsafePath, match="mine is not a directory"):
        make_dir(tmp_path / "mine")
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(UnsafePath, match="fifo is not a regular file"):
        read_regular(tmp_path / "fifo")
    with pytest.raises(UnsafePath, match="is a symlink"):
        read_regular(tmp_path / "dangling")
    assert read_regular(tmp_path / "absent") is None and read_regular(mine) == b"mine"
    assert issubclass(UnsafePath, UserError)


def test_fill_admitted_out_dot_names_a_directory_with_a_name(tmp_path, monkeypatch):
    """Fails if ``--out .`` keeps an empty name (``OUT.diff`` beside it crashed with a ValueError),
    or if a symlinked ``--out`` is resolved to its target (the patch would land beside that)."""
    from prover.commands.fill_admitted import out_dir

    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    assert out_dir(".") == tmp_path / "work" and out_dir("sub/..") == tmp_path / "work"
    (tmp_path / "link").symlink_to(tmp_path / "work")
    assert out_dir(str(tmp_path / "link")) == tmp_path / "link"
    with pytest.raises(UserError, match="cannot be the root"):
        out_dir("/")


@pytest.mark.parametrize("plant", ["outside", "fifo", "symlink", "linked-logs"])
def test_learning_reads_no_action_log_outside_the_run(legacy, tmp_path, plant):
    """``learn --add-run`` reads a run's action logs the same way (generator.action_data.run_logs):
    fails if a record's ``log`` naming a file outside, a FIFO (a hang), a symlink out of the run or
    a symlinked ``logs`` is read rather than refused with one line."""
    from generator.action_data import ActionLogError, read_run

    (tmp_path / "secret.jsonl").write_text('{"event": "start", "theorem": "SECRET"}\n')
    log = legacy / json.loads((legacy / "results.jsonl").read_text().splitlines()[0])["log"]
    if plant == "outside":
        _edit_first_record(legacy, lambda r: r.update(log="../secret.jsonl"))
    elif plant == "fifo":
        log.unlink()
        os.mkfifo(log)
    elif plant == "symlink":
        log.unlink()
        log.symlink_to(tmp_path / "secret.jsonl")
    else:
        shutil.move(legacy / "logs", tmp_path / "elsewhere")
        (legacy / "logs").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ActionLogError) as refused:
        read_run(legacy)
    assert "\n" not in str(refused.value) and "SECRET" not in str(refused.value)
