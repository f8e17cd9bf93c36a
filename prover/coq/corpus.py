"""A project's premise corpus in LeanDojo's ``corpus.jsonl`` format, and premise resolution.

One line per file, dependencies first::

    {"path": "Arith/Between.v", "imports": ["Init/Prelude.v", "Arith/Le.v", ...],
     "premises": [{"full_name": "bet_eq", "code": "Lemma bet_eq : ...", "start": [29, 3],
                   "end": [29, 52], "kind": "lemma"}, ...]}

``path`` and ``imports`` are relative to the project's root (the stdlib's: ``theories/``);
``imports`` are the direct ``Require``s plus the Prelude, which Coq loads implicitly (outside the
stdlib's ``Init/``). ``start``/``end`` are the declaring sentence; ``code`` is that sentence without
comments (a theorem's statement, without its proof). The corpus comes from the index's text scan,
so it needs no coqtop.

Two fields beyond LeanDojo's say how a tactic can name a premise (:meth:`retrieval.corpus.Premise.name_from`): a
file's ``module``, its logical name (``Coq.Arith.Between``), which qualifies a premise fully from
any file that loads it, imported or not; and a premise's ``"parametric": true`` (absent when
false), for a declaration in a functor's or module type's body
(:attr:`~prover.coq.records.Declaration.parametric`).

The corpus of a project other than the stdlib (:func:`premise_files`) also holds the stdlib files
its files require, transitively, under :data:`~prover.coq.project.STDLIB_PREFIX`
(``coq-stdlib/Arith/PeanoNat.v``), and its files' ``imports`` name them so: a proof of the
project uses stdlib lemmas, and the accessible-premise rule (transitive imports, plus what
precedes the theorem in its own file) then offers exactly those a retriever should. The stdlib's
own corpus is its files alone, as it always was.

:class:`PremiseResolver` maps an identifier written in a tactic to the corpus entry it names, the
way Coq resolves a (partially) qualified name: among the declarations accessible from the theorem
(its file's transitive imports and what precedes it in its own file) whose qualified name ends with
the identifier, the latest one wins (later imports and later definitions shadow earlier ones).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from .index import CoqIndex, code_version, load_index
from .syntax import IDENT
from .install import cache_dir
from .project import STDLIB_PREFIX, CoqProject, ProjectError, read_source, stdlib_project
from .records import Declaration, SourceFile
from .scanner import source_hash


def premise_files(index: CoqIndex) -> list[SourceFile]:
    """The files whose declarations may be premises of ``index``'s proofs, in dependency order.

    For the stdlib, its files. For another project, the stdlib files its files import,
    transitively (their paths and imports under :data:`STDLIB_PREFIX`), then its own files. A
    project with a file of its own under that prefix is refused: its premises and the stdlib's
    would share paths.
    """
    own = list(index.files.values())
    if index.project.is_stdlib:
        return own
    clash = next((f.path for f in own if f.path.startswith(STDLIB_PREFIX)), None)
    if clash is not None:
        raise ProjectError(f"Coq project {index.project.name}: file {clash} lies under {STDLIB_PREFIX}, "
                           "which the premise corpus keeps for the stdlib's files; rename that directory")
    stdlib = load_index(stdlib_project(), progress=False)
    wanted: set[str] = set()
    todo = [p[len(STDLIB_PREFIX):] for f in own for p in f.imports if p.startswith(STDLIB_PREFIX)]
    while todo:
        p = todo.pop()
        if p not in wanted and p in stdlib.files:
            wanted.add(p)
            todo.extend(stdlib.files[p].imports)
    required = [dataclasses.replace(f, path=STDLIB_PREFIX + f.path, imports=[STDLIB_PREFIX + i for i in f.imports])
                for f in stdlib.files.values() if f.path in wanted]
    return required + own


def corpus_lines(index: CoqIndex) -> list[dict]:
    """The corpus records of :func:`premise_files`, in dependency order."""
    return [
        {
            "path": f.path,
            "module": f.module,
            "imports": f.imports,
            "premises": [
                {"full_name": d.full_name, "code": d.code, "start": list(d.start), "end": list(d.end), "kind": d.kind,
                 **({"parametric": True} if d.parametric else {})}
                for d in f.declarations
            ],
        }
        for f in premise_files(index)
    ]


def write_corpus(index: CoqIndex, path: Path) -> int:
    """Writes ``corpus.jsonl`` atomically; returns the number of premises."""
    lines = corpus_lines(index)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with tmp.open("w") as out:
        for rec in lines:
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")
    tmp.replace(path)
    return sum(len(r["premises"]) for r in lines)


def _sources_fingerprint(project: CoqProject) -> str:
    """What a project's corpus is built from: the installed stdlib's root (its sources change only
    with the Coq version, which names the cache directory, so reading them would be wasted), or
    another project's root and every source file's contents (a user edits them between runs)."""
    root = str(project.root.resolve())
    if project.is_stdlib:
        return source_hash(root)
    return source_hash("\0".join([root, *(f"{p}\0{source_hash(read_source(project.root, p))}"
                                          for p in project.source_files())]))


def default_corpus_path(project: CoqProject | None = None, progress: bool = False) -> Path:
    """``project``'s (default: the stdlib's) ``corpus.jsonl`` in the cache directory, written from its
    index (no tracing, no coqtop, no coqc) the first time it is asked for.

    The file name is keyed by the scanner's code version, this module's code, the project
    (``stdlib``, else :attr:`CoqProject.key`) and the fingerprint of its sources, so a changed
    scanner, corpus format or project never serves a stale corpus and a run's ``config.json``
    records which corpus it used.
    """
    project = project or stdlib_project()
    name = "stdlib" if project.is_stdlib else project.key
    key = f"{code_version()}-{source_hash(Path(__file__).read_text())[:8]}-{_sources_fingerprint(project)[:8]}"
    path = cache_dir() / "corpus" / f"{name}-{key}.jsonl"
    if not path.exists():
        write_corpus(load_index(project, progress=progress), path)
    return path


@dataclass(frozen=True)
class ResolvedPremise:
    """A premise occurrence in a tactic, in the shape of LeanDojo's ``annotated_tactic`` entries."""

    full_name: str
    def_path: str
    def_pos: tuple[int, int]
    def_end_pos: tuple[int, int]

    def to_json(self) -> dict:
        return {"full_name": self.full_name, "def_path": self.def_path, "def_pos": list(self.def_pos),
                "def_end_pos": list(self.def_end_pos)}


