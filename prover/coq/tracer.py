"""Trace a Coq project (by default the standard library) like LeanDojo traces a Lean repository.

Each file is replayed sentence by sentence in its own coqtop (the driver of
:mod:`prover.coq.coqtop`); for every theorem of the index (:mod:`prover.coq.stdlib`) the goals
before and after each proof sentence are recorded, and the premises each sentence names are
annotated against the corpus (:mod:`prover.coq.corpus`).

Output layout (``out_dir``, by default :func:`traced_data_dir`), readable without importing
``prover``::

    corpus.jsonl           premises, LeanDojo's corpus format (see prover/coq/corpus.py)
    train.json val.json test.json
                           traced theorems of the files of each split, LeanDojo benchmark format:
                           [{url, commit, file_path, full_name, start, end, traced_tactics:
                             [{tactic, annotated_tactic: [text, [{full_name, def_path, def_pos,
                               def_end_pos}]], state_before, state_after}]}]
    metadata.json          Coq version, split rule, counts, files that could not be traced
    files/<path>.json      per-file trace cache ({path, sha1, theorems, error, steps, seconds});
                           a file whose cache matches its source's SHA-1 is not traced again

States are :meth:`prover.coq.goals.ProofView.render` texts (every goal with its hypotheses, the
same text the Coq backend uses for ``TacticState.pp``), and ``"no goals"`` when the proof is
complete. Bullets and braces are traced as tactics, since the backend runs them as such. Vernacular
sentences inside a proof (``Proof.``, ``Show``...) are replayed but not recorded.
"""

from __future__ import annotations

import json
import multiprocessing
import re
import resource
import signal
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from search_tree.errors import UserError
from search_tree.safe_files import make_dir, read_regular, replace_file

from .coqtop import Coqtop, CoqtopDied, Reply
from .corpus import PremiseResolver, write_corpus
from .goals import GoalParseError, Outcome, ProofView, parse_view
from .sentences import LineIndex, strip_comments
from .build import project_index
from .index import code_version
from .install import installed_modules, user_contrib
from .project import LIBRARY_PREFIX, CoqProject, load_project, load_project_ref, read_source, stdlib_project
from .split import project_split, split_of
from .stdlib import SPLITS, CoqIndex, TheoremEntry, cache_dir, coq_version, load_index
from .worker import complete_view

URL = "https://github.com/coq/coq"
NO_GOALS = "no goals"
# bump when the per-file records change, or which proofs the index gives a file (a cache is keyed by
# its source, not the scanner), so caches are rebuilt; 2: a proof ends at ``Time Qed.`` and ``Proof <term>.``
TRACE_FORMAT = 2
# sentences inside a proof that are commands, not tactics: replayed, never recorded
_PROOF_VERNAC = re.compile(r"(?:Proof|Show|Check|Print|About|Locate|Search\w*|Compute|Eval|Set|Unset|Opaque|Transparent)\b")
_SENTENCE_TIMEOUT = 120.0  # seconds; stdlib sentences compile in far less, so more means a hang


class TraceError(RuntimeError):
    """A file could not be replayed; the message names the file, line and coqtop's error."""


class UnreadableState(TraceError):
    """coqtop accepted a sentence but printed goals the parser cannot read.

    Coq's state is intact, so only the theorem being traced is lost: the tracer replays the rest of
    its proof without recording and goes on with the file.
    """


def traced_data_dir(project: CoqProject | None = None) -> Path:
    """The default output directory of the tracer: ``<cache_dir>/traced`` for the stdlib,
    ``<cache_dir>/traced-<project key>`` for another project."""
    return cache_dir() / ("traced" if project is None or project.is_stdlib else f"traced-{project.key}")


