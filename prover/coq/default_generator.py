"""The default Coq prover: cheap automation first, then learned and retrieved tactics, then CoqHammer.

A Coq user compares a prover with typing ``hammer`` at an equal wall-clock limit, so the
default must contain what ``hammer`` does and add what learning from the library gives. It is one
generator, ``coq_default`` (:class:`CoqDefaultGenerator`), and one preset around it,
:func:`prover.coq.presets.default_config`: the environment with the context additions its
tactics need, best-first search with a wall-clock limit per theorem. ``dojo-prover prove --env
coq``, ``demo`` and ``eval --env coq`` without ``--generator`` run the preset.

Members and their *tiers*. Each member's suggestions keep their own scores (the baseline's
hand-set best-first scores; kNN's and proof retrieval's log-probabilities) and are shifted by the
member's tier offset, so that best-first search, which runs a state's tactics best first, spends
its time in order of cost:

1. the Coq baseline (:func:`prover.coq.templates.automation_generator`: closing tactics,
   ``intros``/``split``/``simpl``, case analysis and induction on hypotheses) and the decision
   procedures :data:`DECISION` (``ring``, ``field``, ``lra``, ``nra``, ``nia``; ``lia``,
   ``congruence``, ``firstorder`` are in the baseline), offset 0: they fail in milliseconds;
2. online kNN (:mod:`generator.knn`, Tactician) and proof retrieval
   (:mod:`generator.proof_retrieval`, Rango) over the traced library, masked per theorem to the
   proofs accessible from it, offset :data:`LEARNED_OFFSET`: the best kNN tactic lands among the
   structural steps, and a retrieved proof (one macro action) among the closing tactics when its
   lemma is very similar; with them, for a theorem whose library already states a lemma of the
   same name (``NZDivProp.div_same`` before ``NDivProp.div_same``), the namesake member
   (:mod:`generator.namesake`): that lemma in the file's own proof templates (``apply {}; auto'.``)
   and in :data:`NAMESAKE_TACTICS`;
3. CoqHammer's reconstruction tactics (:mod:`prover.coq.hammer_generator`; with premises where a
   run names a retriever, e.g. :func:`coq_premises`),
   offset :data:`HAMMER_OFFSET`, and ``hammer`` itself last, on the theorem's first state: it
   costs its own time limit (``hammer_timeout``). Scored last, it would wait behind every other
   suggestion of that state, so the preset's search gives it its turns by a deadline and with
   the time left at the end (:class:`search_tree.budget.Reserve`, :func:`prover.coq.presets.default_config`).

A learned policy and value (:mod:`generator.learned_policy`, trained by ``dojo-prover learn`` on the
default's own searches): given a checkpoint (``policy=PATH``), the generator rescores the union of
its members' suggestions with it, by chance of solving per predicted second instead of by tier
alone, and exposes the checkpoint's
value estimate as :attr:`CoqDefaultGenerator.value`, which the preset's best-first search adds to
its priority. Every suggestion's member and tier score stay available through
:meth:`CoqDefaultGenerator.proposers`, which the action logs record for the next round's data.

Traced data missing (a fresh machine before ``dojo-prover trace --env coq``): tier 2 is left out
with one warning saying how to enable it; the rest works on any installed stdlib. CoqHammer
missing: the environment leaves the addition out with its own warning, and
:class:`prover.coq.hammer_generator.HammerGenerator` proposes nothing where the addition is absent
(a theorem whose module CoqHammer loads gets it reopened, with the leak check). The shipped
checkpoint (:data:`SHIPPED_POLICY`) missing or unreadable: one warning naming it and the command
that rebuilds it, and the default runs without it; a checkpoint the user named
(``--generator-opt policy=PATH``) is a one-line error instead, since running without it would
measure another prover than the one asked for (and record the policy it never loaded).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generator.base import Candidate, Suggestion, TacticGenerator
from generator.fixed import FixedTacticGenerator
from search_tree.protocol import TacticState, Theorem


if TYPE_CHECKING:
    from retrieval.base import Retriever
    from retrieval.corpus import Corpus

#: where a learned policy shipped with the package lives (built by ``dojo-prover learn``, see
#: docs/learning.md); :func:`prover.coq.presets.default_config` uses it when it is there
SHIPPED_POLICY = Path(__file__).resolve().parents[2] / "generator" / "data" / "learned_policy.pt"

#: decision procedures that are not in the baseline list, scored among its closing tactics
#: (``lia`` is at -1.9 there); they need the ``psatz``/``ring``/``field`` context additions
DECISION: tuple[tuple[str, float], ...] = (
    ("ring.", -1.95), ("lra.", -2.05), ("field.", -2.9), ("nia.", -3.0), ("nra.", -3.3),
)
LEARNED_OFFSET = -0.5
HAMMER_OFFSET = -1.5
#: suggestions taken from each learned member per state
LEARNED_TOP = 12
#: suggestions taken from the namesake member per state (:mod:`generator.namesake`)
NAMESAKE_TOP = 6
#: the namesake member's fixed templates, ``{}`` the namesake (learned templates come first)
NAMESAKE_TACTICS: tuple[tuple[str, float], ...] = (
    ("apply {}.", -1.0), ("now apply {}.", -1.1), ("intros; apply {}; auto.", -1.2), ("now rewrite {}.", -1.3),
    ("intros; now rewrite {}.", -1.4),
)
#: suggestions taken from CoqHammer's member per state (its plain and premise tactics, ``hammer``)
HAMMER_TOP = 10


def default_width(trace_directories: int = 2) -> int:
    """The most suggestions :func:`coq_default` makes on one state, learning from
    ``trace_directories`` traced directories (a project's own beside the stdlib's: two): every
    member's cap, with the baseline's ssreflect templates. The default's search asks for this many,
    so that no tier is cut: a narrower width drops the lowest-scored suggestions first, which are
    CoqHammer's, ``hammer`` itself last (it is scored to run last, not never), on exactly the
    theorems with the most hypotheses or a project's traces. More directories (the libraries a
    project requires, :meth:`prover.coq.env.CoqEnvironment.default_traces`) share two directories'
    suggestions (:func:`learned_top`), so that this width keeps every tier for them too."""
    from prover.coq.templates import automation_generator

    return (automation_generator().width + len(DECISION)
            + trace_directories * (2 * learned_top(trace_directories) + learned_top(trace_directories, NAMESAKE_TOP))
            + HAMMER_TOP)


def learned_top(trace_directories: int, top: int = LEARNED_TOP) -> int:
    """The suggestions each member learning from one traced directory contributes per state, with
    ``trace_directories`` of them: ``top`` (:data:`LEARNED_TOP` for kNN and proof retrieval,
    :data:`NAMESAKE_TOP` for namesakes), but no more than two directories' worth in all, so that
    learning from the libraries a project requires widens no search and cuts none of CoqHammer's
    suggestions (see :func:`default_width`)."""
    return min(top, 2 * top // max(trace_directories, 1))


class CoqDefaultGenerator(TacticGenerator):
    """The tiered union of ``members``: ``[(generator, offset, top)]``; a tactic proposed by several
    members keeps its best shifted score. ``top`` caps how many suggestions a member contributes.
    ``names`` name the members in the action logs (default ``member0``, ``member1``...). ``policy``
    (a :class:`generator.learned_policy.LearnedPolicy`) rescores the union: a tactic's score is then
    the policy's :meth:`~generator.learned_policy.LearnedPolicy.score`, its P(solves) per predicted
    second renormalised over the state's candidates, given its member and tier score."""

    def __init__(self, members: Sequence[tuple[TacticGenerator, float, int]], names: Sequence[str] | None = None,
                 policy: Any | None = None) -> None:
        if not members:
            raise ValueError("CoqDefaultGenerator needs at least one member")
        self.members = list(members)
        self.names = list(names) if names is not None else [f"member{i}" for i in range(len(self.members))]
        if len(self.names) != len(self.members):
            raise ValueError(f"{len(self.names)} names for {len(self.members)} members")
        self.policy = policy
        self._proposers: dict[int, list[Candidate]] = {}

    @property
    def value(self) -> Any | None:
        """The policy's value estimate (a :class:`search_tree.value.ValueFunction`), or None."""
        return None if self.policy is None else self.policy.value_function()

    def proposers(self, state: TacticState) -> list[Candidate]:
        """The candidates of the last call for ``state``: ``(tactic, member name, tier score)``."""
        return self._proposers.get(state.id, [])

    def generate(self, state: TacticState, context: Theorem, num_samples: int) -> list[Suggestion]:
        return self.batch_generate([state], [context], num_samples)[0]

    def batch_generate(self, states: list[TacticState], contexts: list[Theorem],
                       num_samples: int) -> list[list[Suggestion]]:
        merged: list[dict[str, tuple[float, str]]] = [{} for _ in states]
        for (generator, offset, top), name in zip(self.members, self.names, strict=True):
            for best, answer in zip(merged, generator.batch_generate(states, contexts, top), strict=True):
                for tactic, score in answer[:top]:
                    key = " ".join(tactic.split())
                    if key not in best or score + offset > best[key][0]:
                        best[key] = (score + offset, name)
        self._proposers = {}
        out = []
        for state, best in zip(states, merged, strict=True):
            candidates = [(tactic, name, score) for tactic, (score, name) in best.items()]
            self._proposers[state.id] = candidates
            if self.policy is None:
                scored = [(tactic, score) for tactic, _, score in candidates]
            else:
                scored = list(zip([c[0] for c in candidates], self.policy.score(state, candidates), strict=True))
            out.append(sorted(scored, key=lambda s: -s[1])[:num_samples])
        return out


