"""Evaluation runs that survive ``kill -9``: one directory per run, one result line per attempt.

Layout of a run directory::

    config.json      everything resolved: components and options, benchmark, theorem keys, attempts
    provenance.json  the prover version (Coq's) and library the searches ran on, for a backend that
                     names its version: ``learn --add-run`` refuses logs of another
    results.jsonl    one line per finished (theorem, attempt), appended as each finishes, with the
                     node that ran it and why it was retried, if it was
    starts.jsonl     one line per (theorem, attempt, worker) handed to a worker, for ``dojo-prover watch``
    logs/            one action log per (theorem, attempt): every search event, JSON lines
    report.md, plots/, trees/    written by ``dojo-prover report``
    .lock            held (flock) by the running evaluation, so a second writer is refused

Why it cannot lose or duplicate results: a result line is written with a single ``write`` of the
whole line on an ``O_APPEND`` descriptor and ``fsync``-ed before the next task is recorded; its
action log is renamed into place before the line is written. A kill can therefore only cut the
last line short, and :class:`ResultsFile` drops such a tail (with a warning) on resume; any other
line that is not a record was edited or corrupted, and resume stops at it (:class:`CorruptResults`
names the file and line) rather than guess. Resume skips every (theorem, attempt) that has a line
and refuses a directory whose ``config.json`` differs from the run asked for, because mixing
results of two configurations would be silent nonsense. The number of workers and where they run
(a private local Ray or a cluster, ``ray_address``) are not part of a run's identity: a run may
resume with more, or on a cluster.

Only this process writes the run directory: workers, wherever they run, return their results and
action logs to it, so a run directory on the driver's disk is enough for a run on a cluster.

A run directory is untrusted input (it may be copied from anywhere): nothing in it is followed
outside it. A directory whose ``results.jsonl``, ``starts.jsonl``, ``config.json``, ``logs`` or
``.lock`` is a symlink is refused before anything is written; files are opened with ``O_NOFOLLOW``
and written whole through :mod:`search_tree.safe_files`; and a record's ``log`` may only name a file
``logs/<name>``, which readers open only as a regular file inside ``logs/``.

``config.json`` is written only once the workers are built from the options: a run whose
components cannot be built (a missing or unknown option, a bad value) leaves no configuration
behind, so the corrected command can use the same ``--out``.
"""

from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import json
import os
import re
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from generator.action_data import PROVENANCE_FILE, Provenance, read_provenance, write_provenance
from prover.defaults import is_positive
from prover.run.distributed import DistributedProver, Outcome, Task, WorkerStartError
from prover.registry import ENVIRONMENTS, ProverConfig, check_names, require_specs, with_defaults
from search_tree.safe_files import log_problem, make_dir, open_file, read_regular, refuse_links, replace_file
from search_tree import StopReason, Theorem
from search_tree.events import Ended, SearchEvent, Started
from search_tree.errors import UserError, one_line

FORMAT_VERSION = 1


def theorem_key(theorem: Theorem) -> str:
    """The identity of a theorem within a run (names alone can repeat across files)."""
    return f"{theorem.file_path}::{theorem.full_name}" if theorem.file_path else theorem.full_name


class InvalidRun(UserError, ValueError):
    """An evaluation setting out of its range (no attempts, no workers, a negative limit...)."""


@dataclass(frozen=True)
class EvalConfig:
    """What a run proves and how; everything but ``workers``, ``watchdog`` and ``ray_address`` is
    its identity (``ray_address``: the Ray cluster to run on, default ``$RAY_ADDRESS``, else a
    private local instance).

    Attempt ``a`` of each theorem uses seed ``seed + a`` and, if ``temperatures`` is given,
    temperature ``temperatures[a % len(temperatures)]``.
    """

    prover: ProverConfig
    benchmark: str
    limit: int | None = None
    attempts: int = 1
    seed: int = 0
    temperatures: tuple[float, ...] = ()
    workers: int = 1
    record_events: bool = True
    watchdog: float | None = None
    ray_address: str | None = None

    def __post_init__(self) -> None:
        for name, least in (("limit", 1), ("attempts", 1), ("workers", 1)):
            value = getattr(self, name)
            if value is not None and value < least:
                raise InvalidRun(f"{name} must be at least {least}, got {value}")
        if self.watchdog is not None and not is_positive(self.watchdog):
            raise InvalidRun(f"the task timeout must be positive and finite, got {self.watchdog}")

    def identity(self) -> dict[str, Any]:
        return {
            "components": self.prover.to_json(),
            "benchmark": self.benchmark,
            "limit": self.limit,
            "attempts": self.attempts,
            "seed": self.seed,
            "temperatures": list(self.temperatures),
            "record_events": self.record_events,
        }

    def tasks(self, theorems: list[Theorem]) -> list[Task]:
        """Attempt-major order, so that early results already estimate pass@1 over the benchmark."""
        temps = self.temperatures
        return [
            Task(thm, a, self.seed + a, temps[a % len(temps)] if temps else None)
            for a in range(self.attempts) for thm in theorems
        ]

    def task_timeout(self) -> float | None:
        """The watchdog for hung workers: ``watchdog`` if set, else twice the search timeout plus
        ten minutes for opening the theorem (a backend may load a whole file first) and the re-check."""
        if self.watchdog is not None:
            return self.watchdog
        timeout = self.prover.prover.options.get("timeout")
        return None if timeout is None else 2 * float(timeout) + 600