def library_traces(project: CoqProject) -> list[Path]:
    """The traced directories (:func:`traced_data_dir`) of the installed libraries that ``project``'s
    files require (its index's ``library_requires``), among those traced here: RegLang's proofs
    are written in mathcomp's idiom, so mathcomp's traced proofs teach its next ones too.

    A required module counts for the widest library that holds it and is traced (``coq-lib:mathcomp``
    before ``coq-lib:mathcomp.ssreflect``), so no proof is learned from twice. A library whose
    directory holds the project's, or lies inside it, is never one: its traces would hold the
    project's own proofs under other file paths, where accessibility (:mod:`generator.accessible`)
    could not hide a theorem's own proof from it. Nothing is traced here: a library that is not
    traced, or whose traces hold no tactic, is left out, so this costs a glance at the cache per
    required library."""
    if project.is_stdlib:
        return []
    own = project.root.resolve()
    contrib = user_contrib()
    required = {m for f in project_index(project, progress=False).files.values() for m in f.library_requires}
    traced: dict[str, Path | None] = {}  # library name -> its traced directory, None when there is none

    def directory(name: str) -> Path | None:
        if name not in traced:
            root = contrib.joinpath(*name.split(".")).resolve()
            overlaps = root == own or root in own.parents or own in root.parents
            # a traced directory is named by its project's key, which starts with its root's name
            candidate = not overlaps and any(cache_dir().glob(f"traced-library-{root.name}-*/corpus.jsonl"))
            out = traced_data_dir(load_project(LIBRARY_PREFIX + name)) if candidate else None
            meta = out / "metadata.json" if out is not None else None
            # a library traced so far only where it proves nothing (notations, tactics) teaches nothing
            traced[name] = out if out is not None and meta is not None and meta.is_file() and (
                out / "corpus.jsonl").is_file() and json.loads(meta.read_text()).get("tactics", 0) > 0 else None
        return traced[name]

    found: list[Path] = []
    for module in sorted(required & installed_modules().keys()):
        parts = module.split(".")[:-1]
        for name in (".".join(parts[:n]) for n in range(1, len(parts) + 1)):
            out = directory(name)
            if out is not None:
                if out not in found:
                    found.append(out)
                break
    return found


@dataclass
class FileTrace:
    """The trace of one file: LeanDojo records of its theorems, or the error that stopped it."""

    path: str
    sha1: str
    theorems: list[dict]
    error: str | None
    skipped: list[str]  # theorems replayed but not recorded, with the reason (UnreadableState)
    steps: int
    seconds: float  # wall-clock
    cpu_seconds: float  # this process and its coqtop: the cost on one core, whatever the machine's load

    def to_json(self) -> dict:
        return {"format": TRACE_FORMAT, "path": self.path, "sha1": self.sha1, "theorems": self.theorems,
                "error": self.error, "skipped": self.skipped, "steps": self.steps, "seconds": self.seconds,
                "cpu_seconds": self.cpu_seconds}


