"""The stdlib traced on first use: what the default Coq prover learns from, built when missing.

The default Coq prover (:mod:`prover.coq.default_generator`) proposes tactics by online kNN and
proof retrieval over the traced stdlib. Without the trace it runs with those members left out
and proves far less (on the demo's lemmas, under half of what ``benchmarks/results/demo.md``
shows), so the figures a user is shown would describe a prover they do not get. :func:`trace_untraced` (the Coq backend's
``Feature.DEFAULT_TRACE``) closes that gap where the default is first used: it traces whatever
files of the stdlib have no trace yet, into the same directory ``dojo-prover trace --env coq``
writes (:func:`prover.coq.tracer.traced_data_dir`, under ``$DOJO_PROVER_CACHE`` or
``~/.cache/dojo-prover``), after one line that says what it does and why, with a progress bar.

Every file's trace is written as soon as it is done (:func:`prover.coq.tracer.ensure_traced`), so
Ctrl-C loses at most the files being replayed: the call then says how far it got in one line and
raises ``KeyboardInterrupt`` for its caller to exit on, and the next call goes on from there.
Once every file is traced the call costs a check of the trace cache and prints nothing; a corpus
written by an older scanner is written again then (seconds, no Coq), so that an upgrade's premise
data reaches a machine that traced before it.

A project's own proofs are traced the same way where a run first proves its theorems (``eval``,
``prove``; :func:`trace_untraced` given the theorems): only the files the theorems can learn
from (their own files and the project files those import, transitively: what
:mod:`generator.accessible` lets kNN and proof retrieval see), into the directory
``dojo-prover trace --project`` writes. Tactician's online learning rests on exactly these
proofs (the earlier lemmas of the theorem's own file are the most like it), so without them the
default prover on a project is a weaker one than ``trace --project`` gives, and nothing but a
warning told the user. A project's files usually trace in seconds to minutes (AAC_tactics's six
in 8 s); the stdlib's 562 take about ten minutes on two cores, so for stdlib theorems only the
demo builds that trace, and ``eval``/``prove`` keep their warning.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prover.coq.project import CoqProject
    from search_tree.protocol import Theorem


def trace_untraced(workers: int, announce: Callable[[str], None], files: Sequence[str] | None = None,
                   theorems: Sequence[Theorem] | None = None, progress: bool = True) -> int:
    """Trace what the default prover learns from and has no trace yet, on ``workers`` processes,
    telling the user through ``announce`` (one line before, and one if Ctrl-C stops it); the number
    of files traced now (0: nothing was missing, nothing said).

    Without ``theorems``: the stdlib's ``files`` (paths under ``theories/``; default all). With
    ``theorems`` (of one project, as a run proves them): the files of their project that they can
    learn from (:func:`learnable_files`); nothing for the stdlib's theorems or theorems of several
    projects (see the module docstring). Files whose trace failed before are not tried again here
    (``trace`` does that), so a file Coq cannot replay costs the user nothing on every later run.
    ``progress``: the progress bar while it traces (``eval --no-progress`` asks for none)."""
    from prover.coq.tracer import corpus_is_current, ensure_traced, is_traced, traced_data_dir, untraced_files

    project = None if theorems is None else _project_of(theorems)
    if theorems is not None and project is None:
        return 0
    wanted = learnable_files(project, theorems or ()) if project is not None else files
    todo = untraced_files(list(wanted) if wanted is not None else None, project=project)
    out = traced_data_dir(project)
    if not todo:
        # every file is traced, but an older scanner wrote the corpus, or a stop after the last file
        # left no split files (what kNN reads): written again, tracing nothing, saying nothing
        if not corpus_is_current(out) or not is_traced(out):
            ensure_traced([], progress=False, project=project)
        return 0
    what = "the stdlib" if project is None else f"Coq project {project.name}"
    command = "dojo-prover trace --env coq" + ("" if project is None else f" --project {project.ref()['spec']}")
    source = "the traced Coq stdlib" if project is None else f"the traced proofs of {what}"
    announce(f"kNN and proof retrieval, part of the default prover, learn from {source}: tracing its "
             f"{_files(len(todo))} not traced yet into {out}, once, on {workers} worker{'s' if workers != 1 else ''} "
             "(Ctrl-C stops it; the next run goes on from there)")
    try:
        summary = ensure_traced(todo, workers=workers, progress=progress, project=project)
    except KeyboardInterrupt:
        left = len(untraced_files(todo, project=project))
        announce(f"interrupted: {len(todo) - left} of {len(todo)} files traced into {out}; the next run traces "
                 f"the other {left}")
        raise
    failed = [line for line in summary.failed if any(line.startswith(f"{path}:") for path in todo)]
    if failed:
        announce(f"{_files(len(failed))} of {what} could not be replayed and are left out "
                 f"(`{command}` tries them again): {failed[0][:200]}")
    return len(todo)


def learnable_files(project: CoqProject, theorems: Sequence[Theorem]) -> list[str]:
    """The files of ``project`` whose proofs ``theorems`` may learn from: each theorem's own file
    and the project files it imports, transitively (the accessibility rule of
    :mod:`generator.accessible`; the stdlib and installed libraries it imports are not the
    project's), in the index's order."""
    from prover.coq.build import project_index

    index = project_index(project, progress=False)
    todo = [t.file_path for t in theorems if t.file_path in index.files]
    seen: set[str] = set()
    while todo:
        path = todo.pop()
        if path not in seen:
            seen.add(path)
            todo.extend(p for p in index.files[path].imports if p in index.files)
    return [p for p in index.files if p in seen]


def _project_of(theorems: Sequence[Theorem]) -> CoqProject | None:
    """The one project, not the stdlib, that ``theorems`` belong to; None otherwise (the run's
    start says once that theorems of several projects learn from the stdlib's traces only)."""
    import warnings

    from prover.coq.env import run_project

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        project = run_project({}, theorems)
    return None if project.is_stdlib else project


def _files(count: int) -> str:
    return f"{count} file{'s' if count != 1 else ''}"