class ConfigMismatch(UserError, ValueError):
    """The run directory holds a different run; resuming into it would mix incomparable results."""


class RunDirBusy(UserError, RuntimeError):
    """Another live process is writing to the run directory (two writers would duplicate work)."""


class CorruptResults(UserError, ValueError):
    """A line of ``results.jsonl`` before the last is not a result record: the file was edited or
    damaged (a kill only cuts the last line short), so which attempts are done is unknown there."""


class ComponentsFailed(UserError, RuntimeError):
    """The environment, retriever, generator or search could not be built from the run's options."""


@contextmanager
def exclusive(out_dir: Path) -> Iterator[None]:
    """Hold ``out_dir/.lock`` for the duration; the kernel drops the lock when its holder dies, so
    a killed run never leaves a stale lock behind."""
    fd = open_file(out_dir / ".lock", os.O_RDWR | os.O_CREAT)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RunDirBusy(f"{out_dir} is being written by another running evaluation") from None
        yield
    finally:
        os.close(fd)


def _diff(saved: Any, now: Any, prefix: str = "") -> list[str]:
    if isinstance(saved, dict) and isinstance(now, dict):
        out: list[str] = []
        for key in sorted(set(saved) | set(now)):
            out += _diff(saved.get(key), now.get(key), f"{prefix}{key}.")
        return out
    return [] if saved == now else [f"{prefix.rstrip('.')}: saved {json.dumps(saved)[:80]}, now {json.dumps(now)[:80]}"]


#: what a run writes in its directory, each refused as a symlink (see :func:`run_evaluation`)
RUN_FILES = ("config.json", "results.jsonl", "starts.jsonl", "logs", ".lock", PROVENANCE_FILE)

_RECORD_FIELDS = ("key", "attempt", "status", "result")
# what every reader of a record relies on: the record's fields and its result's, by type
_RECORD_TYPES: dict[str, type | tuple[type, ...]] = {"key": str, "attempt": int, "status": str, "result": dict}
_RESULT_TYPES: dict[str, type | tuple[type, ...]] = {
    "status": str, "stop_reason": str, "total_time": (int, float), "env_time": (int, float),
    "gen_time": (int, float), "num_nodes": int, "num_expansions": int, "num_env_calls": int}


def _record_problem(line: bytes) -> str | None:
    """Why ``line`` is not a result record (as :func:`outcome_record` writes one), or None."""
    try:
        record = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        return f"not valid JSON ({exc})"
    if not isinstance(record, dict):
        return f"a JSON {type(record).__name__}, not a record"
    missing = [f for f in _RECORD_FIELDS if f not in record]
    if missing:
        return f"a record without {', '.join(missing)}"
    problem = _shape_problem(record, _RECORD_TYPES, "")
    result = record["result"]
    problem = problem or _shape_problem(result, _RESULT_TYPES, "result.")
    if problem is not None:
        return problem
    proof = result.get("proof")
    if not (proof is None or (isinstance(proof, list) and all(isinstance(t, str) for t in proof))):
        return "a record whose result.proof is not a list of tactics"
    stats = result.get("stats", {})
    if not isinstance(stats, dict):
        return "a record whose result.stats is not an object"
    premises = stats.get("premises", {"retrieved": 0, "used": 0})
    if not (isinstance(premises, dict) and _shape_problem(premises, _PREMISES_TYPES, "") is None):
        return f"a record whose result.stats.premises is {json.dumps(premises)[:40]}, not counts of retrieved and used"
    return _retries_problem(record) or log_problem(record.get("log"))