# a possibly qualified identifier, not preceded by a character that would make it part of a larger
# token (a longer identifier, a field access ``x.(f)``, a scope ``%nat``, an evar ``?x``)
_IDENT_RE = re.compile(rf"(?<![\w'.%?@$]){IDENT}")
_STRING_OR_COMMENT = re.compile(r'"(?:[^"]|"")*"|\(\*.*?\*\)', re.S)


# Coq's built-in tactics and tactic keywords: words of a tactic that name no premise even where a
# declaration of the same name exists (``apply`` in Program.Basics, ``split`` in Lists.List)
BUILTIN_TACTIC_WORDS = frozenset("""
    abstract absurd admit apply as assert assumption at auto autoapply autorewrite autounfold by case case_eq
    cbn cbv change classical_left classical_right clear clearbody cofix compute congruence constr constructor
    contradict contradiction cut cutrewrite dependent destruct discriminate do eapply eassert eassumption easy
    eauto ecase econstructor edestruct ediscriminate eelim eenough eexact eexists einduction einjection eleft
    elim else end enough epose eremember erewrite eright eset esimplify_eq esplit evar exact exactly_once
    exfalso exists f_equal fail field field_simplify field_simplify_eq first firstorder fix fold for forall
    from fun functional generalize give_up goal hnf idtac if in induction info_auto info_eauto info_trivial
    injection instantiate intro intros intuition inversion inversion_clear is_var lazy left let lia lra ltac
    match move native_compute nia now nra numgoals omega once only pattern pose progress psatz rapply red
    refine reflexivity remember rename repeat replace return revert revgoals rewrite right ring
    ring_simplify rtauto set setoid_reflexivity setoid_replace setoid_rewrite setoid_symmetry
    setoid_transitivity shelve shelve_unifiable simpl simple simplify_eq solve specialize split split_Rabs
    split_Rmult stepl stepr struct subst swap symmetry tauto then time timeout transitivity trivial try
    tryif type typeclasses unfold unify unshelve using vm_compute with zify core arith bool datatypes
    zarith real sets proof eqn into until after before top bottom ident uconstr open_constr
""".split())


