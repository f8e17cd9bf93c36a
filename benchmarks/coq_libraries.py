"""Does every Coq library Debian ships open as it was compiled? Index each, open a sample of its theorems.

    python -m benchmarks.coq_libraries --libraries all --install --sample 20 [--trace-files 3] [--write-results]
    python -m benchmarks.coq_libraries --libraries libcoq-reglang libcoq-relation-algebra

``--libraries`` names Debian packages (``libcoq-*``; ``all`` is every one the apt cache lists but
the stdlib's and the OCaml runtime's); with ``--install`` the missing ones are installed first
(``apt-get install``, which needs root). For each package, every library it installs under
``user-contrib`` (``coq-lib:NAME``; a package of a larger library's part, such as
``libcoq-mathcomp-algebra``, is that part, ``coq-lib:mathcomp.algebra``):

1. **index**: :func:`prover.coq.build.project_index`: files indexed, files left out (the scan could
   not read them) and theorems found;
2. **open**: a stable sample (:func:`prover.benchmarks.registry.stable_sample`) of ``--sample`` theorems,
   each opened as the default prover opens it (its context additions included): the file's
   context replayed in coqtop, the statement accepted, and one cheap tactic (``intros.``) run on
   the first state. Per library: opened of sampled, the errors by kind (with one example each),
   and the median seconds per open;
3. **trace**: a stable sample of ``--trace-files`` files traced (:func:`prover.coq.tracer.ensure_traced`,
   into a temporary directory): files traced of tried.

A file that loads a file its package does not install (``Load``, ``Elpi Accumulate File``) cannot
be replayed past that sentence: its theorems after it are counted as unopenable, with the reason,
and never sampled (:meth:`prover.coq.index.CoqIndex.unopenable`). A package that installs no Coq
sources (a plugin, a meta package), or a library that cannot be loaded at all, is named with the
reason instead of a row of figures. Progress goes to stderr. Each package's figures are kept
under the cache directory (:func:`cached_measure`), so a sweep that stops resumes where it was.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import inspect
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from prover.benchmarks.registry import stable_sample
from prover.benchmarks.results import add_results_flag, write_results
from prover.coq.install import debian_coq_packages, user_contrib
from search_tree.errors import one_line

#: the tactic every opened theorem runs once: cheap, and it reads the state coqtop prints back
PROBE = "intros."


@dataclass
class LibraryReport:
    """What one library's row says (``reason``: why it could not be measured at all)."""

    package: str
    name: str
    files: int = 0
    unscanned: int = 0
    theorems: int = 0
    sampled: int = 0
    opened: int = 0
    errors: Counter = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)
    seconds: list[float] = field(default_factory=list)
    traced: int = 0
    trace_tried: int = 0
    trace_failures: list[str] = field(default_factory=list)
    unopenable: int = 0  # theorems left out because their file loads a file that is not installed
    unopenable_files: list[str] = field(default_factory=list)  # "path: n theorems: reason"
    reason: str = ""


def package_libraries(package: str) -> list[str]:
    """The libraries (``coq-lib:NAME`` names) whose ``.v`` files the installed ``package`` holds:
    the directories under ``user-contrib`` that hold its files and no other package's, as few as
    cover them all (``mathcomp.analysis`` and ``mathcomp.classical`` for
    ``libcoq-mathcomp-analysis``, not the whole of ``mathcomp``); empty when it installs none."""
    listed = subprocess.run(["dpkg", "-L", package], capture_output=True, text=True, check=False).stdout.split()
    contrib = user_contrib()
    own = {Path(p) for p in listed if p.endswith(".v") and Path(p).is_relative_to(contrib)}
    if not own:
        return []

    def covering(where: Path) -> list[Path]:
        under = [f for f in own if f.is_relative_to(where)]
        if set(where.rglob("*.v")) <= own or any(f.parent == where for f in under):
            return [where]
        return [d for part in sorted({f.relative_to(where).parts[0] for f in under}) for d in covering(where / part)]

    common = Path(os.path.commonpath([f.parent for f in own]))
    tops = [common] if common != contrib else sorted({contrib / f.relative_to(contrib).parts[0] for f in own})
    return [".".join(d.relative_to(contrib).parts) for top in tops for d in covering(top)]


def error_kind(message: str) -> str:
    """A short kind for an open's failure, so that a report groups them."""
    for marker, kind in (("context sentence", "context refused"), ("rejected the statement", "statement refused"),
                         ("timed out", "timeout"), ("timeout", "timeout"), ("cannot read", "goals unread"),
                         ("died", "coqtop died"), ("exited", "coqtop died")):
        if marker in message:
            return kind
    return "other"


