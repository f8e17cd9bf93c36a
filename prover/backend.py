"""What one backend adds to the library, as one typed object: :class:`Backend`.

A backend is a folder of :mod:`prover` (``prover/coq/``, ``prover/lean/``, ``prover/synthetic/``)
whose ``backend.py`` defines one :class:`Backend`, and one line of :mod:`prover.backends`. The
object names everything the rest of the library asks a backend for:

* its :class:`search_tree.language.Language` (goal parsing, notation, identifiers, give-up words,
  file suffix), which the search, retrieval and generator packages receive instead of switching
  on a language's name;
* its environment class (the ``--env`` name and the ``"module:attribute"`` it is built from);
* the generators and template sets it brings (added to ``generator.registry.GENERATORS`` and
  ``generator.template.TEMPLATE_SETS`` by :mod:`prover.backends`, so that the generator package
  names no backend);
* the benchmark families its theorems come from, each with its loader;
* the features a command needs (:class:`Feature`), each a ``"module:attribute"`` target of the
  backend's own code with the signature the feature documents; a backend without one is named by
  the command in a one-line error (:func:`prover.backends.providing`);
* how its proofs read to a user: the lines a script goes between (Coq's ``Proof.``/``Qed.``,
  :meth:`Backend.render_proof`), a theorem's library-wide name (:meth:`Backend.name_of`) and the
  words for what a proof assumes (:meth:`Backend.assumes`), so that commands print every
  backend's proofs without naming one;
* what ``learn`` needs of it (:attr:`Backend.learned_preset`, :attr:`Backend.prover_version`) and
  what a cluster node needs to run its workers (:attr:`Backend.node_needs`, a :class:`NodeNeeds`).

Targets are strings imported only when used, so that this object, and the registry of every
backend, load no prover, torch or Ray.
"""

from __future__ import annotations

import argparse
import enum
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from search_tree.language import Language
from search_tree.protocol import Theorem
from search_tree.registry import load_target


class Feature(enum.Enum):
    """What a command may need from a backend beyond its environment (the value names it in
    errors); each member's comment says what the backend's target for it is."""

    #: ``preset(timeout, tactic_timeout, hammer_timeout, max_expansions, project) -> ProverConfig``:
    #: the backend's default prover for one theorem (``prove``, ``demo``, ``fill-admitted``)
    PRESET = "default prover"
    #: ``baseline(tactics, timeout, tactic_timeout, max_expansions, project) -> ProverConfig``: a search
    #: over the tactics given (``prove --tactics``)
    BASELINE = "baseline over given tactics"
    #: ``statement(statement, prelude, name) -> Theorem``: a theorem stated on the command line
    STATEMENT = "reader of stated theorems"
    #: ``suggest() -> TacticGenerator``: the generator whose suggestions ``interact`` shows
    SUGGEST = "generator of suggestions"
    #: a :class:`Filler`: ``fill-admitted``'s opening of a project and writing of found proofs
    #: into its admitted lemmas
    FILL = "filling of admitted proofs"
    #: a :class:`Tracer`: ``trace``'s options of this backend and the run that traces a project
    #: into training data with them
    TRACE = "tracer"
    #: ``split(split, max_proof_sentences) -> list[Theorem]``: short theorems of a benchmark split
    #: for ``demo``
    DEMO_THEOREMS = "demo split"
    #: ``comparison(theorems, timeout) -> Comparison``: the system a user of the backend measures
    #: its default prover against, which ``demo`` runs beside it on the same theorems
    COMPARISON = "comparison baseline"
    #: ``trace_untraced(workers, announce, files=None, theorems=None, progress=True) -> int``: traces, where the
    #: default prover is first used (``demo`` without theorems; ``eval`` and ``prove`` with the
    #: theorems they prove), what it learns from and is not traced yet, into the cache ``trace``
    #: writes, saying what and why through ``announce``; resumable after Ctrl-C; the files traced now
    DEFAULT_TRACE = "first-use trace of what the default prover learns from"