def _directories(traces: str | Path | Sequence[str] | None) -> list[str | Path | None]:
    """``traces`` as a list of traced directories; None stands for the tracer's (the stdlib's)."""
    return [None] if traces is None else [traces] if isinstance(traces, (str, Path)) else list(traces)


def coq_premises(corpus: Corpus, traces: str | Sequence[str] | None = None, neighbours: int = 64) -> Retriever:
    """Premises for the default's ``sauto use:`` / ``hauto use:``, where a run names this retriever
    (``--retriever prover.coq.default_generator:coq_premises``; the preset names none): kNN
    premise selection (:class:`retrieval.neighbours.NeighbourRetriever`: the premises that the most
    similar traced states used), online, so that a theorem learns from the proofs accessible from
    it only, over the traced splits of ``traces`` (directories, as for :func:`coq_default`; default
    the stdlib's). Where nothing is traced here, or no traced proof names a premise of ``corpus``,
    it is BM25 over the premises' statements: the missing traces are told once, by the warning
    that kNN and proof retrieval are left out. kNN was chosen over BM25 and their fusion on the
    stdlib's val split (docs/coq.md, "Premises for sauto and hauto")."""
    from retrieval.bm25 import BM25Retriever
    from retrieval.neighbours import NeighbourRetriever
    from retrieval.training_data import NoTrainingPairs

    from prover.coq.tracer import trace_files

    files = [f for directory in _directories(traces) for f in trace_files(directory)]
    if files:
        try:
            return NeighbourRetriever(corpus, files, neighbours=neighbours, skip_unusable=True)
        except NoTrainingPairs:
            pass
    return BM25Retriever(corpus)


