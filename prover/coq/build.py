"""Compile a Coq project's ``.vo`` files: in dependency order (``coqdep``), in parallel, only what is stale.

A ``.vo`` is the cache: a file is compiled when its ``.vo`` is missing, older than its source, or
older than the ``.vo`` of a file it requires, or when it was not checked here (no record of
:mod:`prover.coq.checked_vo` vouches for it: a project may ship ``.vo`` files, crafted ones
included). A file coqc rejects is reported with coqc's error and the files that require it are
skipped (naming it), while the rest of the project goes on, so that one broken file costs its
own theorems, not the project's. Installed libraries and the stdlib are
compiled already (and live outside the user's tree): they are never built here.

coqdep and coqc run in a fresh sandbox directory (:mod:`prover.coq.sandbox`: working directory,
``HOME`` and ``TMPDIR``), with the project's files and load paths given as absolute paths, and
they may write nothing else (:func:`prover.coq.sandbox.confined`): compiling a file runs code of
the file's choosing (CoqHammer's ``PredictPath`` is a shell command). coqc writes its output into
its sandbox (``-o``), and the build copies it beside the source (``.vo``, ``.vos``, ``.vok``,
``.glob``, ``.aux``): those are the only files a build writes in the project, and a project whose
files leave its root is refused before anything runs (:func:`prover.coq.project.inside_root`).
Each ``.vo`` made is then checked by coqchk and recorded (:mod:`prover.coq.checked_vo`), so that
a proof's final check loads it without re-checking it. A kernel that cannot confine (no
Landlock) builds no project.
"""

from __future__ import annotations

import subprocess
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from search_tree.safe_files import replace_file

from .checked_vo import check, recorded
from .index import CoqIndex, load_index
from .install import not_installed
from .project import CoqProject, ProjectError, inside_root
from .provenance import checker_load_path
from .sandbox import can_confine, confined, sandbox_dir, sandbox_env

COQC_TIMEOUT = 1800.0  # seconds per file: more means a hang, reported as that file's failure


@dataclass
class BuildReport:
    """What :func:`build_project` did: files compiled now, already current, and failed (path -> why)."""

    compiled: list[str] = field(default_factory=list)
    current: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0


def dependencies(project: CoqProject, files: list[str]) -> dict[str, list[str]]:
    """``file -> files of the project it requires`` (paths relative to the root), from ``coqdep``."""
    if not files:
        return {}
    root = project.root.resolve()
    with sandbox_dir("coqdep") as box:
        done = subprocess.run(confined(["coqdep", *project.load_args, *(str(root / f) for f in files)], box), cwd=box,
                              env=sandbox_env(box), capture_output=True, text=True, check=False)
    known = set(files)
    deps: dict[str, list[str]] = {f: [] for f in files}
    prefix = f"{root}/"

    def source(vo: str) -> str | None:  # /root/X.vo -> X.v, None for a file not of the project
        rel = vo[len(prefix):-1] if vo.startswith(prefix) and vo.endswith(".vo") else None
        return rel if rel in known else None

    for line in done.stdout.splitlines():
        targets, sep, sources = line.partition(":")
        path = source(targets.split()[0]) if sep and targets.split() else None
        if path is not None:
            deps[path] = [d for d in map(source, sources.split()) if d is not None]
    return deps


def dependents(deps: dict[str, list[str]], path: str) -> list[str]:
    """The files that require ``path``, directly or not (for recompiling after an edit)."""
    out: list[str] = []
    todo = [path]
    while todo:
        p = todo.pop()
        for f, ds in deps.items():
            if p in ds and f not in out:
                out.append(f)
                todo.append(f)
    return out


def _stale(root: Path, path: str, deps: list[str]) -> bool:
    """Whether ``path`` must be compiled: its ``.vo`` is missing, older than its source or than
    a dependency's, or not one a kernel is on record as having checked (one the project ships)."""
    vo = root / (path + "o")
    if not vo.exists() or not recorded(vo):
        return True
    made = vo.stat().st_mtime
    if (root / path).stat().st_mtime > made:
        return True
    return any(not (root / (d + "o")).exists() or (root / (d + "o")).stat().st_mtime > made for d in deps)


#: what coqc makes of ``X.v`` besides ``X.vo`` (``{}`` is the stem), copied beside the source
OUTPUTS = ("{}.vo", "{}.glob", "{}.vos", "{}.vok", ".{}.aux")