class Tracer(Protocol):
    """A backend's ``trace`` (its :attr:`Feature.TRACE`): the options it adds to the command and
    the run with them. :meth:`configure` declares the options only this backend reads and returns
    their argparse actions, so that the command refuses one of another backend's in one line before
    :meth:`run` is called; two backends may not declare the same option."""

    def configure(self, parser: argparse.ArgumentParser) -> Sequence[argparse.Action]:
        """Add this backend's options to ``trace``'s parser (an option not given must parse as None
        or False) and return what ``add_argument`` returned for each."""
        ...

    def run(self, args: argparse.Namespace, say: Callable[[str], None]) -> int:
        """Trace what ``args`` names (``args.out``: the output directory, or None), reporting through
        ``say`` one line at a time (the command makes each safe for a terminal); the exit status.
        Bad input is a :class:`search_tree.errors.UserError`."""
        ...


@dataclass(frozen=True)
class Comparison:
    """What a backend's :attr:`Feature.COMPARISON` gives ``demo``: ``name`` as the output calls it
    (``hammer alone``), the ``config`` (a :class:`prover.registry.ProverConfig`) that runs it, and
    a ``note`` printed beside its count (empty for none), e.g. on how many of the theorems it is
    held back and why."""

    name: str
    config: Any
    note: str = ""


# --- fill-admitted (Feature.FILL): a project's admitted lemmas, and found proofs written into them ---

class Filled(Protocol):
    """What :meth:`AdmittedProject.fill` did: each proof given as it was written (``written``) or
    why it was not (``refused``: it did not check again, or its edit broke the project); ``patch``,
    a unified diff of every change for ``patch -p1`` from the project root (empty for none); the
    files replaced when a backup was given (``files``), and ``problem``, a line saying why they
    could not be (empty when they were, or none was asked for)."""

    written: Mapping[Theorem, str]
    refused: Mapping[Theorem, str]
    patch: str
    files: Sequence[str]
    problem: str


class AdmittedProject(Protocol):
    """A project opened by a :class:`Filler`: ``name`` for headings, ``spec`` as the user named it
    (recorded as the run's benchmark), and ``failed``, each file that did not build with why (its
    lemmas are left out)."""

    name: str
    spec: str
    failed: Mapping[str, str]

    def admitted(self, files: Sequence[str] | None, names: Sequence[str] | None) -> list[Theorem]:
        """The admitted lemmas of the files the globs ``files`` match (None: every file), only those
        called ``names`` when given; a :class:`search_tree.errors.UserError` for a name that is not
        one."""
        ...

    def fill(self, proofs: Mapping[Theorem, object], env_options: Mapping[str, Any], backup: Path | None,
             progress: bool) -> Filled:
        """Write ``proofs`` (scripts read back from a run directory, so untrusted: each is checked
        again in an environment with ``env_options``) into a copy of the project, keeping the
        project's meaning; with ``backup``, replace the project's changed files too, the originals
        first copied under it."""
        ...


class Filler(Protocol):
    """A backend's ``fill-admitted`` (its :attr:`Feature.FILL`; Coq's is
    ``prover/coq/fill_command.py``): the command runs the searches and prints the table, the
    backend opens the project and writes the proofs."""

    def open(self, project: str, flags: str | None, jobs: int, progress: bool) -> AdmittedProject:
        """The project ``project`` names (``flags``: the backend's load-path flags, for a project
        that does not say its own), built with ``jobs`` processes; bad input is a ``UserError``."""
        ...


# --- what a cluster node needs to run a backend (``Backend.node_needs``) ----------------------

class NodeNeeds(Protocol):
    """What ``prover.run.nodes`` asks a backend before a Ray node gets tasks: the node must have
    the programs (at the driver's ``--version``; one given by path only exists), the libraries
    (the driver's file lists), the context additions the driver's prover accepts, and the data a
    component given no path reads by default (the driver's content). Coq's:
    ``prover/coq/nodes.py``."""

    def additions(self, env_options: Mapping[str, Any]) -> tuple[str, ...]:
        """The context additions ``env_options`` asks for that this machine's prover accepts (run
        on the driver, then on each node, whose answer must be the same)."""
        ...

    def programs(self, additions: tuple[str, ...]) -> list[str]:
        """The programs a worker runs with these ``additions``: names on PATH, or paths."""
        ...

    def libraries(self, additions: tuple[str, ...]) -> list[str]:
        """The library directories a worker reads with these ``additions``."""
        ...

    def default_data(self, generator_options: Mapping[str, Any] | None) -> list[tuple[str, str, str]]:
        """``(path, option, remedy)`` of each file or directory the generator with these options
        (None: given as an object) reads by default, that exists here."""
        ...


