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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence


def trace_untraced(workers: int, announce: Callable[[str], None], files: Sequence[str] | None = None) -> int:
    """Trace the stdlib ``files`` (paths under ``theories/``; default all) that have no trace yet on
    ``workers`` processes, telling the user through ``announce`` (one line before, and one if
    Ctrl-C stops it); the number of files traced now (0: nothing was missing, nothing said).

    Files whose trace failed before are not tried again here (``trace`` does that), so a file
    Coq cannot replay costs the user nothing on every later run."""
    from prover.coq.tracer import corpus_is_current, ensure_traced, traced_data_dir, untraced_files

    todo = untraced_files(list(files) if files is not None else None)
    if not todo:
        if not corpus_is_current():
            ensure_traced([], progress=False)  # traces nothing: writes the corpus and the splits again
        return 0
    out = traced_data_dir()
    announce(f"kNN and proof retrieval, part of the default prover, learn from the traced Coq stdlib: tracing its "
             f"{_files(len(todo))} not traced yet into {out}, once, on {workers} worker{'s' if workers != 1 else ''} "
             "(Ctrl-C stops it; the next run goes on from there)")
    try:
        summary = ensure_traced(todo, workers=workers)
    except KeyboardInterrupt:
        left = len(untraced_files(todo))
        announce(f"interrupted: {len(todo) - left} of {len(todo)} files traced into {out}; the next run traces "
                 f"the other {left}")
        raise
    failed = [line for line in summary.failed if any(line.startswith(f"{path}:") for path in todo)]
    if failed:
        announce(f"{_files(len(failed))} of the stdlib could not be replayed and are left out "
                 f"(`dojo-prover trace --env coq` tries them again): {failed[0][:200]}")
    return len(todo)


def _files(count: int) -> str:
    return f"{count} file{'s' if count != 1 else ''}"