class _Replayer:
    """Replays one file in one coqtop and records its theorems' proofs."""

    def __init__(self, index: CoqIndex, resolver: PremiseResolver, path: str) -> None:
        self.index = index
        self.resolver = resolver
        self.file = index.file(path)
        self.text = read_source(index.root, path)
        self.lines = LineIndex(self.text)
        self.steps = 0
        self.skipped: list[str] = []

    def where(self, offset: int) -> str:
        line, col = self.lines.position(offset)
        return f"{self.file.path}:{line}:{col}"

    def code(self, span: tuple[int, int]) -> str:
        return strip_comments(self.text[span[0] : span[1]]).strip()

    def run(self) -> list[dict]:
        # the project's flags; the stdlib's Init/ files are compiled without the prelude (they define it)
        project = self.index.project
        args = project.coq_args + ("-top", self.file.module) + (("-noinit",) if project.noinit(self.file.path) else ())
        coq = Coqtop(args=args, memory_limit_mb=None)
        coq.start()
        try:
            return self._replay(coq)
        finally:
            coq.kill()

    def _replay(self, coq: Coqtop) -> list[dict]:
        # a file that loads a file which is not installed is replayed up to that sentence only
        stop = self.file.stops_at
        theorems = {t.offset: t for t in self.file.theorems if stop is None or t.offset < stop}
        spans = [s for s in self.file.sentences if stop is None or s[0] < stop]
        if stop is not None:
            self.skipped.append(f"{self.where(stop)}: the rest of the file is not replayed: it loads "
                                f"{self.file.missing_loads[0]}, which is not installed")
        records: list[dict] = []
        pending: list[tuple[int, int]] = []  # sentences outside traced proofs, sent in one batch
        i = 0
        while i < len(spans):
            span = spans[i]
            thm = theorems.get(span[0])
            if thm is None:
                pending.append(span)
                i += 1
                continue
            self._send_batch(coq, pending)
            pending = []
            # the index puts the terminator (Qed.) right after the proof's sentences
            end = i + 1 + len(thm.proof)
            try:
                records.append(self._trace_theorem(coq, thm, span, spans[end]))
            except UnreadableState as exc:
                self.skipped.append(str(exc))
            i = end + 1
        self._send_batch(coq, pending)
        return records

    def _send_batch(self, coq: Coqtop, spans: list[tuple[int, int]]) -> None:
        if not spans:
            return
        replies = coq.send_all([self.code(s) for s in spans], _SENTENCE_TIMEOUT)
        for span, reply in zip(spans, replies):
            self._check(reply, span)

    def _check(self, reply: Reply, span: tuple[int, int]) -> None:
        if not reply.ok:
            raise TraceError(f"{self.where(span[0])}: coqtop refused {self.code(span)[:80]!r}: {reply.error[:500]}")

    def _state(self, coq: Coqtop, reply: Reply, span: tuple[int, int],
               previous: tuple[str, set[str]] | None) -> tuple[str, set[str]]:
        """The rendered state a reply shows (asking ``Show i.`` for the hypotheses of goals 2..n).

        coqtop prints nothing when a sentence leaves the proof as it was: that is ``previous``.
        """
        self._check(reply, span)
        try:
            view = parse_view(reply.output)
            if view is None:
                if previous is None:
                    raise GoalParseError("no goals printed after the statement")
                return previous
            _, view = complete_view(coq, reply.state_id, view, timeout=_SENTENCE_TIMEOUT)
        except GoalParseError as exc:
            raise UnreadableState(f"{self.where(span[0])}: cannot read the goals after {self.code(span)[:80]!r}: {exc}") from None
        return _render(view), {h.name for g in view.goals for h in g.hypotheses}

    def _trace_theorem(self, coq: Coqtop, thm: TheoremEntry, statement: tuple[int, int], end_span: tuple[int, int]) -> dict:
        try:
            state, names = self._state(coq, coq.send(self.code(statement), _SENTENCE_TIMEOUT), statement, None)
        except UnreadableState:
            self._finish_unrecorded(coq, thm, list(thm.proof), end_span)
            raise
        tactics = []
        for k, span in enumerate(thm.proof):
            code = self.code(span)
            reply = coq.send(code, _SENTENCE_TIMEOUT)
            if _PROOF_VERNAC.match(code):
                self._check(reply, span)
                continue
            try:
                after, after_names = self._state(coq, reply, span, (state, names))
            except UnreadableState:
                self._finish_unrecorded(coq, thm, list(thm.proof[k + 1 :]), end_span)
                raise
            # hypotheses before the tactic and those it introduces (intros A l) shadow premises
            annotated, premises = self.resolver.annotate(code, self.file.path, thm.start, names | after_names)
            tactics.append({
                "tactic": code,
                "annotated_tactic": [annotated, [p.to_json() for p in premises]],
                "state_before": state,
                "state_after": after,
            })
            self.steps += 1
            state, names = after, after_names
        self._close(coq, thm, end_span)
        if state != NO_GOALS:
            raise TraceError(f"{self.where(thm.offset)}: proof of {thm.full_name} replayed but goals remain: {state[:200]!r}")
        project = self.index.project
        return {
            "url": URL if project.is_stdlib else project.root.resolve().as_uri(),
            "commit": f"V{coq_version()}",
            "file_path": self.file.path,
            "full_name": thm.full_name,
            "start": list(thm.start),
            "end": list(thm.end),
            "traced_tactics": tactics,
        }


    def _close(self, coq: Coqtop, thm: TheoremEntry, end_span: tuple[int, int]) -> None:
        """Send the proof's terminator.

        The library is compiled already, so the kernel need not check an opaque proof again:
        closing it with Admitted saves that time. Not in sections (a proof decides which section
        variables the lemma abstracts over) and not for Defined (its body may compute later).
        """
        elide = thm.terminator == "Qed" and not thm.in_section
        self._check(coq.send("Admitted." if elide else self.code(end_span), _SENTENCE_TIMEOUT), end_span)

    def _finish_unrecorded(self, coq: Coqtop, thm: TheoremEntry, rest: list[tuple[int, int]], end_span: tuple[int, int]) -> None:
        """Replay the ``rest`` of a proof and its terminator without reading states."""
        self._send_batch(coq, rest)
        self._close(coq, thm, end_span)