@dataclass(frozen=True)
class Backend:
    """One backend (module docstring). ``name`` is the ``--env`` name (``aliases`` other accepted
    spellings); ``environment`` the ``"module:Class"`` of its environment; ``checker`` says in
    words what re-checks a proof (printed beside a found proof) and ``trusted`` what a proof it
    accepts may assume (empty: it says nothing); ``library`` names the library its default
    theorems come from, for headings; ``benchmark_families`` maps each benchmark family of its
    theorems (``coq-stdlib`` of ``coq-stdlib:test``) to the ``"module:function"`` that loads a
    split of it (called with the text after the family's colon, returning ``Theorem``s), and
    ``theorem_lists`` is the ``"module:function"`` that reads a benchmark given as a JSON or JSONL
    file naming theorems (a path -> ``Theorem``s; None: it reads none).

    How proofs are shown: ``proof_frame`` is the pair of lines a rendered script goes between in a
    source file (None when the environment renders the whole proof, as Lean's ``by`` block or
    declaration); ``qualified_name`` a ``"module:function"`` from a theorem to its name unique
    across the library (None: its ``full_name`` is); ``axioms`` one from the axioms a check
    reported (``result.stats["axioms"]``) to words for the reader (None: their names, joined)."""

    name: str
    environment: str
    language: Language | None
    checker: str
    aliases: tuple[str, ...] = ()
    generators: Mapping[str, str] = field(default_factory=dict)
    template_sets: Mapping[str, str] = field(default_factory=dict)
    benchmark_families: Mapping[str, str] = field(default_factory=dict)
    theorem_lists: str | None = None
    features: Mapping[Feature, str] = field(default_factory=dict)
    trusted: str = ""
    library: str = ""
    proof_frame: tuple[str, str] | None = None
    qualified_name: str | None = None
    axioms: str | None = None
    # --- learning from the searches' own action logs (``learn``) ---------------------------------
    #: ``"module:function"`` ``() -> str``: the version of the prover the backend drives, recorded
    #: with search data (``generator.action_data.Provenance``) so that data of another version is
    #: refused; None: ``learn`` does not take this backend
    prover_version: str | None = None
    #: ``"module:function"`` ``(timeout, policy=...) -> ProverConfig``: the default prover whose
    #: candidates and queue a learned checkpoint (``policy``, a path; None: none) orders, which
    #: ``learn`` searches with round after round; None: ``learn`` does not take this backend
    learned_preset: str | None = None

    # --- running on a cluster's nodes --------------------------------------------------------------
    #: ``"module:attribute"`` of its :class:`NodeNeeds` (None: a node needs only the package)
    node_needs: str | None = None

    def learns(self) -> bool:
        """Whether ``learn`` takes this backend: its default prover can be ordered by a learned
        policy, and its searches say which prover made them."""
        return self.prover_version is not None and self.learned_preset is not None

    def provides(self, feature: Feature) -> bool:
        return feature in self.features

    def load(self, feature: Feature) -> Any:
        """The object the backend provides for ``feature`` (imported now); KeyError if none."""
        return load_target(self.features[feature])

    def environment_class(self) -> Any:
        return load_target(self.environment)

    def render_proof(self, script: str) -> str:
        """A found proof's script (``ProofResult.script``) as it reads in a source file."""
        if self.proof_frame is None:
            return script
        opening, closing = self.proof_frame
        return f"{opening}\n{textwrap.indent(script, '  ')}\n{closing}"

    def name_of(self, theorem: Any) -> str:
        """``theorem``'s name, unique across its library (Coq's with its module), for listings."""
        return theorem.full_name if self.qualified_name is None else load_target(self.qualified_name)(theorem)

    def assumes(self, result: Any) -> str:
        """What a checked proof (a ``ProofResult``) assumes, for its reader: ``uses classic
        (Coq.Logic.Classical_Prop)``, or ``no axioms`` when its check reported none."""
        axioms = result.stats.get("axioms")
        if not axioms:
            return "no axioms"
        return "uses " + (", ".join(axioms) if self.axioms is None else load_target(self.axioms)(axioms))