def coq_default(traces: str | Sequence[str] | None = None, learned: bool = True, hammer: bool = True,
                num_premises: int = 4, retriever: Any | None = None, policy: str | None = None,
                namesakes: bool = True, twins: bool = True) -> CoqDefaultGenerator:
    """The ``coq_default`` generator (module docstring). ``traces``: the directory of the traced
    splits, or several (a project's own beside the stdlib's and its libraries': one kNN and one
    proof-retrieval member each, every one masked by its own corpus, :func:`learned_top` suggestions each);
    default (None) :func:`prover.coq.tracer.traced_data_dir`; an empty path is refused, not the default.
    ``learned=False`` leaves out kNN, proof retrieval and namesakes, ``namesakes=False`` the namesakes
    alone (:mod:`generator.namesake`; an ablation), ``twins=False`` kNN's and proof retrieval's
    tactics carried over to a twin goal (:mod:`generator.analogy`; an ablation), ``hammer=False``
    CoqHammer's tactics;
    ``retriever`` supplies the premises of ``sauto use:`` / ``hauto use:`` (``num_premises`` of them);
    ``policy`` is the path of a checkpoint of ``dojo-prover learn`` that orders the candidates."""
    from prover.coq.hammer_generator import HammerGenerator
    from prover.coq.templates import automation_generator
    from prover.coq.tracer import trace_files

    baseline = automation_generator()
    members: list[tuple[TacticGenerator, float, int]] = [
        (baseline, 0.0, 1000), (FixedTacticGenerator(list(DECISION)), 0.0, len(DECISION))]
    names = ["automation", "decision"]
    directories = _directories(traces)
    top = learned_top(len(directories))
    for i, directory in enumerate(directories if learned else []):
        files = trace_files(directory)
        if not files:
            where = "the tracer's cache directory" if directory is None else directory
            warnings.warn(f"coq_default: no traced Coq data in {where}, so kNN and proof retrieval are left out; "
                          "run `dojo-prover trace --env coq` once to enable them", RuntimeWarning, stacklevel=2)
            continue
        from generator.knn import KNNGenerator, traced_corpus
        from generator.namesake import NamesakeGenerator
        from generator.proof_retrieval import ProofRetrievalGenerator
        from prover.coq.language import COQ

        corpus = traced_corpus(files)  # parsed once for the three members that mask by it
        members += [(KNNGenerator.from_traced(files, COQ, corpus=corpus, twins=twins), LEARNED_OFFSET, top),
                    (ProofRetrievalGenerator.from_traced(files, COQ, corpus=corpus, twins=twins), LEARNED_OFFSET, top)]
        names += ["knn", "proofs"] if i == 0 else [f"knn{i}", f"proofs{i}"]
        namesake = NamesakeGenerator.from_traced(files, corpus, fixed=NAMESAKE_TACTICS) if namesakes else None
        if namesake is not None:
            members.append((namesake, LEARNED_OFFSET, learned_top(len(directories), NAMESAKE_TOP)))
            names.append("namesake" if i == 0 else f"namesake{i}")
    if hammer:
        members.append((HammerGenerator(retriever, num_premises=num_premises, hammer_states=1), HAMMER_OFFSET,
                        HAMMER_TOP))
        names.append("hammer")
    return CoqDefaultGenerator(members, names, _load_policy(policy))


def _load_policy(path: str | None) -> Any | None:
    """The checkpoint at ``path``, or None for none. A bad checkpoint the user named is a
    :class:`~generator.learned_policy.CheckpointError` (one line naming it and the command that
    rebuilds it): running without it would answer another question than the one asked. The shipped
    one (:data:`SHIPPED_POLICY`, which the preset names by itself) is only a warning, through the
    command line's warning channel, and the default then runs on its tiers alone."""
    if path is None:
        return None
    from generator.learned_policy import CheckpointError, LearnedPolicy

    try:
        return LearnedPolicy.load(path)
    except CheckpointError as exc:
        if Path(path).resolve() != SHIPPED_POLICY:
            raise
        warnings.warn(f"coq_default: {exc}; running without the learned policy", RuntimeWarning, stacklevel=2)
        return None
