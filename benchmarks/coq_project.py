"""Throughput of the Coq project support on one project: index it, trace it, fill Admitted lemmas.

    python -m benchmarks.coq_project [--project coq-lib:AAC_tactics] [--fill tests/fixtures/coqproj] [--jobs N]

The whole run uses a cold cache (``$DOJO_PROVER_CACHE`` points at a temporary directory), and a
project directory is worked on in a copy without its build products, so nothing of the user's is
read from a cache or written. One table per stage; progress bars on stderr.

1. **index**: :func:`prover.coq.build.project_index`, which every command that opens a project's
   theorems runs first: files, seconds, files/s, theorems (Qed/Defined) and ``Admitted`` lemmas.
   An installed library's ``.vo`` were compiled by Debian, so nothing is built; a project directory
   is first built from scratch (coqc, ``--jobs`` at once), reported as its own row.
2. **trace**: :func:`prover.coq.tracer.ensure_traced`, what ``dojo-prover trace --project`` runs,
   with ``--jobs`` workers. Per file (from the tracer's per-file records) and in total (measured
   around the call with ``getrusage``, this process and its children: coqtop, the workers): tactic
   steps, theorems, wall and CPU seconds, steps per CPU second (the figure that does not depend on
   the machine's load) and per wall second. The baseline, measured in the same run: the CPU time
   ``coqc`` takes to compile the same files (:func:`benchmarks.coq_tracing.coqc_cpu`); ``trace/coqc``
   is the tracer's cost over Coq's own work.
3. **fill**: ``dojo-prover fill-admitted --write`` in a subprocess on a copy of the ``--fill``
   project with its default prover and budget: wall seconds per lemma (the search, from the run's
   results) and of the whole command (build, searches, recompiling the edited files), lemmas
   filled (no longer ``Admitted`` when the copy is indexed again) out of those admitted, and
   whether the copy, stripped of its ``.vo``, still builds from scratch afterwards.

An unknown project, or a directory without ``_CoqProject``, is the project model's one-line error
(exit 2), given before any stage runs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.coq_tracing import coqc_cpu, cpu_times
from prover.benchmarks.results import REPO, add_results_flag, write_results
from prover.coq.index import CoqIndex
from prover.coq.project import CoqProject, ProjectError, load_project
from search_tree.cache import CACHE_VARIABLE
from search_tree.errors import one_line

#: what a build leaves beside the sources (left out of copies, so that a copy builds from scratch)
BUILD_PRODUCTS = ("*.vo", "*.vok", "*.vos", "*.glob", ".*.aux", ".lia.cache", ".nia.cache")


def rate(count: float, seconds: float) -> str:
    """``count / seconds`` for a table cell, ``n/a`` when nothing was timed (a stage with no work
    must not divide by zero nor print a rate it did not measure)."""
    return f"{count / seconds:.1f}" if seconds > 0 else "n/a"


@dataclass
class Cost:
    """Wall and CPU seconds of one call: this process and its reaped children (coqtop, coqc, workers)."""

    wall: float
    py_cpu: float
    child_cpu: float

    @property
    def cpu(self) -> float:
        return self.py_cpu + self.child_cpu


class Meter:
    """Measures the :class:`Cost` of the block it wraps."""

    def __enter__(self) -> Meter:
        self._t0, self._cpu0 = time.perf_counter(), cpu_times()
        return self

    def __exit__(self, *exc: object) -> None:
        (py1, kids1), (py0, kids0) = cpu_times(), self._cpu0
        self.cost = Cost(time.perf_counter() - self._t0, py1 - py0, kids1 - kids0)


def table(header: list[object], rows: list[list[object]], first: int = 24) -> str:
    """Aligned columns: the first left-aligned ``first`` wide, the others right-aligned."""
    width = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    width[0] = max(width[0], first)
    return "\n".join(" ".join(f"{str(c):<{width[0]}}" if i == 0 else f"{str(c):>{width[i]}}" for i, c in enumerate(r))
                     for r in [header, *rows])


def copy_sources(project: CoqProject, dest: Path) -> CoqProject:
    """A copy of a project directory without its build products, as a project of its own."""
    shutil.copytree(project.root, dest, ignore=shutil.ignore_patterns(*BUILD_PRODUCTS))
    return load_project(str(dest), project.flags)


def stage_index(project: CoqProject, work: Path, jobs: int) -> tuple[CoqProject, CoqIndex]:
    """Stage 1; returns the project the later stages use (a built copy for a directory) and its index."""
    from prover.coq.build import build_project, project_index

    print("## index (cold cache)\n")
    rows: list[list[object]] = []
    if project.kind == "project":
        project = copy_sources(project, work / "project" / project.root.name)
        print(f"{len(project.source_files())} files, built from scratch in a copy ({project.root}), {jobs} coqc at once",
              file=sys.stderr)
        with Meter() as m:
            report = build_project(project, jobs=jobs)
        rows.append(["build (coqc, from scratch)", len(report.compiled), f"{m.cost.wall:.2f}",
                     rate(len(report.compiled), m.cost.wall), "", "", len(report.failed)])
    with Meter() as m:
        index = project_index(project, jobs=jobs)
    files = len(index.files)
    rows.append(["index", files, f"{m.cost.wall:.2f}", rate(files, m.cost.wall), len(index.theorems()),
                 len(index.admitted()), len(index.failed)])
    print(table(["step", "files", "wall s", "files/s", "theorems", "admitted", "failed"], rows))
    if project.kind != "project":
        print(f"\n(no build: {project.name} is an installed library, its .vo compiled by Debian)")
    for path, why in index.failed.items():
        print(f"failed: {path}: {why}")
    return project, index


def stage_trace(project: CoqProject, index: CoqIndex, work: Path, jobs: int) -> None:
    """Stage 2: the whole project traced, then the coqc baseline of the files traced."""
    from prover.coq.tracer import ensure_traced

    print(f"\n## trace ({jobs} worker{'s' if jobs > 1 else ''})\n")
    out = work / "traced"
    with Meter() as m:
        summary = ensure_traced(out_dir=out, workers=jobs, project=project)
    rows: list[list[object]] = []
    steps = theorems = 0
    baseline = 0.0
    for path in index.files:
        record = out / "files" / (path + ".json")  # the tracer's per-file record (prover/coq/tracer.py)
        if path in index.failed or not record.exists():
            continue
        data = json.loads(record.read_text())
        if data["error"]:
            continue
        print(f"coqc baseline: {path}", file=sys.stderr)
        compiled = coqc_cpu(project, path)
        steps, theorems, baseline = steps + data["steps"], theorems + len(data["theorems"]), baseline + compiled
        rows.append([path, len(data["theorems"]), data["steps"], f"{data['seconds']:.2f}", f"{data['cpu_seconds']:.2f}",
                     rate(data["steps"], data["cpu_seconds"]), rate(data["steps"], data["seconds"]),
                     f"{compiled:.2f}", f"{data['cpu_seconds'] / compiled:.2f}" if compiled > 0 else "n/a"])
    total = m.cost
    rows.append(["total (the whole call)", theorems, steps, f"{total.wall:.2f}", f"{total.cpu:.2f}",
                 rate(steps, total.cpu), rate(steps, total.wall), f"{baseline:.2f}",
                 f"{total.cpu / baseline:.2f}" if baseline > 0 else "n/a"])
    print(table(["file", "theorems", "steps", "wall s", "cpu s", "steps/cpu s", "steps/wall s", "coqc cpu s",
                 "trace/coqc"], rows))
    print(f"\ntotal cpu s: {total.py_cpu:.2f} this process + {total.child_cpu:.2f} children (coqtop, workers); "
          f"the whole call also indexes (cached by now) and writes corpus.jsonl ({summary.premises} premises)")
    for line in summary.problems():
        print(line)


def stage_fill(project: CoqProject, work: Path) -> None:
    """Stage 3: ``fill-admitted --write`` on a copy, through the CLI, then the copy rebuilt from scratch."""
    from prover.coq.build import build_project
    from prover.coq.index import load_index
    from prover.run.evaluation import ResultsFile, theorem_key

    print(f"\n## fill-admitted (a copy of {_shown(project.root)}, default prover)\n")
    copy = copy_sources(project, work / "fill" / project.root.name)
    admitted = {theorem_key(t) for t in load_index(copy, progress=False).admitted()}
    run = work / "fill" / "run"
    command = [sys.executable, "-m", "prover.cli", "fill-admitted", str(copy.root), "--out", str(run), "--write"]
    print(f"running: dojo-prover {' '.join(command[4:])}", file=sys.stderr)
    t0 = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, stdout=subprocess.PIPE, text=True, check=False)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"fill-admitted exited {done.returncode}:\n{done.stdout}")
    still = {theorem_key(t) for t in load_index(copy, progress=False).admitted()}
    results = {r["key"]: r["result"] for r in ResultsFile(run / "results.jsonl").load()}
    rows: list[list[object]] = []
    for key, result in results.items():
        rows.append([key, result["status"], f"{result['total_time']:.1f}", "yes" if key in admitted - still else "no"])
    print(table(["lemma", "search", "search s", "filled"], rows, first=32))
    for path in copy.root.rglob("*"):
        if path.is_file() and any(path.match(p) for p in BUILD_PRODUCTS):
            path.unlink()
    report = build_project(copy, progress=False)
    builds = "yes" if not report.failed else f"no: {report.failed}"
    print(f"\nfilled {len(admitted - still)} of {len(admitted)} admitted lemmas; the command took {wall:.1f} s wall "
          f"({wall / len(admitted):.1f} s per lemma)" if admitted else "\nno Admitted lemma in the project")
    print(f"the copy builds from scratch afterwards: {builds}")
    print("\nfill-admitted's own report:\n")
    print(done.stdout.strip())


def _shown(path: Path) -> str:
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", default="coq-lib:AAC_tactics",
                        help="the project to index and trace: a directory with a _CoqProject, coq-lib:NAME or coq-stdlib "
                             "(default: coq-lib:AAC_tactics)")
    parser.add_argument("--fill", default="tests/fixtures/coqproj",
                        help="the project directory whose Admitted lemmas are filled, in a copy (default: the fixture)")
    parser.add_argument("--jobs", type=int, default=1, help="coqc processes building, and tracing workers (default: 1)")
    add_results_flag(parser)
    args = parser.parse_args()
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    try:
        project = load_project(args.project)
        fill = load_project(args.fill)
    except ProjectError as exc:  # SystemExit, so that write_results never records a refused run
        parser.exit(2, f"{parser.prog}: error: {one_line(exc)}\n")
    if fill.kind != "project":
        parser.exit(2, f"{parser.prog}: error: --fill {args.fill}: must be a project directory (it is filled in a "
                       f"copy), not the {fill.kind} {fill.name}\n")
    with tempfile.TemporaryDirectory(prefix="dojo-projbench-") as tmp:
        work = Path(tmp)
        os.environ[CACHE_VARIABLE] = str(work / "cache")  # read on every call: a cold cache from here on
        print(f"project: {project.name} ({project.root}), fill: {_shown(fill.root)}, jobs: {args.jobs}\n")
        built, index = stage_index(project, work, args.jobs)
        stage_trace(built, index, work, args.jobs)
        stage_fill(fill, work)
    return 0


if __name__ == "__main__":
    sys.exit(write_results(main()))
