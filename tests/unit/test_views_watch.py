"""``dojo-prover watch`` on a finished run and on one that a second process is writing."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from prover.benchmarks.registry import load_benchmark
from prover.run.analysis import load_run
from prover.cli import main
from prover.run.evaluation import EvalConfig, run_evaluation
from prover.registry import ComponentSpec, ProverConfig
from test_safe_markdown import READER

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("finished")
    config = EvalConfig(ProverConfig(ComponentSpec("synthetic"), ComponentSpec("best_first", {"max_expansions": 12}),
                                     ComponentSpec("synthetic")), "synthetic:30", limit=8, attempts=2)
    run_evaluation(config, load_benchmark("synthetic:30", 8), out, progress=False)
    return out


@pytest.fixture(autouse=True)
def wide(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # rich wraps at the terminal width; keep rows on one line


def _listing(path: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(path)): (p.stat().st_mtime_ns, p.stat().st_size) for p in path.rglob("*")}


def test_watch_shows_a_finished_run_and_writes_nothing(finished, capsys):
    """Fails if the counts, the pass rate or the latest proofs are not those of the run's results,
    or if watching changes anything in the run directory."""
    before = _listing(finished)
    assert main(["watch", str(finished), "--once"]) == 0
    out = capsys.readouterr().out
    run = load_run(finished)
    proved = [r for r in run.records if r["status"] == "proved"]
    assert f"finished 16/16  proved {len(proved)}  failed 0  open {16 - len(proved)}  left 0" in out
    assert f"pass rate {len(proved) / 16:.1%}  (complete)" in out and "(none running)" in out
    assert " ".join(proved[-1]["result"]["proof"]) in out
    assert _listing(finished) == before


def test_a_corrupt_result_line_is_a_warning_and_the_rest_is_shown(finished, tmp_path, capsys):
    """Fails if one damaged line hides the run (an error) or goes unmentioned."""
    copy = tmp_path / "run"
    copy.mkdir()
    (copy / "config.json").write_bytes((finished / "config.json").read_bytes())
    lines = (finished / "results.jsonl").read_text().splitlines()
    (copy / "results.jsonl").write_text("\n".join([lines[0], "{oops", *lines[1:]]) + "\n")
    assert main(["watch", str(copy), "--once"]) == 0
    out = capsys.readouterr().out
    assert "finished 16/16" in out and f"warning: skipped {copy}/results.jsonl:2 is not valid JSON" in out


@pytest.mark.parametrize("path, message", [("missing", "no such run directory"),
                                           (".", "is not a run directory of `dojo-prover eval`")])
def test_not_a_run_is_one_line(tmp_path, capsys, path, message):
    """Fails if a wrong directory gives a traceback or a multi-line error."""
    assert main(["watch", str(tmp_path / path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("dojo-prover watch: error: ") and message in err


WRITER = textwrap.dedent("""
    import json, sys, time
    from pathlib import Path
    from prover.run.evaluation import ResultsFile
    source, live, half, go = (Path(p) for p in sys.argv[1:])
    records = [json.loads(l) for l in (source / "results.jsonl").read_text().splitlines()]
    (live / "config.json").write_bytes((source / "config.json").read_bytes())
    results, starts = ResultsFile(live / "results.jsonl"), ResultsFile(live / "starts.jsonl")
    for i, r in enumerate(records):
        starts.append({"key": r["key"], "attempt": r["attempt"], "worker": 1, "started_at": time.time()})
        if i == len(records) // 2:
            half.touch()
            while not go.exists():
                time.sleep(0.05)
        time.sleep(0.02)
        results.append(r)
