"""The Coq prover presets: the default prover, the baseline and the one-step comparison systems.

A preset is a :class:`prover.registry.ProverConfig`, the same value ``eval`` records in a run's
``config.json``, so ``prove``, ``demo``, ``eval`` and ``benchmarks/coq_vs_hammer.py`` build the
default prover one way, and the baseline one way too (a caller that opens theorems in an
environment of its own takes the prover alone, :func:`prover.registry.prover_from`). The default's
generator is :mod:`prover.coq.default_generator`; the presets live here, beside the backend whose
options (context additions, ``hammer_timeout``) they choose, so that the generator package does
not depend on the prover's registry. :func:`hammer_alone` is the comparison ``demo`` runs beside
the default (the backend's ``Feature.COMPARISON``).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from pathlib import Path

from prover.backend import Comparison
from prover.coq.default_generator import SHIPPED_POLICY
from prover.defaults import HAMMER_BY, HAMMER_FINAL, RUN, Limits
from prover.registry import ComponentSpec, ProverConfig
from search_tree.protocol import Theorem

#: the context additions the default's tactics need (see :mod:`prover.coq.additions`)
ADDITIONS = ("hammer", "psatz", "ring", "field")

#: the default's shorter limits for its expensive tactics, by first word (the environment's
#: ``tactic_limits``): failing, each of them spent the whole tactic timeout, and in the default's
#: failed searches those timeouts took 90% of the tactic time. Chosen on the stdlib's val split
#: (docs/coq.md, "Time limits")
TACTIC_LIMITS = {"firstorder": 2.0, "sauto": 2.0, "hauto": 2.0, "qauto": 2.0}

#: how many ATP strategies the default's ``hammer`` calls run at once (CoqHammer's ``GSMode``; its own
#: eight are forked together and share the cores): with two workers on two cores, ``hammer`` alone
#: at 20 s proved 19, 18, 16 and 15 of 60 val theorems with one, two, four and eight strategies,
#: eight's 15 among each (docs/coq.md, "How many ATP strategies"). A machine with more cores per
#: worker may give more (``--env-opt hammer_strategies=N``). ``hammer`` alone, the comparison,
#: keeps CoqHammer's own eight, as a user typing it gets them
HAMMER_STRATEGIES = 1

#: the steps after which ``hammer`` faces the problem it faced before (it introduces a goal's
#: premises itself): its second call is not spent on a state these made of one it ran on
#: (:attr:`search_tree.budget.Reserve.same_problem`)
HAMMER_SAME_PROBLEM = ("intros.", "intro.")

#: the benchmarks the default's choices (its tactics, their priors, its tiers, its width) were made
#: on: the stdlib's train and val splits and AAC_tactics; every other library and the stdlib's test
#: split are evaluation data, which ``benchmarks/coq_vs_hammer.py`` says beside its figures
TUNED_ON = ("coq-stdlib:train", "coq-stdlib:val", "coq-lib:AAC_tactics")



class Shipped(Enum):
    """The type of :data:`SHIPPED`, ``default_config``'s default ``policy``. An enum member rather
    than a reserved string, so that no path (not even one named ``shipped``) is mistaken for it and
    a type checker tells the two apart."""

    CHECKPOINT = "shipped"


#: ``default_config``'s ``policy`` for "the checkpoint shipped in the package (:data:`SHIPPED_POLICY`),
#: if it has one"; a path names a checkpoint of the caller's, None none
SHIPPED = Shipped.CHECKPOINT


def default_config(timeout: float = RUN.timeout, tactic_timeout: float = RUN.tactic_timeout,
                   hammer_timeout: float | None = RUN.hammer_timeout, max_expansions: int | None = RUN.max_expansions,
                   project: str | None = None, policy: str | Path | Shipped | None = SHIPPED) -> ProverConfig:
    """The default Coq prover's preset with these budgets (defaults: :data:`prover.defaults.RUN`):
    a :class:`prover.registry.ProverConfig` whose search is best-first with ``timeout`` wall-clock
    seconds per theorem. ``hammer`` gets ``hammer_timeout`` seconds, by default
    :attr:`prover.defaults.Limits.hammer` (a share of ``timeout``, capped): a search checks its
    clock between tactics, so a longer hammer call would overrun the theorem's limit. The search
    runs it on the root by a deadline and once more with the time left at the end
    (:data:`prover.defaults.HAMMER_BY`, :data:`prover.defaults.HAMMER_FINAL`), and the expensive
    tactics get :data:`TACTIC_LIMITS` (``tactic_timeout`` at most); ``hammer`` runs
    :data:`HAMMER_STRATEGIES` ATP strategies at once. The final
    check gets :attr:`prover.defaults.Limits.verify` (the theorem's ``timeout``, at least a
    minute), not more. ``project`` (:func:`prover.coq.project.load_project`'s spec) is where
    theorems are looked up by name, and whose corpus and traces the prover learns from; default
    the stdlib. ``policy``: the learned checkpoint that orders candidates and values states
    (a path; :data:`SHIPPED`: the one in the package, if any; None: none); the search takes its
    value from the generator."""
    from prover.coq.default_generator import default_width

    limits = Limits(timeout, tactic_timeout, hammer_timeout, max_expansions)
    if isinstance(policy, Shipped):
        policy = SHIPPED_POLICY if SHIPPED_POLICY.exists() else None
    reserve = {"tactic": "hammer.", "first_limit": limits.hammer, "first_by": HAMMER_BY, "final": HAMMER_FINAL,
               "same_problem": list(HAMMER_SAME_PROBLEM)}
    search = {"timeout": timeout, "num_sampled_tactics": default_width(), "value": "generator", "reserve": reserve}
    if max_expansions is not None:
        search["max_expansions"] = max_expansions
    env = {"tactic_timeout": tactic_timeout, "additions": list(ADDITIONS), "hammer_timeout": limits.hammer,
           "tactic_limits": dict(TACTIC_LIMITS), "verify_timeout": limits.verify, "hammer_strategies": HAMMER_STRATEGIES}
    if project is not None:
        env["project"] = project
    return ProverConfig(
        env=ComponentSpec("coq", env),
        prover=ComponentSpec("best_first", search),
        generator=ComponentSpec("coq_default", {} if policy is None else {"policy": str(policy)}),
    )


def baseline_config(tactics: Sequence[str] | None, timeout: float = RUN.timeout,
                    tactic_timeout: float = RUN.tactic_timeout, max_expansions: int | None = RUN.max_expansions,
                    project: str | None = None) -> ProverConfig:
    """The Coq baseline: best-first search over ``tactics`` (default the ``coq:BASELINE`` template
    set, :func:`prover.coq.templates.automation_generator`, with ssreflect's where a theorem's
    context loads it) and its case analysis, asking for every suggestion it makes, ``timeout``
    seconds per theorem (the final check gets :attr:`prover.defaults.Limits.verify`). The search
    over given tactics of ``prove --tactics``, and the default prover's first member."""
    from prover.coq.templates import automation_generator

    tactics = list(tactics or [])
    search: dict[str, float] = {"timeout": timeout, "num_sampled_tactics": automation_generator(tactics).width}
    if max_expansions is not None:
        search["max_expansions"] = max_expansions
    env: dict[str, object] = {"tactic_timeout": tactic_timeout, "verify_timeout": Limits(timeout).verify}
    if project is not None:
        env["project"] = project
    return ProverConfig(env=ComponentSpec("coq", env), prover=ComponentSpec("best_first", search),
                        generator=ComponentSpec("automation", {"tactics": tactics} if tactics else {}))


def alone_config(tactics: Sequence[str], timeout: float, additions: Sequence[str] = ()) -> ProverConfig:
    """A one-step prover for comparisons: ``tactics`` tried on the theorem's first state only, in
    the order given, with ``timeout`` seconds in all (each tactic's own limit is ``timeout`` split
    evenly; ``hammer`` gets it as its ``hammer_timeout``), in an environment with ``additions``."""
    if not tactics:
        raise ValueError("alone_config needs at least one tactic")
    each = timeout / len(tactics)
    scored = [[t, -0.1 * (i + 1)] for i, t in enumerate(tactics)]
    return ProverConfig(
        env=ComponentSpec("coq", {"tactic_timeout": each, "additions": list(additions), "hammer_timeout": each,
                                  "verify_timeout": Limits(timeout).verify}),
        prover=ComponentSpec("best_first", {"timeout": timeout, "max_expansions": 1,
                                            "num_sampled_tactics": len(tactics)}),
        generator=ComponentSpec("fixed", {"tactics": scored}),
    )


def hammer_alone(theorems: Sequence[Theorem], timeout: float) -> Comparison:
    """What a Coq user compares the default prover with: CoqHammer's ``hammer`` alone on the first
    state, ``timeout`` seconds per theorem, noting how many of ``theorems`` it runs on reopened
    (:func:`prover.coq.additions.reopened`: its imports load their module, and the leak check
    refuses a proof that uses the compiled theorem or a later object of its file)."""
    from prover.coq.additions import reopened

    given_back = len(reopened(("hammer",), theorems))
    return Comparison("hammer alone", alone_config(["hammer."], timeout, ["hammer"]),
                      f"{given_back} of them reopened for CoqHammer, whose imports load their own module; "
                      "a proof using the compiled theorem or a later object of its file is refused")
