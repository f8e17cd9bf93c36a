"""Write found proofs of ``Admitted`` lemmas into a project's files, keeping the project compiling.

Every edit is made in a copy of the project first (:func:`fill_in_copy`): the lemma's
``Proof. ... Admitted.`` becomes ``Proof. <script> Qed.`` (the context additions the proof needs,
such as ``Require Import Lia.``, go right before the statement), then the file and every file that
requires it are recompiled; an edit after which a file coqc compiled before fails is rolled back.
What survives is a unified diff (:func:`diff_text`), and only with ``write`` do the changed files
replace the originals (:func:`write_back`), after a backup, and the project is rebuilt in place
(restored from the backup if it no longer compiles). Nothing outside the project root is written.
"""

from __future__ import annotations

import difflib
import shutil
from dataclasses import dataclass
from pathlib import Path

from .additions import ANNOTATION
from .build import build_project, dependencies, dependents
from .index import CoqIndex
from .project import CoqProject


@dataclass
class Edit:
    """One proof to write: the admitted lemma (by file and statement offset) and its checked script."""

    path: str
    offset: int
    name: str
    script: str  # as re-checked, context additions as ANNOTATION comment lines first


@dataclass
class EditOutcome:
    edit: Edit
    written: bool
    why: str = ""  # why an edit was rolled back


class FillError(RuntimeError):
    """The project could not be put back as it was (names the backup to restore from)."""


def split_script(script: str) -> tuple[list[str], str]:
    """(addition sentences, tactic script) of a re-checked script (see :func:`prover.coq.additions.annotate`)."""
    additions, body = [], []
    for line in script.splitlines():
        if line.startswith(ANNOTATION) and line.endswith(" *)") and not body:
            additions.append(line[len(ANNOTATION):-3])
        else:
            body.append(line)
    return additions, "\n".join(body)


def apply_edit(text: str, index: CoqIndex, edit: Edit) -> str:
    """``text`` (the file's current text, identical to the indexed one up to the lemma) with the
    lemma's admitted proof replaced by ``edit.script``."""
    source = index.file(edit.path)
    at = next(k for k, (s, _) in enumerate(source.sentences) if s == edit.offset)
    entry = next(t for t in source.admitted if t.offset == edit.offset)
    statement_end = source.sentences[at][1]
    admitted_end = source.sentences[at + 1 + len(entry.proof)][1]
    if text[admitted_end - len("Admitted."):admitted_end] != "Admitted.":
        raise ValueError(f"{edit.path}: {edit.name} no longer ends in Admitted. where the index says")
    additions, body = split_script(edit.script)
    tactics = "\n".join("  " + line for line in body.splitlines())
    before = "".join(f"{s}\n" for s in additions)
    return (text[:edit.offset] + before + text[edit.offset:statement_end] + f"\nProof.\n{tactics}\nQed."
            + text[admitted_end:])


def fill_in_copy(project: CoqProject, index: CoqIndex, edits: list[Edit], workdir: Path,
                 progress: bool = False) -> tuple[CoqProject, list[EditOutcome]]:
    """Apply ``edits`` in a copy of the project under ``workdir``, one at a time (last lemma of a
    file first, so that the others' offsets hold), each kept only if the file and its dependents
    still compile. Returns the copy and what happened to each edit."""
    copy_root = workdir / project.root.name
    shutil.copytree(project.root, copy_root, symlinks=True)  # copy2 keeps mtimes: the .vo stay current
    copy = project.relocated(copy_root)
    deps = dependencies(copy, copy.source_files())
    broken_before = set(build_project(copy, progress=False).failed)
    outcomes: list[EditOutcome] = []
    for edit in sorted(edits, key=lambda e: (e.path, -e.offset)):
        target = copy_root / edit.path
        old = target.read_text()
        try:
            target.write_text(apply_edit(old, index, edit))
        except ValueError as exc:
            outcomes.append(EditOutcome(edit, False, str(exc)))
            continue
        report = build_project(copy, [edit.path, *dependents(deps, edit.path)], progress=progress)
        new_failures = {p: e for p, e in report.failed.items() if p not in broken_before}
        if new_failures:
            target.write_text(old)
            build_project(copy, [edit.path, *dependents(deps, edit.path)], progress=False)
            path, error = next(iter(new_failures.items()))
            outcomes.append(EditOutcome(edit, False, f"rolled back: {path} no longer compiles ({error[:300]})"))
        else:
            outcomes.append(EditOutcome(edit, True))
    return copy, outcomes


def changed_files(project: CoqProject, copy: CoqProject) -> list[str]:
    return [p for p in project.source_files()
            if (copy.root / p).read_text() != (project.root / p).read_text()]


def diff_text(project: CoqProject, copy: CoqProject) -> str:
    """A unified diff (``patch -p1`` from the project root) of the files the copy changed."""
    out: list[str] = []
    for p in changed_files(project, copy):
        out.extend(difflib.unified_diff((project.root / p).read_text().splitlines(keepends=True),
                                        (copy.root / p).read_text().splitlines(keepends=True),
                                        f"a/{p}", f"b/{p}"))
    return "".join(out)


def write_back(project: CoqProject, copy: CoqProject, backup: Path, progress: bool = False) -> list[str]:
    """Replace the project's changed files by the copy's, after backing them up under ``backup``,
    and rebuild; if a file that compiled before no longer does, restore every one of them.
    Returns the files written."""
    files = changed_files(project, copy)
    for p in files:
        if not project.contains(project.root / p):
            raise FillError(f"refusing to write {p}: outside the project root {project.root}")
    broken_before = set(build_project(project, progress=False).failed)
    for p in files:
        (backup / p).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(project.root / p, backup / p)
    for p in files:
        (project.root / p).write_text((copy.root / p).read_text())
    report = build_project(project, progress=progress)
    new_failures = [p for p in report.failed if p not in broken_before]
    if new_failures:
        for p in files:
            shutil.copy2(backup / p, project.root / p)
            (project.root / p).touch()  # newer than the .vo built from the edit: rebuilt next time
        build_project(project, progress=False)
        raise FillError(f"the project no longer compiled after writing ({', '.join(new_failures)}); "
                        f"restored the originals from {backup}")
    return files

