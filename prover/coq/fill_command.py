"""``dojo-prover fill-admitted --env coq``: the Coq backend's filling of admitted proofs (its ``Feature.FILL``).

:data:`FILLER` opens a Coq project (a directory with a ``_CoqProject`` or load-path flags, or
``coq-lib:NAME``), building and indexing it; the opened :class:`AdmittedLemmas` names its
``Admitted`` lemmas and writes the proofs a run found into them behind the guards of
:mod:`prover.coq.fill`: each recorded proof checked again, every edit made in a copy of the project
and kept only when the project still compiles and declares the same types, the originals replaced
only when asked. The command (:mod:`prover.commands.fill_admitted`) runs the searches in between
and reports; it names nothing of Coq.
"""

from __future__ import annotations

import shlex
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from search_tree.errors import UserError
from search_tree.protocol import Theorem

from .index import CoqIndex
from .project import CoqProject
from .records import CoqFields


@dataclass(frozen=True)
class Filled:
    """What :meth:`AdmittedLemmas.fill` did (``prover.backend.Filled``)."""

    written: dict[Theorem, str]
    refused: dict[Theorem, str]
    patch: str
    files: tuple[str, ...] = field(default=())
    problem: str = ""


def _offset(theorem: Theorem) -> int:
    """Where an admitted lemma of the project's index starts in its file: the key of its edit."""
    offset = CoqFields.of(theorem).offset
    if offset is None:
        raise UserError(f"{theorem.full_name}: not a lemma of the project's index (no offset in its file)")
    return offset


class AdmittedLemmas:
    """A built and indexed Coq project, as ``fill-admitted`` sees it (``prover.backend.AdmittedProject``)."""

    def __init__(self, project: CoqProject, index: CoqIndex) -> None:
        self.project = project
        self.index = index
        self.name = project.name
        self.spec = project.spec
        self.failed: Mapping[str, str] = index.failed

    def admitted(self, files: Sequence[str] | None, names: Sequence[str] | None) -> list[Theorem]:
        """The admitted lemmas of the files ``files`` matches (globs; None: all), only those called
        ``names`` (short or with their module) when given; a name that is not one raises with close
        matches, or says that its lemma is proved already."""
        targets = self.index.admitted(self.index.matching(list(files) if files else None))
        if not names:
            return targets
        chosen = []
        for name in names:
            found = [t for t in targets if name in (t.full_name, CoqFields.of(t).qualified_name)]
            if not found:
                other = self.index.theorem(name)  # raises TheoremNotFound with close matches for an unknown name
                raise UserError(f"--theorems {name}: {CoqFields.of(other).qualified_name} is proved already (not Admitted)")
            chosen.extend(found)
        return chosen

    def fill(self, proofs: Mapping[Theorem, object], env_options: Mapping[str, Any], backup: Path | None,
             progress: bool) -> Filled:
        """Check each recorded proof again in a Coq environment with ``env_options``, write those
        that pass into a copy of the project (each edit rolled back if it breaks the project) and
        return the patch; with ``backup``, also replace the project's changed files, the originals
        first copied there."""
        from .env import CoqEnvironment
        from .fill import Edit, FillError, diff_text, fill_in_copy, recheck, write_back

        edits: dict[tuple[str, int], Theorem] = {}
        scripts: list[Edit] = []
        refused: dict[Theorem, str] = {}
        with CoqEnvironment(index=self.index, **env_options) as env:
            for theorem, script in proofs.items():
                checked = recheck(env, theorem, script)
                if checked.ok:
                    edits[(theorem.file_path, _offset(theorem))] = theorem
                    scripts.append(Edit(theorem.file_path, _offset(theorem), theorem.full_name, checked.script))
                else:
                    refused[theorem] = f"the recorded proof does not check again: {checked.message}"
        written: dict[Theorem, str] = {}
        files: list[str] = []
        problem = ""
        with tempfile.TemporaryDirectory(prefix="dojo-fill-") as tmp:
            copy, outcomes = fill_in_copy(self.project, self.index, scripts, Path(tmp), progress=progress)
            for outcome in outcomes:
                theorem = edits[(outcome.edit.path, outcome.edit.offset)]
                if outcome.written:
                    written[theorem] = outcome.edit.script
                else:
                    refused[theorem] = outcome.why
            patch = diff_text(self.project, copy)
            if backup is not None and patch:
                try:
                    files = write_back(self.project, copy, backup, progress=progress)
                except FillError as exc:
                    problem = f"not written: {exc}"
        return Filled(written, refused, patch, tuple(files), problem)


class CoqFiller:
    """Opens the Coq project ``fill-admitted`` names (``prover.backend.Filler``)."""

    def open(self, project: str, flags: str | None, jobs: int, progress: bool) -> AdmittedLemmas:
        """The project ``project`` names (:func:`prover.coq.project.load_project`; ``flags``: its
        load-path flags when it has no ``_CoqProject``), built with ``jobs`` coqc processes and indexed."""
        from .build import project_index
        from .project import load_project

        loaded = load_project(project, tuple(shlex.split(flags)) if flags else None)
        if jobs < 1:
            raise UserError(f"--jobs must be at least 1, got {jobs}")
        return AdmittedLemmas(loaded, project_index(loaded, jobs=jobs, progress=progress))


FILLER = CoqFiller()
