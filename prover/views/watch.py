"""A terminal view of an evaluation run, read from its files only (it never writes to the run).

What it reads: ``config.json`` (what the run proves), ``results.jsonl`` (finished attempts, with
``finished_at``) and ``starts.jsonl`` (each attempt handed to a worker, with ``started_at``; see
:mod:`prover.run.evaluation`). A worker's current theorem is its latest start without a result yet.
A run being written is read as it is: a half-written last line is left for the next frame.
Everything read from the run is untrusted text, shown through :func:`prover.views.safe_text.rich_text`.
"""

from __future__ import annotations

import json
import time
import warnings
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from prover.run.analysis import load_run, retries_line
from prover.views.safe_text import rich_text
from search_tree.errors import UserError

_SPARK = " ▁▂▃▄▅▆▇█"


@dataclass
class RunSnapshot:
    """What a run directory says at one moment."""

    path: Path
    benchmark: str
    components: str
    total: int
    records: list[dict[str, Any]]
    running: list[dict[str, Any]]  # the latest start of each busy worker
    problems: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return len(self.records) >= self.total

    def count(self, status: str) -> int:
        return sum(r["status"] == status for r in self.records)


def snapshot(run_dir: str | Path) -> RunSnapshot:
    """Read the run in ``run_dir`` (a :class:`search_tree.errors.UserError` if it is not one)."""
    if not Path(run_dir).is_dir():
        raise UserError(f"{run_dir}: no such run directory")
    with warnings.catch_warnings(record=True):  # a torn last line is a line being written, not news
        warnings.simplefilter("always")
        run = load_run(run_dir, skip_corrupt=True)
    done = {(r["key"], r["attempt"]) for r in run.records}
    latest: dict[int, dict[str, Any]] = {}
    for s in _starts(run.path / "starts.jsonl"):
        latest[s["worker"]] = s
    running = [s for _, s in sorted(latest.items()) if (s["key"], s["attempt"]) not in done]
    comps = run.config["run"]["components"]
    spec = ", ".join(f"{part} {comps[part]['name']}" for part in ("env", "prover", "generator", "retriever")
                     if part in comps)
    return RunSnapshot(run.path, run.config["run"]["benchmark"], spec,
                       len(run.config["theorems"]) * run.attempts, run.records, running,
                       [f"skipped {m}" for m in run.skipped])


def _starts(path: Path) -> list[dict[str, Any]]:
    """The complete start records of ``path`` (a line being written, damaged or not a start is
    passed over: it only costs the view one worker's current theorem)."""
    out = []
    for line in path.read_bytes().split(b"\n") if path.exists() else []:
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue
        if _is_start(record):
            out.append(record)
    return out


def _is_start(record: object) -> bool:
    """Whether ``record`` has the fields of a start, of the types a run writes: the view sorts
    workers by number and looks up (key, attempt) pairs, so a string worker beside int ones, or a
    list key, would crash it."""
    fields = (("worker", int), ("key", str), ("attempt", int), ("started_at", (int, float)))
    return isinstance(record, dict) and all(isinstance(record.get(name), kinds) and not isinstance(record[name], bool)
                                            for name, kinds in fields)


def _finished_seconds(records: list[dict[str, Any]]) -> list[tuple[float, bool]]:
    """(seconds since the first finish, proved) for every record, in time order."""
    stamps = []
    for r in records:
        try:
            stamps.append((datetime.fromisoformat(r["finished_at"]).timestamp(), r["status"] == "proved"))
        except (KeyError, TypeError, ValueError):
            continue
    stamps.sort()
    return [(t - stamps[0][0], ok) for t, ok in stamps] if stamps else []


def pass_rate_line(records: list[dict[str, Any]], width: int = 40) -> str:
    """The pass rate of the attempts finished so far, against time, as a one-line sparkline."""
    points = _finished_seconds(records)
    if not points:
        return "no attempt finished yet"
    span = max(points[-1][0], 1e-9)
    cells, proved, i = [], 0, 0
    for cell in range(width):
        until = span * (cell + 1) / width
        while i < len(points) and points[i][0] <= until:
            proved += points[i][1]
            i += 1
        cells.append(_SPARK[round(8 * proved / i)] if i else " ")
    return f"0 |{''.join(cells)}| {span:.0f}s   now {proved / len(points):.1%}"


def render(snap: RunSnapshot, now: float | None = None, latest: int = 5) -> Group:
    """One frame: counts, workers and their theorems, the pass rate against time, the latest proofs."""
    now = time.time() if now is None else now
    done = len(snap.records)
    proved, failed, open_ = snap.count("proved"), snap.count("failed"), snap.count("open")
    rate = f"{proved / done:.1%}" if done else "–"
    head = Text.assemble(rich_text(snap.path, "bold", keep=""), "  ", rich_text(snap.benchmark, keep=""), " · ",
                         rich_text(snap.components, keep=""), "\n", f"finished {done}/{snap.total}  ",
                         ("proved " + str(proved), "green"),
                         f"  failed {failed}  open {open_}  left {snap.total - done}  pass rate {rate}",
                         (f"  {retries_line(snap.records)}" if retries_line(snap.records) else "", "yellow"),
                         ("  (complete)" if snap.complete else ""))
    workers = Table(title="workers", title_justify="left", expand=False)
    for column in ("worker", "theorem", "attempt", "running for"):
        workers.add_column(column)
    for s in snap.running:
        workers.add_row(rich_text(s["worker"], keep=""), rich_text(s["key"], keep=""), rich_text(s["attempt"], keep=""),
                        f"{now - s['started_at']:.0f}s")
    if not snap.running:
        workers.add_row("–", "(none running)" if snap.complete else "(no worker has started a task yet)", "", "")
    proofs = Table(title="latest proofs", title_justify="left", expand=False)
    for column in ("theorem", "attempt", "time", "proof"):
        proofs.add_column(column)
    for r in [r for r in snap.records if r["status"] == "proved"][-latest:]:
        proofs.add_row(rich_text(r["key"], keep=""), rich_text(r["attempt"], keep=""), f"{r['result']['total_time']:.1f}s",
                       rich_text(" ".join(r["result"]["proof"] or [])))
    parts: list[RenderableType] = [head, workers, Text("pass rate against time: " + pass_rate_line(snap.records)), proofs]
    parts += [rich_text(f"warning: {p}", "yellow") for p in snap.problems]
    return Group(*parts)
