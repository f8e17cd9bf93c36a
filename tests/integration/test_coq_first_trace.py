"""The stdlib traced where the default prover is first used (``prover.coq.first_trace``, the demo's
first step): only what is missing, into the cache ``trace`` writes, resumable after Ctrl-C.

Real coqtop; a few small stdlib files in a cache of the test's own, except for the Ctrl-C test,
which starts the demo as a user does on a fresh machine and stops it once two files are traced.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import psutil
import pytest

pytestmark = [pytest.mark.coq, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
FILES = ["Bool/DecBool.v", "Wellfounded/Inclusion.v", "Relations/Relations.v"]
ANNOUNCED = re.compile(r"kNN and proof retrieval, part of the default prover, learn from the traced Coq stdlib: tracing "
                       r"its (\d+) files? not traced yet into (\S+), once, on (\d+) workers? "
                       r"\(Ctrl-C stops it; the next run goes on from there\)")


def coqtops_under(pid: int) -> list[psutil.Process]:
    """The coqtop processes descending from ``pid`` now (those that end while being listed left out)."""
    found = []
    for child in psutil.Process(pid).children(recursive=True):
        try:
            if child.name() == "coqtop":
                found.append(child)
        except psutil.NoSuchProcess:
            continue
    return found


def test_first_use_traces_only_what_is_missing_into_the_trace_commands_cache(private_cache):
    """Fails if the first use traces files already traced, traces anywhere but the directory
    ``trace`` writes under ``$DOJO_PROVER_CACHE``, says nothing (or more than one line) before a
    trace, says anything when nothing is missing, replays a file whose trace failed (``trace``
    does that, the first use does not), leaves a corpus an older scanner wrote, or if the default prover's traces are not
    switched on once the trace exists (one line saying they are missing before it, none after)."""
    from prover.coq.env import CoqEnvironment
    from prover.coq.first_trace import trace_untraced
    from prover.coq.install import cache_dir
    from prover.coq.trace_command import TRACER
    from prover.coq.tracer import corpus_is_current, traced_data_dir, untraced_files

    assert traced_data_dir() == cache_dir() / "traced" and private_cache in traced_data_dir().parents
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # configuring a run says nothing; the search's start does
        assert CoqEnvironment.default_traces() == []  # no learned member
    missing, = CoqEnvironment.missing_traces()
    assert re.fullmatch(r"the Coq stdlib is not traced here, .*dojo-prover trace --env coq.*", missing), missing

    said: list[str] = []
    assert trace_untraced(1, said.append, files=FILES[:1]) == 1
    assert len(said) == 1 and ANNOUNCED.fullmatch(said[0]), said
    assert ANNOUNCED.fullmatch(said[0]).groups() == ("1", str(traced_data_dir()), "1")
    assert untraced_files(FILES) == FILES[1:]

    said.clear()  # a later run goes on with the rest only
    assert trace_untraced(2, said.append, files=FILES) == 2
    assert len(said) == 1 and ANNOUNCED.fullmatch(said[0]).groups()[::2] == ("2", "2"), said
    assert untraced_files(FILES) == []

    # a file whose trace failed is not replayed on every first use (`trace` tries it again, below)
    cached = traced_data_dir() / "files" / f"{FILES[0]}.json"
    cached.write_text(json.dumps({**json.loads(cached.read_text()), "error": f"{FILES[0]}:1:1: failed"}))
    said.clear()  # nothing missing: nothing traced, nothing said
    assert trace_untraced(2, said.append, files=FILES) == 0 and said == []

    # a corpus an older scanner wrote (without the premises' modules) is written again, silently
    meta, corpus = traced_data_dir() / "metadata.json", traced_data_dir() / "corpus.jsonl"
    meta.write_text(json.dumps({**json.loads(meta.read_text()), "scanner": "older"}))
    corpus.write_text("".join(json.dumps({k: v for k, v in json.loads(line).items() if k != "module"}) + "\n"
                              for line in corpus.read_text().splitlines()))
    assert not corpus_is_current()
    assert trace_untraced(2, said.append, files=FILES) == 0 and said == []
    assert corpus_is_current() and all("module" in json.loads(line) for line in corpus.read_text().splitlines())

    lines: list[str] = []  # `trace` finds the other files traced, in its own default directory
    args = argparse.Namespace(files=FILES, workers=1, rebuild_index=False, project=None, flags=None, out=None)
    assert TRACER.run(args, lines.append) == 0
    assert lines[:2] == [f"traced data in {traced_data_dir()}",
                         f"files: {len(FILES)} requested, 1 traced now, 0 failed (all traced so far in the directory below)"]
    assert CoqEnvironment.default_traces() is None  # the stdlib's own default: the traced directory
    assert CoqEnvironment.missing_traces() == []


def _sigint_default() -> None:
    """SIGINT as a terminal's shell leaves it to the programs it starts: a pytest-xdist worker
    ignores it, and a child inheriting that ignores Ctrl-C (Python installs no handler then)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_in_the_demos_first_trace_exits_130_with_one_line_and_the_next_run_goes_on(private_cache):
    """``dojo-prover demo`` on a fresh cache traces the stdlib first; Ctrl-C (SIGINT to the whole
    process group, as a terminal sends it) once two files are traced. Fails unless it exits 130
    after one line saying how far it got, that count is what is on disk for the next run, and
    neither the driver nor its pool workers print a traceback or a warning, or if a coqtop of the
    trace outlives the demo."""
    from prover.coq.tracer import traced_data_dir, untraced_files

    total = len(untraced_files())
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "prover.cli", "demo", "--workers", "2", "--limit", "1"], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_sigint_default)
    try:
        deadline = time.monotonic() + 300
        while len(list((traced_data_dir() / "files").rglob("*.json"))) < 2:
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.5)
        coqtops = coqtops_under(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, (out, err)
    announced, interrupted = out.splitlines()
    assert ANNOUNCED.fullmatch(announced).groups() == (str(total), str(traced_data_dir()), "2"), announced
    done = re.fullmatch(rf"interrupted: (\d+) of {total} files traced into {re.escape(str(traced_data_dir()))}; "
                        r"the next run traces the other (\d+)", interrupted)
    assert done and int(done.group(1)) >= 2 and int(done.group(1)) + int(done.group(2)) == total, interrupted
    assert len(untraced_files()) == int(done.group(2))
    assert not re.search(r"Traceback|KeyboardInterrupt|[Ww]arning", err), err[-3000:]
    assert psutil.wait_procs(coqtops, timeout=10)[1] == []  # the workers' coqtops end with them