_PREMISES_TYPES: dict[str, type | tuple[type, ...]] = {"retrieved": (int, float), "used": (int, float)}
#: a record's action log: a file directly in ``logs/`` (see :func:`log_name`), never a path elsewhere
def _retries_problem(record: dict[str, Any]) -> str | None:
    """Why the record's ``retries`` (absent in old records, else a count) or ``retry_reasons``
    (absent or null in old records, else a list of reasons) is not what the readers count, or None."""
    retries = record.get("retries", 0)
    if type(retries) is not int or retries < 0:
        return f"a record whose retries is {json.dumps(retries)[:40]}, not a count"
    reasons = record.get("retry_reasons")
    if not (reasons is None or (isinstance(reasons, list) and all(isinstance(r, str) for r in reasons))):
        return f"a record whose retry_reasons is {json.dumps(reasons)[:40]}, not a list of reasons"
    return None


def _shape_problem(data: dict[str, Any], types: dict[str, type | tuple[type, ...]], prefix: str) -> str | None:
    """The first field of ``data`` missing or not of its type in ``types`` (a bool is no number), or None."""
    for name, kind in types.items():
        value = data.get(name)
        if value is None or isinstance(value, bool) or not isinstance(value, kind):
            return f"a record whose {prefix}{name} is {json.dumps(value)[:40]}"
    return None


#: the components every run's configuration names (``ProverConfig.to_json``), which readers index
COMPONENTS = ("env", "prover", "generator", "retriever")


def read_config(path: Path) -> dict[str, Any]:
    """A run's ``config.json``: a :class:`ConfigMismatch` naming it unless it is what
    :func:`write_config` writes (an object whose ``run`` holds its components, benchmark and a
    positive number of attempts, and whose ``theorems`` are keys), so that no reader meets a
    missing or mistyped field later."""
    data = read_regular(path)  # a link is refused, a FIFO never waited on
    if data is None:
        raise ConfigMismatch(f"{path}: no such file; it is not a run directory (written by `dojo-prover eval`)")
    try:
        config = json.loads(data.decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ConfigMismatch(f"{path} is not valid JSON ({exc}); it is not a run's config.json") from None
    run = config.get("run") if isinstance(config, dict) else None
    theorems = config.get("theorems") if isinstance(config, dict) else None
    attempts = run.get("attempts") if isinstance(run, dict) else None
    components = run.get("components") if isinstance(run, dict) else None
    problem = (
        "is not a JSON object" if not isinstance(config, dict)
        else "has no object 'run'" if not isinstance(run, dict)
        else "has no list of theorem keys 'theorems'" if not (isinstance(theorems, list)
                                                             and all(isinstance(k, str) for k in theorems))
        else "has no positive whole number 'run.attempts'" if not (type(attempts) is int and attempts >= 1)
        else "has no string 'run.benchmark'" if not isinstance(run.get("benchmark"), str)
        else f"has no components 'run.components' ({', '.join(COMPONENTS)}, each an object with a name and options)"
        if not (isinstance(components, dict) and all(
            isinstance(components.get(part), dict) and isinstance(components[part].get("name"), str)
            and isinstance(components[part].get("options"), dict) for part in COMPONENTS))
        else None)
    if problem is not None:
        raise ConfigMismatch(f"{path} {problem}: it is not a run's config.json (written by `dojo-prover eval`)")
    return config


class ResultsFile:
    """``results.jsonl``: whole-line appends with fsync; a torn last line is dropped on load."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self, repair: bool = False) -> list[dict[str, Any]]:
        """All complete records; with ``repair``, a torn tail is also cut from the file. A corrupt
        line before the last raises :class:`CorruptResults` naming the file, the line and the fix."""
        records, corrupt = self.read(repair)
        if corrupt:
            more = f" ({len(corrupt) - 1} more such lines follow)" if len(corrupt) > 1 else ""
            raise CorruptResults(corrupt[0] + more)
        return records

    def read(self, repair: bool = False) -> tuple[list[dict[str, Any]], list[str]]:
        """The complete records, and one message per corrupt line before the last (skipped), each
        naming the file and line and how to repair it: readers that only report use this."""
        data = read_regular(self.path)  # a link (to /etc/passwd) is refused, a FIFO never waited on
        if data is None:
            return [], []
        end = data.rfind(b"\n") + 1
        records, corrupt = [], []
        for number, line in enumerate(data[:end].split(b"\n"), 1):
            if not line.strip():
                continue
            problem = _record_problem(line)
            if problem is None:
                records.append(json.loads(line))
            else:
                corrupt.append(f"{self.path}:{number} is {problem}: the file was edited or damaged, not cut short "
                               f"by a kill; delete line {number} (sed -i '{number}d' {self.path}) and that attempt "
                               "runs again on resume")
        tail = data[end:]
        whole = bool(tail.strip()) and _record_problem(tail) is None  # all written but the newline: kept
        if whole:
            records.append(json.loads(tail))
        elif tail:
            warnings.warn(f"{self.path}: dropping a truncated last line ({len(tail)} bytes) left by an "
                          "interrupted run; that attempt will run again", stacklevel=2)
        if repair and tail and not corrupt:  # a file with a corrupt line is left as it is, for its owner
            with os.fdopen(open_file(self.path, os.O_RDWR), "r+b") as f:  # a link's target is never cut
                if whole:
                    f.seek(0, os.SEEK_END)
                    f.write(b"\n")
                else:
                    f.truncate(end)
                os.fsync(f.fileno())
        return records, corrupt

    def append(self, record: dict[str, Any]) -> None:
        line = (json.dumps(record, ensure_ascii=False) + "\n").encode()
        fd = open_file(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)  # never appends through a link
        try:
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)


def log_name(key: str, attempt: int) -> str:
    """A file name for an action log: readable, and unique through a hash of the key."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", key)[-80:]
    return f"{safe}.{hashlib.sha256(key.encode()).hexdigest()[:8]}.a{attempt}.jsonl"


