"""A run directory is untrusted input: every way it can be wrong is one line and exit 2, and nothing
in it is changed by a command that refuses it (the legacy fixture runs are real ``eval`` output)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from prover.cli import main
from prover.run.evaluation import ConfigMismatch, CorruptResults, ResultsFile, read_config

RUN = Path(__file__).parents[1] / "fixtures" / "legacy_runs" / "best_first"
EVAL = ["eval", "--env", "synthetic", "--benchmark", "synthetic:30", "--limit", "3", "--generator", "synthetic",
        "--max-expansions", "5", "--no-progress", "--workers", "1"]


@pytest.fixture
def run(tmp_path: Path) -> Path:
    out = tmp_path / "run"
    shutil.copytree(RUN, out)
    return out


def records(run: Path) -> list[str]:
    return (run / "results.jsonl").read_text().splitlines()


def test_a_complete_last_record_without_its_newline_is_kept_and_its_newline_restored(run):
    """Fails if a whole record is dropped (and its attempt run again) only for its missing newline,
    or if the repair does not make the file whole again."""
    whole = (run / "results.jsonl").read_bytes()
    (run / "results.jsonl").write_bytes(whole.rstrip(b"\n"))
    assert len(ResultsFile(run / "results.jsonl").load(repair=True)) == len(records(run))
    assert (run / "results.jsonl").read_bytes() == whole


def test_a_file_with_a_corrupt_line_is_not_repaired(run):
    """Fails if the torn tail of a file that is refused for a corrupt line is cut before the refusal:
    the file is its owner's to repair, whole."""
    lines = records(run)
    damaged = ("not json\n" + "\n".join(lines) + "\n" + lines[0][:30]).encode()
    (run / "results.jsonl").write_bytes(damaged)
    with pytest.raises(CorruptResults, match=":1 is not valid JSON"):
        ResultsFile(run / "results.jsonl").load(repair=True)
    assert (run / "results.jsonl").read_bytes() == damaged


