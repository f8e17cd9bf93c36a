"""Every default of a run in one place, each with where it comes from.

The command line's flags (their defaults and help), the presets of :mod:`prover.coq.presets`, the
provers of :mod:`prover.proof_search`, the environments' constructors and the run machinery all
read their numbers here, so that ``dojo-prover prove``, ``eval``, a ``ProverConfig`` and
``BestFirstSearchProver(gen)`` search under the same limits unless one of them says otherwise.
Where an entry point legitimately differs (the demo is a two-minute tour; ``learn`` searches many
theorems per round), the difference is a named :class:`Limits` profile below, not a literal at the
entry point.

This module imports nothing of the package, so every layer may read it.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass, field, fields
from typing import Any

#: the search's width when nothing else is said: the generator's 32 best suggestions per expansion
SEARCH_WIDTH = 32

#: the least time the final check (coqc, then coqchk) gets, whatever the search's: coqc recompiles
#: the theorem's file up to it; a median check takes 0.4 s (benchmarks/results/verify_time.md)
VERIFY_FLOOR = 60.0

#: ``hammer``'s share of the search's time, and its cap: a search checks its clock between tactics,
#: so a longer hammer call would overrun the theorem's limit; CoqHammer's own ATPs give up well
#: before 20 s on what they can prove (benchmarks/results/coq_vs_hammer.md: median 11.5 s to a proof)
HAMMER_SHARE = 1 / 3
HAMMER_CAP = 20.0
#: the default prover's ``hammer`` turns (:class:`search_tree.budget.Reserve`): on the root at the
#: latest once this share of the search's time is spent, whatever cheaper tactics still wait ...
HAMMER_BY = 0.25
#: ... and again, with all the time left, on the best other state once only this share is left (or
#: as soon as every path has failed): scored last, ``hammer`` otherwise ran in 11 of 24 failed searches
HAMMER_FINAL = 0.25

#: LeanDojo: seconds per Lean tactic and for starting Lean on a theorem (a Mathlib file's
#: elaboration); Lean tactics under Mathlib are slower than Coq's, and LeanDojo's ``Dojo`` itself
#: waits up to 600 s by default
LEAN_TACTIC_TIMEOUT = 60
LEAN_INIT_TIMEOUT = 600
#: LeanDojo: seconds for the final check of a found proof (``lake env lean`` on the theorem's file
#: up to the theorem: the imports' loading and the file's elaboration, as for starting Lean on it)
LEAN_CHECK_TIMEOUT = 600


@dataclass(frozen=True)
class Limits:
    """The per-theorem limits of a run: the search's and the environment's."""

    #: the protocol the default prover's figures were measured under (benchmarks/results/coq_vs_hammer.md)
    timeout: float = field(default=60.0, metadata={"flag": "search wall-clock seconds per theorem"})
    #: each Coq tactic's limit in those figures (the default prover's preset)
    tactic_timeout: float = field(default=5.0, metadata={"flag": "seconds per tactic"})
    #: None: :attr:`hammer`, derived from ``timeout``
    hammer_timeout: float | None = field(default=None, metadata={
        "flag": "seconds for the default prover's hammer call",
        "derived": f"a third of --timeout, at most {HAMMER_CAP:g}"})
    #: None: the clock alone ends a search
    max_expansions: int | None = field(default=None, metadata={
        "flag": "stop after this many expansions", "derived": "no limit"})

    @property
    def hammer(self) -> float:
        """``hammer_timeout``, or :data:`HAMMER_SHARE` of ``timeout`` capped at :data:`HAMMER_CAP`."""
        return self.hammer_timeout if self.hammer_timeout is not None else min(HAMMER_CAP, self.timeout * HAMMER_SHARE)

    @property
    def verify(self) -> float:
        """The final check's limit: the theorem's ``timeout``, at least :data:`VERIFY_FLOOR`."""
        return max(VERIFY_FLOOR, self.timeout)


#: ``prove``, ``eval``, ``ablate``, ``fill-admitted``, ``interact``, the presets, the provers and the
#: environments of the Python API: the limits the default prover's figures were measured under
RUN = Limits()

#: ``demo``: 16 short stdlib lemmas on two workers, each proof printed within seconds, about two
#: minutes in all on two cores with hammer's comparison (benchmarks/results/demo.md)
DEMO = Limits(timeout=10.0, tactic_timeout=2.0, hammer_timeout=5.0, max_expansions=40)

#: ``learn``: every round searches its training and validation theorems again, so each search is
#: short; docs/learning.md's figures were measured at 10 s
LEARN = Limits(timeout=10.0)


def is_positive(value: float) -> bool:
    """Whether ``value`` can be a limit or a count: a positive, finite number. ``> 0`` alone lets
    ``inf`` (and ``nan`` fails it) through, a "limit" that never ends a search nor a worker."""
    return value > 0 and math.isfinite(value)


def add_limit_flags(parser: argparse.ArgumentParser, limits: Limits, *names: str) -> None:
    """Add ``--timeout``, ``--tactic-timeout``, ... (``names`` are :class:`Limits` fields), with
    ``limits``'s values as their defaults and the help text :class:`Limits` gives them."""
    known = {f.name: f for f in fields(Limits)}
    for name in names:
        spec = known[name]
        value: Any = getattr(limits, name)
        shown = spec.metadata.get("derived") if value is None else f"{value:g}"
        parser.add_argument(f"--{name.replace('_', '-')}", type=int if name == "max_expansions" else float,
                            default=value, help=f"{spec.metadata['flag']} (default: {shown})")