def _render(view: ProofView) -> str:
    return NO_GOALS if view.outcome == Outcome.FINISHED else view.render()


def _cpu_time() -> float:
    """CPU seconds of this process plus its reaped children (the coqtops, killed and waited for)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def trace_file(index: CoqIndex, resolver: PremiseResolver, path: str) -> FileTrace:
    """Replay one file; a replay failure is recorded in ``error`` (the file then has no theorems)."""
    t0, c0 = time.perf_counter(), _cpu_time()
    rep = _Replayer(index, resolver, path)
    try:
        theorems, error = rep.run(), None
    except (TraceError, CoqtopDied) as exc:
        theorems, error = [], f"{path}: {exc}" if isinstance(exc, CoqtopDied) else str(exc)
    return FileTrace(path, rep.file.sha1, theorems, error, rep.skipped, rep.steps,
                     time.perf_counter() - t0, _cpu_time() - c0)


def _cache_path(out_dir: Path, path: str) -> Path:
    return out_dir / "files" / (path + ".json")


def _load_cached(out_dir: Path, index: CoqIndex, path: str) -> dict | None:
    """The cached trace of ``path`` if it is current (same format, same source); failures included.

    The output directory can come from anywhere, and the cache is only a cache: one that is a link,
    a FIFO or no file (never followed nor waited on, :func:`read_regular`), not JSON, or not of a
    trace's shape is not used, with a warning naming it, and the file is traced again over it."""
    p = _cache_path(out_dir, path)
    try:
        raw = read_regular(p)
        data = None if raw is None else json.loads(raw)
    except (OSError, ValueError, RecursionError) as exc:
        _unusable(p, f"{type(exc).__name__}: {exc}")
        return None
    if data is None or (isinstance(data, dict) and (data.get("format"), data.get("sha1"))
                        != (TRACE_FORMAT, index.file(path).sha1)):
        return None  # not traced yet, or traced from another source or format: traced again, silently
    problem = _trace_problem(data)
    if problem is not None:
        _unusable(p, problem)
        return None
    return data


def _trace_problem(data: object) -> str | None:
    """What in a per-file trace ``data`` is not as :meth:`FileTrace.to_json` writes it (the fields
    the splits are written from), or None."""
    if not isinstance(data, dict):
        return f"a JSON {type(data).__name__}, not an object"
    theorems, skipped = data.get("theorems"), data.get("skipped", [])
    if not isinstance(theorems, list) or not all(isinstance(t, dict) and isinstance(t.get("traced_tactics"), list)
                                                 for t in theorems):
        return "theorems is not a list of traced theorems"
    if not (data.get("error") is None or isinstance(data.get("error"), str)):
        return "error is neither null nor a string"
    if not (isinstance(skipped, list) and all(isinstance(x, str) for x in skipped)):
        return "skipped is not a list of strings"
    return None