@dataclass
class RunProgress:
    """Counts shown while a run goes and returned when it ends."""

    total: int
    done_before: int
    proved: int = 0
    failed: int = 0
    open: int = 0
    finished_now: int = 0
    seconds: float = 0.0
    retried: dict[str, int] = field(default_factory=dict)  # retries of this session by kind (node_lost, ...)

    def count_retries(self, reasons: list[StopReason]) -> None:
        for reason in reasons:
            self.retried[reason.kind.value] = self.retried.get(reason.kind.value, 0) + 1


def _git_commit() -> str | None:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).parent, capture_output=True,
                              text=True, timeout=5).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def environment_notes(config: ProverConfig) -> dict[str, Any]:
    """What the environment reports about its options on this machine (``run_notes(options)`` of
    its class, e.g. Coq's context additions left out because a library is not installed)."""
    return ENVIRONMENTS.load(config.env.name).run_notes(config.env.options)


def check_out_dir(out: Path, theorems: list[Theorem] | None = None) -> None:
    """Refuse ``out`` as a run directory for what is wrong with it whatever the run's configuration:
    a symlink among :data:`RUN_FILES`, a file where a directory belongs or the reverse (``--out``
    naming an existing file), results without the ``config.json`` that says whose they are; and
    ``theorems`` (the benchmark) with duplicate keys. Cheap and writing nothing, so that a command
    that does something slow before :func:`run_evaluation` (``eval`` and ``fill-admitted`` trace a
    project on first use, ``fill-admitted`` builds it) calls it first and bad input fails at once,
    not after minutes of work; :func:`run_evaluation` begins with it too, for its other callers.
    What needs the configuration (a run directory of another run) is :func:`check_run_dir`'s."""
    if out.is_dir():
        refuse_links(out, RUN_FILES)
    for path, kind in ((out, "directory"), (out / "logs", "directory"), (out / "results.jsonl", "file"),
                       (out / "config.json", "file")):
        if path.exists() and path.is_dir() != (kind == "directory"):
            raise UserError(f"{path} is not a {kind}; choose another --out directory")
    if not (out / "config.json").exists():
        found = [name for name in ("results.jsonl", "starts.jsonl", "logs") if (out / name).exists()]
        if found:
            raise ConfigMismatch(f"{out} holds {', '.join(found)} but no config.json, so which run they belong "
                                 "to is unknown; choose another --out directory")
    keys = [theorem_key(t) for t in theorems or ()]
    if len(set(keys)) != len(keys):
        raise UserError("the benchmark has duplicate theorem keys")