def compile_file(project: CoqProject, path: str) -> str | None:
    """Compile one file and have coqchk check what coqc made; None on success, else why not (one
    line, paths relative to the root). coqc runs in a sandbox it alone may write (module docstring)
    and puts its output there (``-o``); the outputs are then copied beside the source, and the
    ``.vo`` is checked and recorded (:func:`prover.coq.checked_vo.check`). A file compiled without
    the Prelude (:meth:`CoqProject.noinit`, a dune theory's ``(stdlib no)``) gets ``-noinit``."""
    root = project.root.resolve()
    source = root / path
    noinit = ("-noinit",) if project.noinit(path) else ()
    name = project.module(path)
    with sandbox_dir("coqc") as box:
        out = box / "out"  # bound to the file's own directory's logical name: coqc names a library by where it goes
        out.mkdir()
        cmd = ["coqc", "-q", *project.coq_args, *noinit, "-Q", str(out), name.rpartition(".")[0],
               "-o", str(out / f"{source.stem}.vo"), str(source)]
        try:
            done = subprocess.run(confined(cmd, box, hammer=True), cwd=box, env=sandbox_env(box),
                                  capture_output=True, text=True, timeout=COQC_TIMEOUT, check=False)
        except subprocess.TimeoutExpired:
            return f"coqc timed out after {COQC_TIMEOUT:.0f} s"
        if done.returncode == 0:
            for pattern in OUTPUTS:
                _install(out / pattern.format(source.stem), source.parent / pattern.format(source.stem))
    if done.returncode != 0:
        text = (done.stderr + done.stdout).replace(f"{root}/", "")
        at = text.find("File \"")
        return " ".join((text[at:] if at >= 0 else text).split())[:1000] or f"coqc exited {done.returncode}"
    failed = check({name: source.with_suffix(".vo")}, checker_load_path(project.load_args), COQC_TIMEOUT)
    return None if failed is None else failed.replace(f"{root}/", "")


def _install(made: Path, target: Path) -> None:
    """Put the file coqc ``made`` at ``target``, replacing it at once (never half written); a file
    coqc did not make is removed there, so that no stale one stays beside the new ``.vo``."""
    if not made.is_file():
        target.unlink(missing_ok=True)
        return
    replace_file(target, made.read_bytes(), fsync=False)  # a new file: a link at target is replaced, not followed


def build_project(project: CoqProject, files: list[str] | None = None, jobs: int = 2,
                  progress: bool = True) -> BuildReport:
    """Bring the ``.vo`` of ``files`` (default: all of the project's) and their dependencies up to date.

    ``jobs`` coqc processes run at once; a file starts when every file it requires is done. Never
    raises for a file coqc rejects: see :attr:`BuildReport.failed`.
    """
    report = BuildReport()
    if project.kind != "project":
        return report
    if not can_confine():
        raise ProjectError(f"Coq project {project.root}: its files can run programs while Coq compiles or loads them, "
                           "and this kernel has no Landlock (Linux 5.13 or later, enabled) to keep those programs from "
                           "rewriting what the verifier trusts; open it on a kernel with Landlock")
    t0 = time.monotonic()
    all_files = list(inside_root(project.root, project.source_files(), f"Coq project {project.root}"))
    deps = dependencies(project, all_files)
    wanted = set(files if files is not None else all_files)
    todo = list(wanted)
    while todo:  # what the wanted files need, transitively
        for d in deps.get(todo.pop(), []):
            if d not in wanted:
                wanted.add(d)
                todo.append(d)
    pending = {f: deps.get(f, []) for f in all_files if f in wanted}
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(pending), desc=f"building {project.name}", unit="file", file=sys.stderr)
    running: dict[Future, str] = {}
    finished: set[str] = set()
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        while pending or running:
            for f, ds in list(pending.items()):
                bad = next((d for d in ds if d in report.failed), None)
                if bad is not None:
                    report.failed[f] = f"not compiled: it requires {bad}, which failed"
                elif not all(d in finished for d in ds):
                    continue
                elif _stale(project.root, f, ds):
                    running[pool.submit(compile_file, project, f)] = f
                else:
                    report.current.append(f)
                    finished.add(f)
                del pending[f]
                if bar and f not in running.values():
                    bar.update()
            if not running:
                if pending:  # a dependency cycle coqdep let through: report it, build nothing more
                    for f in pending:
                        report.failed[f] = "not compiled: its dependencies form a cycle"
                    pending.clear()
                continue
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for fut in done:
                f = running.pop(fut)
                error = fut.result()
                if error is None:
                    report.compiled.append(f)
                    finished.add(f)
                else:
                    report.failed[f] = error
                if bar:
                    bar.update()
    if bar:
        bar.close()
    report.seconds = time.monotonic() - t0
    return report


def project_index(project: CoqProject, jobs: int = 2, progress: bool = True, rebuild: bool = False) -> CoqIndex:
    """The project's index after bringing its ``.vo`` up to date: what every job that opens its
    theorems uses (coqtop loads the ``.vo`` of the files a theorem's file requires). Files coqc
    rejects are in :attr:`CoqIndex.failed` with coqc's message, their theorems left out.

    A file that requires a library that is not installed (:meth:`CoqIndex.missing_libraries`) is
    a :class:`ProjectError` naming the file and the library, before anything is compiled: the
    project was not compiled against what this machine has, and skipping that file's theorems
    would hide it."""
    scanned = load_index(project, rebuild=rebuild, progress=progress)
    missing = scanned.missing_libraries()
    if missing:
        path, name = missing[0]
        library = name.split(".")[0]
        raise ProjectError(f"Coq project {project.root}: {path} requires {name}, but no library {library} is "
                           f"installed nor bound by the project ({not_installed(library)})")
    report = build_project(project, jobs=jobs, progress=progress)
    return CoqIndex(project.root, list(scanned.files.values()), project, {**scanned.failed, **report.failed})