""")


def test_watch_follows_a_run_that_another_process_writes(finished, tmp_path, capsys):
    """A second process appends the results of a run one by one (the evaluation's own writer).
    Fails if a frame mid-run does not show the results so far and the worker's current theorem,
    or if following does not end, complete, once the last result is written."""
    live, half, go = tmp_path / "live", tmp_path / "half", tmp_path / "go"
    live.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(finished), str(live), str(half), str(go)], env=env)
    try:
        deadline = time.monotonic() + 60
        while not half.exists():
            assert time.monotonic() < deadline and writer.poll() is None, "the writer did not get half way"
            time.sleep(0.05)
        follower = subprocess.Popen([sys.executable, "-m", "prover.cli", "watch", str(live), "--interval", "0.2"],
                                    env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert main(["watch", str(live), "--once"]) == 0
        middle = capsys.readouterr().out
        current = load_run(finished).records[8]
        assert "finished 8/16" in middle and "left 8" in middle and "(complete)" not in middle
        assert f"│ 1      │ {current['key']} │ {current['attempt']}       │" in middle
        go.touch()
        assert writer.wait(60) == 0
        out, err = follower.communicate(timeout=60)
        assert follower.returncode == 0, err
        assert "finished 16/16" in out and "(complete)" in out
    finally:
        for process in (writer,):
            if process.poll() is None:
                process.kill()


HOSTILE_KEY = "Coq.x\x1b]8;;http://evil\x07link\x1b]8;;\x07\x1b[2J\u202ebad\x08\r"


def _hostile_copy(finished: Path, tmp_path: Path, proof: list[str]) -> Path:
    """A copy of the finished run whose proved records have ``proof`` and keys, and whose
    benchmark's name, carry terminal escapes."""
    copy = tmp_path / "hostile"
    copy.mkdir()
    config = json.loads((finished / "config.json").read_text())
    config["run"]["benchmark"] = "bench[/x]\x1b[31m"
    (copy / "config.json").write_text(json.dumps(config))
    records = [json.loads(line) for line in (finished / "results.jsonl").read_text().splitlines()]
    for r in records:
        if r["status"] == "proved":
            r["result"]["proof"] = proof
    for i, r in enumerate(r for r in records if r["status"] == "proved"):
        r["key"] = f"{HOSTILE_KEY}{i}"
    (copy / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return copy


@pytest.mark.parametrize("proof", [["rewrite [/x]."], ["destruct H as [x H].", "exact [bold]H[/bold]."],
                                   ["[link=http://evil]click[/link]"], ["apply (f [ x ]) ]]."]])
def test_proofs_are_shown_exactly_as_text_never_as_markup(finished, tmp_path, capsys, proof):
    """Fails if Rich reads a proof as markup: a crash (MarkupError on `[/x]`) or text silently
    dropped (`destruct H as [x H]` shown as `destruct H as`)."""
    copy = _hostile_copy(finished, tmp_path, proof)
    assert main(["watch", str(copy), "--once"]) == 0
    out = capsys.readouterr().out
    assert " ".join(proof) in out


def test_terminal_escapes_in_a_run_are_shown_not_obeyed(finished, tmp_path, capsys):
    """Fails if an escape sequence, bell, backspace, carriage return or bidi override read from the
    run directory reaches the terminal as itself instead of as its visible escape."""
    copy = _hostile_copy(finished, tmp_path, ["exact H.\x1b[1A\x9b2K"])
    assert main(["watch", str(copy), "--once"]) == 0
    out = capsys.readouterr().out
    assert not set(out) & {"\x1b", "\x07", "\x08", "\r", "\u202e", "\x9b"}
    assert "bench[/x]\\x1b[31m" in out and "exact H.\\x1b[1A\\x9b2K" in out
    assert "Coq.x\\x1b]8;;http://evil\\x07link\\x1b]8;;\\x07\\x1b[2J\\u202ebad\\x08\\x0d" in out


def test_an_error_naming_a_hostile_path_is_one_escaped_line(tmp_path, capsys):
    """Fails if the CLI's one-line error passes the escape sequences of the input it quotes to the terminal."""
    assert main(["watch", str(tmp_path / "run\x1b]0;owned\x07\u202e")]) == 2
    err = capsys.readouterr().err
    assert err == f"dojo-prover watch: error: {tmp_path}/run\\x1b]0;owned\\x07\\u202e: no such run directory\n"


def test_report_prints_a_hostile_run_escaped(finished, tmp_path, capsys):
    """Fails if `report`'s terminal output, its Markdown file or its tree pages pass the escape
    sequences of a run's benchmark name, keys or proofs on as themselves."""
    copy = _hostile_copy(finished, tmp_path, ["exact H.\x1b[1A\x9b2K", "[/x]"])
    assert main(["report", str(copy)]) == 0
    out = capsys.readouterr().out
    assert not set(out) & {"\x1b", "\x07", "\x08", "\r", "\u202e", "\x9b"}
    assert "| benchmark | bench\\[/x\\]\\\\x1b\\[31m (limit 8) |" in out
    assert "  ```\n  exact H.\\x1b[1A\\x9b2K\n  [/x]\n  ```" in out
    pages = [page.read_text() for page in (copy / "trees").glob("*.html")]
    assert pages and all("\x1b" not in page and "\x9b" not in page for page in pages)
    assert any("Coq.x\\x1b]8;;http://evil\\x07link" in page for page in pages)
    assert "- [Coq.x\\\\x1b\\]8;;http://evil\\\\x07link" in out
    assert not set((copy / "report.md").read_text()) & {"\x1b", "\x07", "\x08", "\r", "\u202e", "\x9b"}


def test_report_md_of_a_hostile_run_has_no_live_markup(finished, tmp_path):
    """Fails if a value of the run directory written into report.md breaks out of where it stands:
    a benchmark name out of its code span into an ``<img onerror>``, a tactic out of the proof's
    code block, a ``|`` of a stop reason or key into a new table cell, a ``](`` of a key into a
    javascript: link, ``<script>`` through as HTML, or ESC and BEL into the file."""
    copy = _hostile_copy(finished, tmp_path, ["intros; auto.", "```\n<img src=x onerror=alert(2)>\n[click](javascript:alert(3))"])
    config = json.loads((copy / "config.json").read_text())
    config["run"]["benchmark"] = "b`<img src=x onerror=alert(1)>`|x"
    config["run"]["components"]["generator"]["options"]["seed"] = "<script>alert(6)</script>|"
    (copy / "config.json").write_text(json.dumps(config))
    records = [json.loads(line) for line in (copy / "results.jsonl").read_text().splitlines()]
    failed = next(r for r in records if r["status"] != "proved")
    failed["key"] = "x](javascript:alert(3)) | <script>alert(7)</script>"
    failed.update(status="failed", result=dict(failed["result"], status="failed", proof=None,
                  stop_reason="worker_error: a | b <script>alert(4)</script> [x](javascript:alert(5)) \x1b]52;c;ZXZpbA==\x07"))
    (copy / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    assert main(["report", str(copy)]) == 0
    text = (copy / "report.md").read_text()
    assert not {char for char in text if char != "\n" and not char.isprintable()}
    page, tokens = READER.render(text), READER.parse(text)
    assert "<script" not in page
    assert all(src.startswith("plots/") for src in re.findall(r"<img src=\"([^\"]*)\"", page))
    assert all(href.startswith("trees/") for href in re.findall(r"<a href=\"([^\"]*)\"", page))
    cells = {"th": 0, "td": 0}
    for token in tokens:  # every row of every table has as many cells as its header
        if token.type in ("thead_open", "tr_open"):
            cells = {"th": 0, "td": 0} if token.type == "thead_open" else {**cells, "td": 0}
        elif token.type in ("th_open", "td_open"):
            cells[token.type[:2]] += 1
        elif token.type == "tr_close" and cells["td"]:
            assert cells["td"] == cells["th"]
    # the values read as written, and the proof is one code block holding every tactic
    assert "<td>b`&lt;img src=x onerror=alert(1)&gt;`|x (limit 8)</td>" in page
    assert "seed=&lt;script&gt;alert(6)&lt;/script&gt;|" in page
    assert "<td>x](javascript:alert(3)) | &lt;script&gt;alert(7)&lt;/script&gt;</td>" in page
    assert "worker_error: a | b &lt;script&gt;alert(4)&lt;/script&gt; [x](javascript:alert(5)) \\x1b]52;c;ZXZpbA==\\x07" in page
    blocks = re.findall(r"<pre><code>(.*?)</code></pre>", page, re.S)
    assert "intros; auto.\n```\n&lt;img src=x onerror=alert(2)&gt;\n[click](javascript:alert(3))\n" in blocks
    assert "\n  intros; auto.\n" in text


def test_a_newline_in_a_one_line_field_cannot_fake_a_status_line(finished, tmp_path, capsys):
    """Fails if watch shows a newline or carriage return of a benchmark name or key as a line
    break, so that a run can print a status line of its own (`complete`, 100%) above the real one."""
    copy = _hostile_copy(finished, tmp_path, ["auto."])
    config = json.loads((copy / "config.json").read_text())
    config["run"]["benchmark"] = "bench\nfinished 5/5  proved 5  failed 0  open 0  left 0  pass rate 100.0%  (complete)\r"
    (copy / "config.json").write_text(json.dumps(config))
    assert main(["watch", str(copy), "--once"]) == 0
    out = capsys.readouterr().out
    assert not [line for line in out.splitlines() if line.startswith("finished 5/5")]
    assert "bench\\x0afinished 5/5" in out


def test_watch_passes_over_starts_of_the_wrong_types(finished, tmp_path, capsys):
    """Fails if a start whose worker is a string beside int ones (sorting them raised TypeError),
    or whose key or worker is a list (unhashable), crashes watch instead of being passed over."""
    copy = tmp_path / "run"
    copy.mkdir()
    for name in ("config.json", "results.jsonl"):
        (copy / name).write_bytes((finished / name).read_bytes())
    starts = [{"key": "Coq.busy", "attempt": 0, "worker": 1, "started_at": time.time()},
              {"key": "Coq.other", "attempt": 0, "worker": "w", "started_at": time.time()},
              {"key": ["Coq.list"], "attempt": 0, "worker": 2, "started_at": time.time()},
              {"key": "Coq.listworker", "attempt": 0, "worker": [3], "started_at": time.time()},
              {"key": "Coq.attempt", "attempt": "0", "worker": 4, "started_at": time.time()}]
    (copy / "starts.jsonl").write_text("".join(json.dumps(s) + "\n" for s in starts))
    assert main(["watch", str(copy), "--once"]) == 0
    out = capsys.readouterr().out
    shown = set(re.findall(r"Coq\.\w+", out))
    assert "Coq.busy" in shown and not {"Coq.other", "Coq.list", "Coq.listworker", "Coq.attempt"} & shown
