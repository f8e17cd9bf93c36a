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
* the benchmark families its theorems come from;
* the features a command needs (:class:`Feature`), each a ``"module:attribute"`` target of the
  backend's own code with the signature the feature documents; a backend without one is named by
  the command in a one-line error (:func:`prover.backends.providing`).

Targets are strings imported only when used, so that this object, and the registry of every
backend, load no prover, torch or Ray.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from search_tree.language import Language
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
    #: ``fill_in_copy(...)``: proofs written into a copy of a project (``fill-admitted``, Coq's
    #: :func:`prover.coq.fill.fill_in_copy`)
    FILL = "filling of admitted proofs"
    #: the function that traces a project into training data (``trace``; the command's
    #: backend-specific options say how it is called)
    TRACE = "tracer"
    #: ``split(split) -> list[Theorem]``: short theorems of a benchmark split for ``demo``
    DEMO_THEOREMS = "demo split"


@dataclass(frozen=True)
class Backend:
    """One backend (module docstring). ``name`` is the ``--env`` name (``aliases`` other accepted
    spellings); ``environment`` the ``"module:Class"`` of its environment; ``checker`` says in
    words what re-checks a proof (printed beside a found proof)."""

    name: str
    environment: str
    language: Language | None
    checker: str
    aliases: tuple[str, ...] = ()
    generators: Mapping[str, str] = field(default_factory=dict)
    template_sets: Mapping[str, str] = field(default_factory=dict)
    benchmark_families: tuple[str, ...] = ()
    features: Mapping[Feature, str] = field(default_factory=dict)

    def provides(self, feature: Feature) -> bool:
        return feature in self.features

    def load(self, feature: Feature) -> Any:
        """The object the backend provides for ``feature`` (imported now); KeyError if none."""
        return load_target(self.features[feature])

    def environment_class(self) -> Any:
        return load_target(self.environment)