def _unusable(cache: Path, problem: str) -> None:
    """Warn that ``cache`` is not used: from one place, so each cache is warned about once however
    many readers meet it before it is traced again (Python shows a warning once per text and line)."""
    warnings.warn(f"{cache}: unusable trace cache ({problem[:120]}); tracing the file again", RuntimeWarning,
                  stacklevel=1)


_worker_state: tuple[CoqIndex, PremiseResolver, Path] | None = None


def _worker_init(out_dir: str, project: dict | None) -> None:
    global _worker_state
    index = load_index(load_project_ref(project), progress=False)
    _worker_state = (index, PremiseResolver(index), Path(out_dir))


def _worker_trace(path: str) -> tuple[str, int, float, float, str | None]:
    assert _worker_state is not None
    index, resolver, out_dir = _worker_state
    trace = trace_file(index, resolver, path)
    target = _cache_path(out_dir, path)
    make_dir(target.parent, under=out_dir)  # a link among the directories is refused, not written through
    replace_file(target, json.dumps(trace.to_json(), ensure_ascii=False).encode(), fsync=False)
    return path, trace.steps, trace.seconds, trace.cpu_seconds, trace.error


@dataclass
class TraceSummary:
    """Counts of one :func:`ensure_traced` call (``traced``: files replayed now, the rest came from the cache)."""

    out_dir: Path
    files: int
    traced: int
    failed: list[str]
    skipped: list[str]  # theorems whose goals could not be read (the rest of their file is traced)
    theorems: int
    tactics: int
    annotated_tactics: int
    premises: int
    steps_now: int
    seconds_now: float  # wall-clock, summed over workers
    cpu_seconds_now: float  # CPU time of the tracing processes and their coqtops

    @property
    def steps_per_cpu_second(self) -> float:
        """Tracing throughput on one core: tactic steps per CPU second (the load-independent measure)."""
        return self.steps_now / self.cpu_seconds_now if self.cpu_seconds_now else 0.0

    def problems(self) -> list[str]:
        """One printable line per file that failed and per theorem skipped, for every report of a trace."""
        return [f"failed: {e}" for e in self.failed] + [f"theorem skipped: {r}" for r in self.skipped]


def untraced_files(files: list[str] | None = None, out_dir: Path | None = None,
                   project: CoqProject | None = None) -> list[str]:
    """The ``files`` of ``project`` (default: the stdlib; all by default) that have no current trace
    in ``out_dir`` (default :func:`traced_data_dir`): never traced, or traced from another source
    or trace format. A file whose last trace failed counts as traced, so that a caller tracing only
    what is missing (the first run of the default prover) does not replay a broken file each time;
    ``trace`` itself tries those again."""
    project = project or stdlib_project()
    out_dir = traced_data_dir(project) if out_dir is None else out_dir
    index = project_index(project, progress=False)
    files = list(index.files) if files is None else [index.file(p).path for p in files]
    return [p for p in files if p not in index.failed and _load_cached(out_dir, index, p) is None]


def corpus_is_current(out_dir: Path | None = None) -> bool:
    """Whether ``out_dir``'s ``corpus.jsonl`` (default :func:`traced_data_dir`) was written by this
    scanner: a newer one may say more of each premise (how a tactic names it, for one), and the
    per-file traces, keyed by source and trace format, do not show it."""
    meta = (traced_data_dir() if out_dir is None else out_dir) / "metadata.json"
    try:
        return json.loads(read_regular(meta) or b"{}").get("scanner") == code_version()
    except (OSError, ValueError, AttributeError):
        return False


def trace_files(traces: str | Path | None = None) -> list[str]:
    """The traced split files in ``traces`` (None: :func:`traced_data_dir`), or []: what kNN and
    proof retrieval read (:func:`prover.coq.default_generator.coq_default`). An empty string names
    no directory and is a :class:`UserError`, not the default: a caller's blank option must not
    quietly stand for the tracer's cache."""
    if isinstance(traces, str) and not traces:
        raise UserError("traces: an empty path names no directory (leave it out for the tracer's cache directory)")
    found = [Path(traced_data_dir() if traces is None else traces) / f"{split}.json" for split in SPLITS]
    return [str(p) for p in found if p.exists()]