def open_sample(report: LibraryReport, spec: str, sample: int) -> None:
    """Stage 2 for one library (see the module docstring)."""
    from prover.coq.build import project_index
    from prover.coq.env import CoqEnvironment
    from prover.coq.presets import ADDITIONS
    from prover.coq.project import load_project

    project = load_project(spec)
    index = project_index(project, progress=False)
    report.files, report.unscanned, theorems = len(index.files), len(index.failed), index.theorems()
    report.theorems = len(theorems)
    unopenable = index.unopenable()
    report.unopenable = sum(n for n, _ in unopenable.values())
    report.unopenable_files = [f"{path}: {n} theorems: {why}" for path, (n, why) in sorted(unopenable.items())]
    chosen = stable_sample(theorems, sample)
    report.sampled = len(chosen)
    with CoqEnvironment(tactic_timeout=10.0, additions=ADDITIONS, project=spec, index=index) as env:
        for n, theorem in enumerate(chosen, 1):
            print(f"  open {n}/{len(chosen)} {theorem.file_path}::{theorem.full_name}", file=sys.stderr, flush=True)
            started = time.perf_counter()
            try:
                with env.open(theorem) as (session, state):
                    session.run_tac(state, PROBE)
            except Exception as exc:  # every failure is a finding of this benchmark, counted by kind
                kind = error_kind(str(exc))
                report.errors[kind] += 1
                report.examples.setdefault(kind, f"{theorem.file_path}::{theorem.full_name}: {one_line(exc)[:300]}")
                continue
            report.opened += 1
            report.seconds.append(time.perf_counter() - started)


def trace_sample(report: LibraryReport, spec: str, files: int, work: Path) -> None:
    """Stage 3 for one library: a stable sample of its files traced."""
    from prover.coq.build import project_index
    from prover.coq.project import load_project
    from prover.coq.tracer import ensure_traced

    project = load_project(spec)
    index = project_index(project, progress=False)
    paths = [p for p in index.files if p not in index.failed]
    chosen = sorted(paths, key=lambda p: hashlib.sha1(p.encode()).hexdigest())[:files]
    if not chosen:
        return
    print(f"  trace {len(chosen)} files", file=sys.stderr, flush=True)
    summary = ensure_traced(files=chosen, out_dir=work / spec.replace(":", "-"), progress=False, project=project)
    report.trace_tried = len(chosen)
    report.traced = len(chosen) - len(summary.failed)
    report.trace_failures = [line[:300] for line in summary.failed]


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """A hash of the code that measures (the Coq backend's, and this script's functions that
    open, trace and name libraries, not its report): a package measured by other code is
    measured again."""
    backend = sorted((Path(__file__).parent.parent / "prover" / "coq").glob("*.py"))
    measuring = "".join(inspect.getsource(f) for f in (package_libraries, error_kind, open_sample, trace_sample,
                                                        measure)) + PROBE
    return hashlib.sha1(b"".join(p.read_bytes() for p in backend) + measuring.encode()).hexdigest()[:12]


def cached_measure(package: str, sample: int, trace_files: int, work: Path,
                   cached_only: bool = False) -> tuple[list[LibraryReport], bool]:
    """:func:`measure`, kept per package under the cache directory (``library-sweep/``), so that
    a sweep that stops (it takes an hour over every package) resumes where it was: a package
    already measured by the same code, Coq, package version, sample and trace size is read back.
    Returns the reports and whether they came from the cache; with ``cached_only``, a package
    not measured yet is one report saying so, and nothing is measured."""
    from prover.coq.install import cache_dir

    version = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", package], capture_output=True, text=True,
                             check=False).stdout
    key = hashlib.sha1(f"{code_version()}\0{version}\0{sample}\0{trace_files}".encode()).hexdigest()[:16]
    path = cache_dir() / "library-sweep" / f"{package}-{key}.json"
    if path.is_file():
        return [LibraryReport(**{**r, "errors": Counter(r["errors"])}) for r in json.loads(path.read_text())], True
    if cached_only:
        return [LibraryReport(package, "-", reason="not measured yet (--cached-only reports the packages measured "
                                                   "before by this code)")], False
    reports = measure(package, sample, trace_files, work)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps([asdict(r) for r in reports]))
    tmp.replace(path)
    return reports, False


def measure(package: str, sample: int, trace_files: int, work: Path) -> list[LibraryReport]:
    names = package_libraries(package)
    if not names:
        listed = subprocess.run(["dpkg", "-L", package], capture_output=True, text=True, check=False)
        reason = ("not installed (use --install)" if listed.returncode else
                  "installs compiled files (.vo) without their .v sources, so its theorems cannot be read"
                  if any(p.endswith(".vo") for p in listed.stdout.split()) else
                  "installs no Coq files under user-contrib (a plugin or a meta package)")
        return [LibraryReport(package, "-", reason=reason)]
    reports = []
    for name in names:
        report = LibraryReport(package, name)
        print(f"{package}: coq-lib:{name}", file=sys.stderr, flush=True)
        try:
            open_sample(report, f"coq-lib:{name}", sample)
            if trace_files:
                trace_sample(report, f"coq-lib:{name}", trace_files, work)
        except Exception as exc:  # a library that cannot be loaded at all is a row with its reason
            report.reason = one_line(exc)[:300]
        reports.append(report)
    return reports