@pytest.mark.parametrize("edit, problem", [
    (lambda r: r.update(key=[1]), "key is [1]"),
    (lambda r: r.update(attempt="0"), 'attempt is "0"'),
    (lambda r: r.update(result="x"), 'result is "x"'),
    (lambda r: r["result"].pop("num_nodes"), "result.num_nodes is null"),
    (lambda r: r["result"].update(total_time="slow"), 'result.total_time is "slow"'),
    (lambda r: r["result"].update(total_time=True), "result.total_time is true"),
    (lambda r: r["result"].update(proof="intros."), "result.proof is not a list"),
    (lambda r: r["result"].update(stats=[]), "result.stats is not an object"),
])
def test_a_record_of_the_wrong_shape_is_a_corrupt_line(run, edit, problem):
    """Fails if a record whose fields the readers use has another type (report and watch then died
    with a KeyError or TypeError) and is not named as a corrupt line."""
    lines = records(run)
    first = json.loads(lines[0])
    edit(first)
    (run / "results.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    with pytest.raises(CorruptResults, match=":1 is a record whose " + problem.replace("[", r"\[")):
        ResultsFile(run / "results.jsonl").load()


@pytest.mark.parametrize("config, problem", [
    ("[]", "is not a JSON object"),
    ("{}", "has no object 'run'"),
    (lambda c: c.pop("theorems"), "has no list of theorem keys"),
    (lambda c: c["run"].update(attempts="abc"), "has no positive whole number 'run.attempts'"),
    (lambda c: c["run"].update(attempts=0), "has no positive whole number 'run.attempts'"),
    (lambda c: c["run"].update(components={"env": "synthetic"}), "has no components"),
    (b"\xff\xfe{}", "is not valid JSON"),
])
def test_a_config_of_the_wrong_shape_is_refused_with_one_line(run, capsys, config, problem):
    """Fails if report, watch or eval meet a config.json that is not a run's (a list, another
    tool's object, a field of another type, bytes that are not UTF-8) with a traceback, or change
    anything in the directory."""
    path = run / "config.json"
    if callable(config):
        data = json.loads(path.read_text())
        config(data)
        path.write_text(json.dumps(data))
    else:
        path.write_bytes(config if isinstance(config, bytes) else config.encode())
    with pytest.raises(ConfigMismatch, match=problem):
        read_config(path)
    before = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}
    for command in (["report", str(run)], ["watch", "--once", str(run)], [*EVAL, "--out", str(run)]):
        assert main(command) == 2, command
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and problem.split("'")[0] in err[0], (command, err)
    assert {p: p.read_bytes() for p in before} == before  # eval leaves only its .lock


def test_results_without_a_config_are_not_resumed_into(run, capsys):
    """Fails if eval adopts (and repairs) the results of a directory whose config.json is gone."""
    (run / "config.json").unlink()
    data = (run / "results.jsonl").read_bytes()
    (run / "results.jsonl").write_bytes(data + b'{"torn')
    assert main([*EVAL, "--out", str(run)]) == 2
    assert "no config.json" in capsys.readouterr().err
    assert (run / "results.jsonl").read_bytes() == data + b'{"torn'


@pytest.mark.parametrize("make", [
    lambda out: out.write_text("a file"),
    lambda out: (out.mkdir(), (out / "results.jsonl").mkdir()),
    lambda out: (out.mkdir(), (out / "logs").write_text("a file")),
])
def test_paths_of_the_wrong_kind_are_one_line(tmp_path, capsys, make):
    """Fails if --out (or what a run writes inside it) being a file where a directory belongs, or the
    other way round, ends in a traceback, or if config.json is written before the refusal."""
    out = tmp_path / "out"
    make(out)
    assert main([*EVAL, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "choose another --out" in err[0], err
    assert not (out / "config.json").exists()


@pytest.mark.parametrize("make", [
    lambda out: out.write_text("a file"),
    lambda out: (out.mkdir(), (out / "results.jsonl").write_text("")),  # results, no config.json
    lambda out: (out.mkdir(), (out / "config.json").symlink_to(out.parent / "elsewhere.json")),
    lambda out: shutil.copytree(RUN, out),  # a run directory of another configuration
])
def test_a_bad_out_is_refused_before_the_first_use_trace(tmp_path, capsys, monkeypatch, make):
    """Fails if ``eval`` of the default prover (no ``--generator``) starts its first-use trace of
    the project (minutes) before refusing an ``--out`` it was always going to refuse, or if the
    refusal is not exit 2 with one line."""
    import prover.commands.eval as eval_command

    traced: list[object] = []
    monkeypatch.setattr(eval_command, "trace_first", lambda *args, **kw: traced.append(args) or 0)
    out = tmp_path / "out"
    make(out)
    assert main(["eval", "--env", "synthetic", "--benchmark", "synthetic:30", "--limit", "3", "--no-progress",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "error:" in err[0], err
    assert traced == []


def test_an_os_error_naming_a_path_is_bad_input_and_one_without_is_a_bug():
    """Fails if a file-system error about a named path (a directory where a file is expected) keeps
    its traceback, or if one that names no path (a bug's) is folded into a line."""
    from prover.cli import is_bad_input

    assert is_bad_input(IsADirectoryError(21, "Is a directory", "runs/x/report.md"))
    assert not is_bad_input(OSError("no path"))


def test_retrieval_eval_never_writes_into_a_directory_it_did_not_write(run, tmp_path, capsys):
    """Fails if retrieval-eval's --output-dir may be an eval run directory (its config.json was
    replaced, and report could no longer read the run) or a file; checked before anything is read."""
    config = (run / "config.json").read_bytes()
    for out in (run, tmp_path / "a-file"):
        (tmp_path / "a-file").write_text("x")
        assert main(["retrieval-eval", "--corpus", "missing.jsonl", "--data", "missing.json", "--output-dir",
                     str(out)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "choose another --output-dir" in err[0], err
    assert (run / "config.json").read_bytes() == config


def test_a_trace_never_replaces_another_projects_trace_or_foreign_files(tmp_path):
    """Fails if tracing into --out may replace files no trace of this project wrote: another
    project's trace (its train.json and corpus.jsonl were silently replaced), other files, a file."""
    from prover.coq.project import load_project
    from prover.coq.tracer import check_trace_dir
    from search_tree.errors import UserError

    project = load_project(str(Path(__file__).parents[1] / "fixtures" / "coqproj"))
    out = tmp_path / "traced"
    check_trace_dir(out, project)  # missing: fine
    out.mkdir()
    (out / "metadata.json").write_text(json.dumps({"project": str(project.root)}))
    (out / "train.json").write_text("[]")
    check_trace_dir(out, project)  # this project's own trace: resumed
    (out / "metadata.json").write_text(json.dumps({"project": "/elsewhere/other"}))
    with pytest.raises(UserError, match="another project"):
        check_trace_dir(out, project)
    (out / "metadata.json").unlink()
    with pytest.raises(UserError, match="no metadata.json"):
        check_trace_dir(out, project)
    (out / "notes.txt").write_text("mine")
    with pytest.raises(UserError, match="holds notes.txt"):
        check_trace_dir(out, project)
    with pytest.raises(UserError, match="not a directory"):
        check_trace_dir(out / "notes.txt", project)


@pytest.mark.parametrize("reader, content, problem", [
    ("corpus", b"\xff\xfe not text\n", "not UTF-8 text"),
    ("traced", b"\xff\xfe", "not UTF-8 text"),
    ("traced", b'{"full_name": "a"}\nnot json\n', ":2: neither a JSON list nor JSON lines"),
    ("traced", b"[1, 2]", "holds theorem objects, not a JSON int"),
])
def test_a_corpus_or_traced_file_that_is_not_one_is_named_in_one_line(tmp_path, reader, content, problem):
    """Fails if a corpus or a traced file of bytes that are not UTF-8, of a line that is not JSON, or
    of records that are not objects, ends in a UnicodeDecodeError, JSONDecodeError or AttributeError
    rather than a UserError naming the file."""
    from retrieval.corpus import Corpus
    from retrieval.traced_file import load_traced
    from search_tree.errors import UserError

    path = tmp_path / "input.jsonl"
    path.write_bytes(content)
    with pytest.raises(UserError, match=problem) as err:
        Corpus.from_jsonl(path) if reader == "corpus" else load_traced(path)
    assert str(path) in str(err.value)


@pytest.mark.parametrize("option, message", [
    (["--env-opt", "latency=abc"], 'environment option latency="abc": takes float'),
    (["--search-opt", "max_expansions=abc"], 'search option max_expansions="abc": takes int or null'),
    (["--search-opt", "max_expansions=true"], "search option max_expansions=true: takes int or null"),
])
def test_an_option_of_the_wrong_type_is_refused_before_the_run(tmp_path, capsys, option, message):
    """Fails if a mistyped option is recorded as the run's configuration and fails every search
    (exit 0, each attempt a worker_error) instead of being refused up front with exit 2."""
    out = tmp_path / "run"
    assert main([*EVAL, "--out", str(out), *option]) == 2
    assert message in capsys.readouterr().err
    assert not (out / "config.json").exists()