def check_run_dir(out_dir: Path, config: EvalConfig, theorems: list[Theorem]) -> dict[str, Any] | None:
    """Check ``out_dir`` (passed by :func:`check_out_dir`) against the run asked for, writing
    nothing: None when it already holds this run (resume), else the configuration
    :func:`write_config` is to record."""
    wanted = {"format": FORMAT_VERSION, "run": config.identity(), "theorems": [theorem_key(t) for t in theorems]}
    cfg_path = out_dir / "config.json"
    if not cfg_path.exists():
        return wanted  # check_out_dir refused results without it
    saved = read_config(cfg_path)
    differences = _diff({k: saved.get(k) for k in wanted}, wanted)
    if differences:
        more = f"; and {len(differences) - 3} more" if len(differences) > 3 else ""
        raise ConfigMismatch(f"{out_dir} holds a run with a different configuration ({'; '.join(differences[:3])}"
                             f"{more}); refusing to resume into it: choose another --out directory (or delete this one)")
    recorded, here = read_provenance(out_dir), run_provenance(config)
    if recorded is not None and recorded != here:
        now = here.describe() if here is not None else "no recorded prover"
        raise ConfigMismatch(f"{out_dir} was searched with {recorded.describe()}, this run would search with {now}: "
                             "its action logs would mix two provers; choose another --out directory")
    return None


def library_of(benchmark: str) -> str:
    """The library a benchmark's theorems come from: its name without the split (``coq-stdlib``)."""
    return benchmark.rpartition(":")[0] or benchmark


def run_provenance(config: EvalConfig) -> Provenance | None:
    """Which prover (its backend's :attr:`~prover.backend.Backend.prover_version`, the Coq version
    for Coq) and library the run's searches run on; None for a backend that names no version.
    Action logs are only comparable with logs of the same prover: ``learn --add-run`` reads this."""
    from prover.backends import BACKENDS
    from search_tree.registry import load_target

    backend = BACKENDS.get(config.prover.env.name)
    if backend is None or backend.prover_version is None:
        return None
    return Provenance(load_target(backend.prover_version)(), library_of(config.benchmark))


def write_config(out_dir: Path, config: EvalConfig, wanted: dict[str, Any], prover: DistributedProver) -> None:
    """Record a new run's configuration (after its components were built from it), and where it
    started: the workers, the cluster's address and the nodes left out, each with its reason; and,
    first, its :func:`run_provenance` (``provenance.json``), so that a run with a configuration has one."""
    provenance = run_provenance(config)
    if provenance is not None:
        write_provenance(out_dir, provenance)
    cluster = {"address": prover.ray_address,
               "nodes_left_out": [c.line() for c in prover.node_checks() if not c.usable]} if prover.ray_address else {}
    full = {**wanted, "execution": {"workers": config.workers, **cluster, **environment_notes(config.prover)},
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "python": sys.version.split()[0], "git_commit": _git_commit()}
    replace_file(out_dir / "config.json", json.dumps(full, indent=2).encode())


def outcome_record(outcome: Outcome, log: str | None) -> dict[str, Any]:
    task, result = outcome.task, outcome.result
    return {
        "key": theorem_key(task.theorem),
        "attempt": task.attempt,
        "seed": task.seed,
        "temperature": task.temperature,
        "status": result.status.value,
        "worker": outcome.worker,
        "node": outcome.node,
        "retries": outcome.retries,
        "retry_reasons": [str(reason) for reason in outcome.retry_reasons],
        "log": log,
        "finished_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "result": result.to_json(),
    }


def resumed_traces(prover: ProverConfig, out: Path) -> ProverConfig:
    """``prover`` with the traced directories its run directory's ``config.json`` recorded for its
    generator, where the generator names none: a resumed run learns from the traces it started
    with. Its default traces are otherwise worked out again from the cache, which a ``prove`` or
    ``eval`` of the same project, tracing it on first use, may have filled since, and the run would
    be refused as another. Traces named by the caller are compared as every option is."""
    from prover.registry import ComponentSpec

    generator = prover.generator
    if not isinstance(generator, ComponentSpec) or "traces" in generator.options or not (out / "config.json").is_file():
        return prover
    try:
        saved = read_config(out / "config.json")["run"]["components"]["generator"]
    except ConfigMismatch:
        return prover  # check_run_dir says what is wrong with it
    if saved["name"] != generator.name or "traces" not in saved["options"]:
        return prover
    return dataclasses.replace(prover, generator=ComponentSpec(generator.name, {**generator.options,
                                                                              "traces": saved["options"]["traces"]}))


