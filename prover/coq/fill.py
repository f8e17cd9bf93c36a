"""Write found proofs of ``Admitted`` lemmas into a project's files, keeping the project and every lemma's meaning.

Three guards stand between a search and a user's files:

* The proof is checked again (:func:`recheck`): a script read back from a run directory is
  untrusted text, so it is split into sentences and verified as a new proof; what is written is
  the verifier's script, never the recorded one.
* Every edit is made in a real copy of the project first (:func:`copy_project`, :func:`fill_in_copy`).
  Only the proof body changes (:func:`apply_edit`): the statement, its attributes and the user's
  ``Proof using ...``/``Proof with ...`` sentence stay; the body and ``Admitted.`` become the
  script and ``Qed.`` (opaque, as the admitted lemma was: ``Defined`` would let later definitions
  compute with the proof); context additions the proof needs (``Require Import Lia.``) go right
  before the statement, and only at a file's top level or in sections: inside an open module an
  ``Import`` changes what the module's later definitions mean, and a functor's or module type's
  body is where the comparison below cannot look (an added ``ArithRing`` made a later
  ``IDphi 5`` in a functor compute to 5, which the functor's admitted lemma said was 0).
  Then the file and every file that requires it are recompiled, and what each
  of them declares is compared with what it declared before (:mod:`prover.coq.signatures`): an edit
  after which a file that compiled no longer does, any constant's type differs (a lemma in a
  section gaining or losing a hypothesis), or a transparent constant's value does (an addition
  that shadows a name a later definition uses), is rolled back with the reason.
* Only with ``write`` do the changed files replace the originals (:func:`write_back`), after a
  backup, as new files (never written through a symlink or into an inode a hard link shares), and
  the project is rebuilt in place, restored from the backup if it no longer compiles.

Nothing outside the project root is written: a project whose files resolve outside it is refused
when it is loaded (:func:`prover.coq.project.inside_root`), and the copy's links that point into the
root point into the copy.
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from search_tree.protocol import Theorem, Verification, linear_proof
from search_tree.safe_files import make_dir, replace_file

from .additions import ANNOTATION
from .build import build_project, dependencies, dependents
from .context import open_modules
from .index import CoqIndex
from .project import CoqProject
from .sentences import SentenceSplitError, split_sentences, strip_comments
from .signatures import SignatureError, difference, signatures

#: The user's ``Proof`` sentence, kept by an edit: ``Proof.``, ``Proof using x y.``, ``Proof with auto.``
_PROOF = re.compile(r"Proof(?:\s+(?:using|with)\b.*)?\.$", re.S)
_PROOF_WITH = re.compile(r"\bwith\b")


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
    additions: list[str] = []
    body: list[str] = []
    for line in script.splitlines():
        if line.startswith(ANNOTATION) and line.endswith(" *)") and not body:
            additions.append(line[len(ANNOTATION):-3])
        else:
            body.append(line)
    return additions, "\n".join(body)


def recheck(env, theorem: Theorem, script: object) -> Verification:
    """Verify ``script`` (read from a run directory, so untrusted) as a new proof of ``theorem``
    in the Coq environment ``env``: its tactic sentences, one step each, go through the tactic
    policy and the full re-check; its addition comments are dropped, the verifier choosing the
    additions itself. On success :attr:`Verification.script` is the text to write."""
    if not isinstance(script, str):
        return Verification(False, f"the recorded script is not text: {script!r:.80}")
    try:
        sentences = [s.text for s in split_sentences(split_script(script)[1], "the recorded script")]
    except SentenceSplitError as exc:
        return Verification(False, str(exc))
    return env.verify(theorem, linear_proof(sentences))


def apply_edit(text: str, index: CoqIndex, edit: Edit) -> str:
    """``text`` (the file's current text, identical to the indexed one up to the end of the lemma)
    with the lemma's admitted proof body replaced by ``edit.script`` (see the module docstring);
    ValueError saying why when the edit cannot be made faithfully."""
    source = index.file(edit.path)
    at = next(k for k, (s, _) in enumerate(source.sentences) if s == edit.offset)
    entry = next(t for t in source.admitted if t.offset == edit.offset)
    statement_end = source.sentences[at][1]
    admitted_end = source.sentences[at + 1 + len(entry.proof)][1]
    if text[admitted_end - len("Admitted."):admitted_end] != "Admitted.":
        raise ValueError(f"{edit.path}: {edit.name} no longer ends in Admitted. where the index says")
    additions, body = split_script(edit.script)
    if additions and open_modules(text, source.sentences, edit.offset):
        raise ValueError(f"not written: its proof needs {' '.join(additions)}, which inside the module open at "
                         f"{edit.name} would change what the module's later definitions mean, where no check of the "
                         f"file's declarations looks (a functor's or module type's body)")
    keep_until, proof = statement_end, "\nProof."
    if entry.proof:
        start, end = entry.proof[0]
        user_proof = strip_comments(text[start:end]).strip()
        if _PROOF.match(user_proof):
            keep_until, proof = end, ""
            if _PROOF_WITH.search(user_proof):
                dots = next((s.text for s in split_sentences(body, edit.path) if s.text.endswith("...")), None)
                if dots is not None:
                    raise ValueError(f"not written: its sentence {dots!r} would run the lemma's 'Proof with' tactic, "
                                     f"which the check did not")
    tactics = "\n".join("  " + line for line in body.splitlines())
    before = "".join(f"{s}\n" for s in additions)
    return (text[:edit.offset] + before + text[edit.offset:keep_until] + f"{proof}\n{tactics}\nQed."
            + text[admitted_end:])


def copy_project(project: CoqProject, workdir: Path) -> CoqProject:
    """A copy of the project under ``workdir``: its files copied (modification times kept, so the
    ``.vo`` stay current), its symbolic links copied as links, those that point into the root
    re-pointed into the copy, so that nothing done in the copy reaches the original."""
    root = project.root.resolve()
    copy_root = workdir / project.root.name
    shutil.copytree(root, copy_root, symlinks=True)
    for dirpath, dirnames, filenames in os.walk(copy_root):
        for name in dirnames + filenames:
            link = Path(dirpath) / name
            if not link.is_symlink():
                continue
            target = (root / link.relative_to(copy_root)).resolve()
            if target.is_relative_to(root):
                link.unlink()
                link.symlink_to(os.path.relpath(copy_root / target.relative_to(root), link.parent))
    return project.relocated(copy_root)


def linked(root: Path, path: str) -> str | None:
    """The first component of ``path`` (relative to ``root``) that is a symbolic link, if any."""
    here = root
    for part in Path(path).parts:
        here = here / part
        if here.is_symlink():
            return here.relative_to(root).as_posix()
    return None


def fill_in_copy(project: CoqProject, index: CoqIndex, edits: list[Edit], workdir: Path,
                 progress: bool = False) -> tuple[CoqProject, list[EditOutcome]]:
    """Apply ``edits`` in a copy of the project under ``workdir``, one at a time (last lemma of a
    file first, so that the others' offsets hold), each kept only if the file and its dependents
    still compile and declare what they declared before. Returns the copy and what happened to
    each edit."""
    copy = copy_project(project, workdir)
    deps = dependencies(copy, copy.source_files())
    broken_before = set(build_project(copy, progress=False).failed)
    affected = {p for e in edits for p in [e.path, *dependents(deps, e.path)] if p not in broken_before}
    try:
        declared, unprintable = signatures(copy, sorted(affected)), ""
    except SignatureError as exc:
        declared, unprintable = {}, f"not written: the types before the edit cannot be printed ({exc})"
    outcomes: list[EditOutcome] = []
    for edit in sorted(edits, key=lambda e: (e.path, -e.offset)):
        link = linked(copy.root, edit.path)
        if unprintable or link is not None:
            outcomes.append(EditOutcome(edit, False, unprintable or f"not written: {link} is a symlink "
                                        f"(fill-admitted never writes through one; edit its target)"))
            continue
        target = copy.root / edit.path
        old = target.read_text()
        try:
            target.write_text(apply_edit(old, index, edit))
        except ValueError as exc:
            outcomes.append(EditOutcome(edit, False, str(exc)))
            continue
        rebuilt = [edit.path, *dependents(deps, edit.path)]
        why = _edit_breaks(copy, rebuilt, broken_before, declared, progress)
        if why is not None:
            target.write_text(old)
            build_project(copy, rebuilt, progress=False)
            outcomes.append(EditOutcome(edit, False, f"rolled back: {why}"))
        else:
            outcomes.append(EditOutcome(edit, True))
    return copy, outcomes


def _edit_breaks(copy: CoqProject, rebuilt: list[str], broken_before: set[str], declared: dict[str, str],
                 progress: bool) -> str | None:
    """Why the edit just made in ``copy`` must be undone (a file of ``rebuilt`` that compiled no
    longer does, or declares something else), or None."""
    report = build_project(copy, rebuilt, progress=progress)
    new_failures = {p: e for p, e in report.failed.items() if p not in broken_before}
    if new_failures:
        path, error = next(iter(new_failures.items()))
        return f"{path} no longer compiles ({error[:300]})"
    checked = [p for p in rebuilt if p not in broken_before]
    try:
        after = signatures(copy, checked)
    except SignatureError as exc:
        return f"the types after the edit cannot be printed ({exc})"
    return difference({m: text for m, text in declared.items() if m in after}, after)


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


def _replace(path: Path, data: bytes) -> None:
    """Make ``path`` a new file holding ``data``, its permissions kept (see :func:`replace_file`:
    neither a symlink's target nor a hard link's other name is written)."""
    replace_file(path, data, mode=path.stat().st_mode & 0o7777)


def write_back(project: CoqProject, copy: CoqProject, backup: Path, progress: bool = False) -> list[str]:
    """Replace the project's changed files by the copy's, after backing them up under ``backup``,
    and rebuild; if a file that compiled before no longer does, restore every one of them.
    Returns the files written."""
    files = changed_files(project, copy)
    for p in files:
        link = linked(project.root, p)
        if link is not None or not project.contains(project.root / p):
            raise FillError(f"refusing to write {p}: " + (f"{link} is a symlink" if link else
                                                           f"outside the project root {project.root}"))
    broken_before = set(build_project(project, progress=False).failed)
    make_dir(backup)
    for p in files:  # into the backup directory itself: a symlink in it, or at it, is refused or replaced
        make_dir((backup / p).parent, under=backup)
        original = project.root / p
        replace_file(backup / p, original.read_bytes(), mode=original.stat().st_mode & 0o7777)
    for p in files:
        _replace(project.root / p, (copy.root / p).read_bytes())
    report = build_project(project, progress=progress)
    new_failures = [p for p in report.failed if p not in broken_before]
    if new_failures:
        for p in files:  # a new file, newer than the .vo built from the edit: rebuilt next
            _replace(project.root / p, (backup / p).read_bytes())
        build_project(project, progress=False)
        raise FillError(f"the project no longer compiled after writing ({', '.join(new_failures)}); "
                        f"restored the originals from {backup}")
    return files