def is_traced(out_dir: Path) -> bool:
    """Whether ``out_dir`` holds a finished trace: every split file (:func:`trace_files`). :func:`ensure_traced` writes them only
    after every file's trace, so a trace stopped before (Ctrl-C in the first-use trace) leaves
    ``corpus.jsonl`` and the files done, but is not one: counting it (the corpus was the test) made a
    later run with ``--no-trace`` learn from no split file of the project, and warn of nothing.
    The one test of a traced directory, for the stdlib's, a project's and the first-use trace."""
    return len(trace_files(out_dir)) == len(SPLITS)


@contextmanager
def _sigint_ignored() -> Iterator[None]:
    """SIGINT ignored while worker processes start: they inherit it (CPython then installs no
    KeyboardInterrupt handler), so Ctrl-C at a terminal, which signals the whole process group,
    stops the driver alone, quietly, and the driver's pool terminates them. A no-op off the main
    thread, where signal handlers cannot be set."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


#: what :func:`ensure_traced` writes into its output directory, which no other output may hold
_TRACE_OUTPUTS = frozenset({"corpus.jsonl", "metadata.json", "files", *(f"{s}.json" for s in SPLITS)})


def check_trace_dir(out_dir: Path, project: CoqProject) -> None:
    """Refuse (:class:`search_tree.errors.UserError`, naming it) an output directory where tracing
    ``project`` would replace files it did not write for that project: a file, a directory holding
    other files than a trace's, or another project's trace (``metadata.json`` says whose; one
    written before it said so is taken as this project's)."""
    if not out_dir.exists():
        return
    if not out_dir.is_dir():
        raise UserError(f"{out_dir} is not a directory; choose another --out")
    names = {p.name for p in out_dir.iterdir()}
    foreign = sorted(n for n in names if n not in _TRACE_OUTPUTS and not n.endswith(".tmp"))
    meta = out_dir / "metadata.json"
    try:
        raw = read_regular(meta)  # neither a link followed nor a FIFO waited on
        whose = json.loads(raw).get("project") if raw is not None else None
    except (OSError, ValueError, AttributeError):
        whose = "unreadable"
    problem = (f"holds {', '.join(foreign[:3])}, which no trace wrote" if foreign
               else "holds trace files but no metadata.json" if names and not meta.exists()
               else f"holds the trace of another project ({whose})" if whose not in (None, str(project.root))
               else None)
    if problem is not None:
        raise UserError(f"{out_dir} {problem}: tracing {project.name} there would replace its files; "
                        "choose another --out")


def ensure_traced(
    files: list[str] | None = None,
    out_dir: Path | None = None,
    workers: int = 1,
    progress: bool = True,
    project: CoqProject | None = None,
) -> TraceSummary:
    """Trace the ``files`` of ``project`` (default: the stdlib; paths relative to its root, all by
    default) that are not cached yet. A project is built first; files coqc rejects are reported
    as failed with coqc's message.

    Writes ``corpus.jsonl`` (the whole project, so premises of any file resolve, and for a project
    the stdlib files it requires: :func:`prover.coq.corpus.premise_files`), the per-file caches,
    and the split files ``train.json``/``val.json``/``test.json`` with every file traced so
    far in ``out_dir``. Safe to interrupt: finished files are kept and the next call resumes.
    """
    project = project or stdlib_project()
    out_dir = traced_data_dir(project) if out_dir is None else out_dir
    check_trace_dir(out_dir, project)
    index = project_index(project, progress=progress)
    files = list(index.files) if files is None else [index.file(p).path for p in files]
    out_dir.mkdir(parents=True, exist_ok=True)
    num_premises = write_corpus(index, out_dir / "corpus.jsonl")
    # files that failed before are traced again: the failure may have been the machine's (memory, time)
    todo = [p for p in files if p not in index.failed
            and ((c := _load_cached(out_dir, index, p)) is None or c["error"])]
    steps_now, seconds_now, cpu_now = 0, 0.0, 0.0
    if todo:
        from tqdm import tqdm

        # closed on Ctrl-C too, so that the line printed next starts on a line of its own
        with tqdm(total=len(todo), desc=f"tracing {project.name}", unit="file", file=sys.stderr,
                  disable=not progress) as bar:
            if workers > 1:
                ctx = multiprocessing.get_context("spawn")
                with _sigint_ignored():
                    pool = ctx.Pool(workers, initializer=_worker_init,
                                    initargs=(str(out_dir), None if project.is_stdlib else project.ref()))
                with pool:
                    results = pool.imap_unordered(_worker_trace, todo)
                    for _, steps, seconds, cpu, _error in results:
                        steps_now, seconds_now, cpu_now = steps_now + steps, seconds_now + seconds, cpu_now + cpu
                        bar.update()
                        bar.set_postfix(steps_per_cpu_s=f"{steps_now / max(cpu_now, 1e-9):.0f}")
            else:
                global _worker_state
                _worker_state = (index, PremiseResolver(index), out_dir)
                for p in todo:
                    _, steps, seconds, cpu, _error = _worker_trace(p)
                    steps_now, seconds_now, cpu_now = steps_now + steps, seconds_now + seconds, cpu_now + cpu
                    bar.update()
                    bar.set_postfix(steps_per_cpu_s=f"{steps_now / max(cpu_now, 1e-9):.0f}")
    return _write_splits(index, out_dir, files, len(todo), num_premises, steps_now, seconds_now, cpu_now)


def _write_splits(index: CoqIndex, out_dir: Path, files: list[str], traced: int, num_premises: int,
                  steps_now: int, seconds_now: float, cpu_now: float) -> TraceSummary:
    """Rewrites the split files from every per-file cache in ``out_dir`` (not only ``files``)."""
    split = project_split(index.project, list(index.files))
    by_split: dict[str, list[dict]] = {s: [] for s in SPLITS}
    failed: list[str] = [f"{path}: not compiled: {error}" for path, error in index.failed.items() if path in files]
    skipped: list[str] = []
    for path in index.files:
        data = _load_cached(out_dir, index, path)
        if data is None:
            continue
        if data["error"]:
            failed.append(data["error"])
        skipped.extend(data.get("skipped", []))
        name = next((s for s in SPLITS if path in split[s]), split_of(path, index.project))
        by_split[name].extend(data["theorems"])
    for name, records in by_split.items():
        replace_file(out_dir / f"{name}.json", json.dumps(records, ensure_ascii=False).encode(), fsync=False)
    records = [r for rs in by_split.values() for r in rs]
    tactics = [t for r in records for t in r["traced_tactics"]]
    summary = TraceSummary(
        out_dir, len(files), traced, failed, skipped, len(records), len(tactics),
        sum(1 for t in tactics if t["annotated_tactic"][1]), num_premises, steps_now, seconds_now, cpu_now,
    )
    meta = {
        "coq_version": coq_version(),
        "project": str(index.project.root),  # whose trace this is: see check_trace_dir
        "url": URL,
        "split": "by file, sha256(logical module name) % 100: <80 train, <90 val, else test",
        "counts": {s: len(by_split[s]) for s in SPLITS},
        "tactics": summary.tactics,
        "annotated_tactics": summary.annotated_tactics,
        "premises": num_premises,
        "scanner": code_version(),  # of the code that wrote corpus.jsonl: see corpus_is_current
        "failed_files": failed,
        "skipped_theorems": skipped,
    }
    replace_file(out_dir / "metadata.json", json.dumps(meta, indent=1).encode(), fsync=False)
    return summary