class PremiseResolver:
    """Resolves identifiers in tactics to corpus declarations accessible from a given theorem."""

    def __init__(self, index: CoqIndex) -> None:
        self.index = index
        #: the corpus's files (:func:`premise_files`): the project's and the stdlib files they require
        self.files: dict[str, SourceFile] = {f.path: f for f in premise_files(index)}
        self._order = {p: i for i, p in enumerate(self.files)}
        # every dotted suffix of every qualified name -> [(file, declaration, ordinal in file)]
        self._by_suffix: dict[str, list[tuple[SourceFile, Declaration, int]]] = {}
        for f in self.files.values():
            for k, d in enumerate(f.declarations):
                parts = f"{f.module}.{d.full_name}".split(".")
                for i in range(len(parts)):
                    self._by_suffix.setdefault(".".join(parts[i:]), []).append((f, d, k))
        self._closure: dict[str, frozenset[str]] = {}
        self.tactic_words = BUILTIN_TACTIC_WORDS | {n for f in self.files.values() for n in f.tactic_names}

    def accessible_files(self, path: str) -> frozenset[str]:
        """The files whose declarations ``path`` can use: its transitive imports."""
        if path not in self._closure:
            seen: set[str] = set()
            todo = list(self.index.file(path).imports)
            while todo:
                p = todo.pop()
                if p not in seen and p in self.files:
                    seen.add(p)
                    todo.extend(self.files[p].imports)
            self._closure[path] = frozenset(seen)
        return self._closure[path]

    def resolve(self, name: str, path: str, before: tuple[int, int]) -> ResolvedPremise | None:
        """The declaration ``name`` denotes in file ``path`` at position ``before``, if it is in the corpus."""
        best: tuple[tuple[int, int], SourceFile, Declaration] | None = None
        imported = self.accessible_files(path)
        for f, d, k in self._by_suffix.get(name, ()):
            if f.path == path:
                if d.start >= before:
                    continue
                rank = (len(self._order), k)  # the file itself shadows its imports
            elif f.path in imported:
                rank = (self._order[f.path], k)
            else:
                continue
            if best is None or rank > best[0]:
                best = (rank, f, d)
        if best is None:
            return None
        _, f, d = best
        return ResolvedPremise(d.full_name, f.path, d.name_pos, d.name_end)

    def annotate(self, tactic: str, path: str, before: tuple[int, int],
                 local_names: set[str]) -> tuple[str, list[ResolvedPremise]]:
        """LeanDojo's ``annotated_tactic``: ``tactic`` with ``<a>…</a>`` around the premises it names.

        ``local_names`` (hypotheses of the goal) shadow global names, as in Coq; tactic names
        (:attr:`tactic_words`) and identifiers inside strings and comments are not premises.
        """
        masked = _STRING_OR_COMMENT.sub(lambda m: " " * len(m.group()), tactic)
        out: list[str] = []
        premises: list[ResolvedPremise] = []
        last = 0
        for m in _IDENT_RE.finditer(masked):
            name = m.group()
            if name in local_names or name in self.tactic_words:
                continue
            hit = self.resolve(name, path, before)
            if hit is None:
                continue
            out.append(tactic[last : m.start()] + f"<a>{name}</a>")
            last = m.end()
            premises.append(hit)
        out.append(tactic[last:])
        return "".join(out), premises