def print_report(reports: list[LibraryReport], sample: int, trace_files: int) -> None:
    print(f"sample: {sample} theorems per library (stable), probe tactic `{PROBE}`, trace: {trace_files} files per "
          f"library\n")
    print("| package | library | files | unscanned | theorems | unopenable | opened | open % | errors by kind | "
          "s per open | traced |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|")
    measured = [r for r in reports if not r.reason]
    for r in measured:
        kinds = ", ".join(f"{k} {n}" for k, n in r.errors.most_common()) or "-"
        share = f"{100 * r.opened / r.sampled:.0f}" if r.sampled else "n/a"
        per_open = f"{statistics.median(r.seconds):.2f}" if r.seconds else "n/a"
        traced = f"{r.traced}/{r.trace_tried}" if r.trace_tried else "-"
        print(f"| {r.package} | {r.name} | {r.files} | {r.unscanned} | {r.theorems} | {r.unopenable} | "
              f"{r.opened}/{r.sampled} | {share} | {kinds} | {per_open} | {traced} |")
    opened, sampled = sum(r.opened for r in measured), sum(r.sampled for r in measured)
    print(f"\npooled: {opened}/{sampled} sampled theorems opened over {len(measured)} libraries"
          + (f" ({100 * opened / sampled:.1f}%)" if sampled else ""))
    full = [r for r in measured if r.sampled and r.opened >= 0.99 * r.sampled]
    print(f"libraries opening at least 99% of their sample: {len(full)} of {len([r for r in measured if r.sampled])}")
    files_traced, tried = sum(r.traced for r in measured), sum(r.trace_tried for r in measured)
    print(f"traced: {files_traced}/{tried} sampled files" + (f" ({100 * files_traced / tried:.1f}%)" if tried else ""))
    print(f"unopenable: {sum(r.unopenable for r in measured)} theorems of {sum(r.theorems + r.unopenable for r in measured)}"
          f" (left out of the sample: their file loads a file that is not installed)")
    unmeasured = [r for r in reports if r.reason]
    if unmeasured:
        print("\nnot measured:")
        for r in unmeasured:
            print(f"- {r.package} ({r.name}): {r.reason}")
    examples = [(r, k, e) for r in measured for k, e in r.examples.items()]
    if examples:
        print("\nan example of each error kind:")
        for r, kind, example in examples:
            print(f"- {r.name}, {kind}: {example}")
    unopenable = [(r, f) for r in measured for f in r.unopenable_files]
    if unopenable:
        print("\ntheorems that cannot be opened (not counted as failures; not sampled):")
        for r, line in unopenable:
            print(f"- {r.name}: {line}")
    failures = [(r, f) for r in measured for f in r.trace_failures]
    if failures:
        print("\nfiles the tracer failed on:")
        for r, failure in failures:
            print(f"- {r.name}: {failure}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--libraries", nargs="+", default=["libcoq-aac-tactics"],
                        help="Debian packages (libcoq-*), or `all` (default: libcoq-aac-tactics)")
    parser.add_argument("--install", action="store_true", help="apt-get install the packages not installed (root)")
    parser.add_argument("--sample", type=int, default=20, help="theorems opened per library (stable sample; default 20)")
    parser.add_argument("--trace-files", type=int, default=3, help="files traced per library (stable sample; default 3)")
    parser.add_argument("--cached-only", action="store_true",
                        help="measure nothing: report what earlier runs of this code measured (a stopped sweep so far)")
    add_results_flag(parser)
    args = parser.parse_args()
    if args.sample < 1 or args.trace_files < 0:
        parser.error("--sample must be at least 1 and --trace-files at least 0")
    known = debian_coq_packages()
    packages = list(known) if args.libraries == ["all"] else args.libraries
    unknown = [p for p in packages if p not in known]
    if unknown:
        parser.exit(2, f"{parser.prog}: error: not Debian Coq library packages: {', '.join(unknown)} (known: "
                       f"{', '.join(known) or 'none: no apt cache'})\n")
    if args.install:
        print(f"installing {len(packages)} packages", file=sys.stderr, flush=True)
        for package in packages:  # one at a time, so that one that cannot be installed costs only itself
            subprocess.run(["apt-get", "install", "-y", "-q", package], stdout=subprocess.DEVNULL, check=False)
    reports: list[LibraryReport] = []
    with tempfile.TemporaryDirectory(prefix="dojo-libsweep-") as tmp:
        for n, package in enumerate(packages, 1):
            print(f"[{n}/{len(packages)}] {package}", file=sys.stderr, flush=True)
            measured, cached = cached_measure(package, args.sample, args.trace_files, Path(tmp), args.cached_only)
            for r in measured:
                reports.append(r)
                print(f"[{n}/{len(packages)}] {package}: {r.name}: " + (r.reason or (
                    f"{r.opened}/{r.sampled} opened, errors {dict(r.errors)}, traced {r.traced}/{r.trace_tried}, "
                    f"{r.unopenable} theorems unopenable")) + (" (measured before, cached)" if cached else ""),
                    file=sys.stderr, flush=True)
    print_report(reports, args.sample, args.trace_files)
    return 0


if __name__ == "__main__":
    sys.exit(write_results(main()))