def run_evaluation(
    config: EvalConfig,
    theorems: list[Theorem],
    out_dir: str | Path,
    *,
    progress: bool = True,
    on_outcome: Callable[[Outcome], None] | None = None,
) -> RunProgress:
    """Prove every (theorem, attempt) of ``config`` not yet recorded in ``out_dir``.

    ``theorems`` is the resolved benchmark (see :func:`prover.benchmarks.registry.load_benchmark`).
    Returns the counts of this session; :func:`prover.run.analysis.load_run` reads the whole run.
    """
    out = Path(out_dir)
    check_out_dir(out, theorems)
    require_specs(config.prover, "a run directory (its config.json)")
    check_names(config.prover)
    config = dataclasses.replace(config, prover=with_defaults(resumed_traces(config.prover, out), theorems))
    out.mkdir(parents=True, exist_ok=True)
    with exclusive(out):
        return _run_locked(config, theorems, out, progress, on_outcome)


def _run_locked(config: EvalConfig, theorems: list[Theorem], out: Path, progress: bool,
                on_outcome: Callable[[Outcome], None] | None) -> RunProgress:
    new_config = check_run_dir(out, config, theorems)
    done = {(r["key"], r["attempt"]) for r in ResultsFile(out / "results.jsonl").load(repair=True)}
    tasks = [t for t in config.tasks(theorems) if (theorem_key(t.theorem), t.attempt) not in done]
    stats = RunProgress(total=len(theorems) * config.attempts, done_before=len(done))
    results = ResultsFile(out / "results.jsonl")
    t0 = time.monotonic()
    starts = ResultsFile(out / "starts.jsonl")

    def started(task: Task, worker: int) -> None:
        starts.append({"key": theorem_key(task.theorem), "attempt": task.attempt, "worker": worker,
                       "node": dp.node_of(worker), "started_at": round(time.time(), 3)})

    with DistributedProver(config.prover, config.workers, record_events=config.record_events,
                           task_timeout=config.task_timeout(), ray_address=config.ray_address, on_start=started) as dp:
        _start_workers(dp, out)
        if new_config is not None:
            write_config(out, config, new_config, dp)
        make_dir(out / "logs")
        bar = _progress_bar(stats, progress)
        try:
            for outcome in dp.iter_results(tasks):
                log = _write_log(out, outcome) if config.record_events else None
                results.append(outcome_record(outcome, log))
                status = outcome.result.status.value
                setattr(stats, status, getattr(stats, status) + 1)
                stats.finished_now += 1
                stats.count_retries(outcome.retry_reasons)
                if on_outcome is not None:
                    on_outcome(outcome)
                if bar is not None:
                    elapsed = time.monotonic() - t0
                    bar.set_postfix(proved=stats.proved, failed=stats.failed, open=stats.open,
                                    left=stats.total - stats.done_before - stats.finished_now,
                                    per_min=f"{60 * stats.finished_now / max(elapsed, 1e-9):.1f}", refresh=False)
                    bar.update(1)
        finally:
            if bar is not None:
                bar.close()
    stats.seconds = time.monotonic() - t0
    return stats


def _start_workers(dp: DistributedProver, out: Path) -> None:
    """Build every worker's components now, before the run is recorded: options that cannot build
    them are bad input, and must leave ``out`` free for the corrected command."""
    try:
        dp.start()
    except WorkerStartError as exc:
        raise ComponentsFailed(f"cannot build the run's components from its options ({one_line(exc)}); "
                               f"nothing was recorded in {out}") from exc


def _progress_bar(stats: RunProgress, enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=stats.total, initial=stats.done_before, unit="attempt", dynamic_ncols=True,
                file=sys.stderr, desc="proving")


def _write_log(out: Path, outcome: Outcome) -> str:
    """Write the action log before the result line, so a recorded result always has its log."""
    name = log_name(theorem_key(outcome.task.theorem), outcome.task.attempt)
    start = Started(theorem=theorem_key(outcome.task.theorem), attempt=outcome.task.attempt, seed=outcome.task.seed,
                    worker=outcome.worker, node=outcome.node, retries=outcome.retries)
    end = Ended(t=round(outcome.result.total_time, 4), status=outcome.result.status.value,
                stop_reason=outcome.result.stop_reason)
    events: Iterable[SearchEvent] = [start, *outcome.events, end]
    replace_file(out / "logs" / name,
                  "".join(json.dumps(e.to_json(), ensure_ascii=False) + "\n" for e in events).encode())
    return f"logs/{name}"
