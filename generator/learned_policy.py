"""A small policy and value learned from the prover's own searches (expert iteration on CPU).

What it does. Given a proof state and the union of candidate tactics the default's members
propose (:mod:`prover.coq.default_generator`), the *policy* estimates for each candidate the chance that
it *solves* the state (finishes the proof, or leads to a state the search goes on to prove), that
it merely *applies*, or that it *fails* (an error, or a timeout that costs the tactic's whole
limit), and how many seconds running it takes. Candidates are ordered by their chance of solving
per expected second (:meth:`LearnedPolicy.score`), renormalised over the state's candidates.
The *value* estimates whether the search proves a state and in how many steps, and is read as
a remaining cost for best-first priority (:mod:`search_tree.best_first`) or MCTS.
Both are trained by :func:`train` on :mod:`generator.action_data`, the searches' own action logs,
which ``dojo-prover learn`` collects round after round.

Why this design, and its sources:

* Expert iteration: search, learn from the search's own outcomes, search again. Polu & Sutskever
  (GPT-f, 2020) and Polu et al. (2022) retrain the policy on the proofs found and a value on the
  states' outcomes and use the value in best-first search; HTPS (Lample et al., 2022) trains the
  policy and a critic from every node of the search graph, proved or not, which is what the
  ``solves``/``fails`` targets of *every tried tactic* do here; Reap (2025) and AlphaProof repeat
  the loop at scale. A state's value target is whether its subtree got proved and how soon, as
  HTPS's critic and Reap's binned remaining-steps value.
* Features, not a transformer: the policy runs inside a search that spends milliseconds per
  tactic, on CPU, at every expansion (of tens of candidates). Tactician (Blaauwbroek et al., 2020)
  shows that hashed symbol and term features of the goal with a fast learner (kNN, then random
  forests) rank tactics well in Coq; Graph2Tac and ReProver need a GPU to be worth their cost. So a
  state is a hashed bag of its target's tokens and bigrams and its hypotheses' tokens, a candidate
  a hashed bag of its tokens, its head word (the tactic kind), its member and the pairs of its
  head word with the target's head symbol (Tactician's "tactic in context" features), plus its
  tier score; one shared :class:`torch.nn.EmbeddingBag` (2**15 buckets x 32, stored as float16:
  2 MB) feeds a two-layer MLP. Inference is one forward pass per state over all its candidates,
  well under 5 ms on one core (``benchmarks/learned_policy_speed.py``).
* The member's own score (its tier score) is an input, so the policy starts from what the tiers
  know and learns where they are wrong: which members' tactics solve which goals, and which
  expensive ones (``firstorder``, ``sauto``) time out where.
* Cost, not only chance: best-first search runs a state's candidates one after another under a
  wall-clock limit, and spends its budget on that state's tactics in the order given (between
  other states' tactics, by the path's score). Trying alternatives in sequence until one succeeds, the order that minimises
  the expected cost of the first success sorts them by success probability per unit of cost,
  ``p_i / c_i`` (Simon & Kadane, "Optimal problem-solving search: all-or-none solutions",
  Artificial Intelligence 6, 1975). Ordering by P(solves) alone puts a 2-s ``sauto`` that sometimes
  solves before a 10-ms ``auto`` that solves as often; so a cost head regresses each candidate's
  ``log(1 + seconds)`` from the logged times (a timeout logs its whole limit; a tactic that finishes
  the proof is left out, as its time includes the check of the proof) and the score is
  ``log P(solves) - log(seconds + COST_OVERHEAD)``, renormalised over the state's candidates.

A checkpoint records its format version, the model's sizes, the provenance of its data (the Coq
version and library, :class:`generator.action_data.Provenance`) and its training metrics. A
missing or unreadable one raises :class:`CheckpointError`, one line naming it and how to rebuild it.
"""

from __future__ import annotations

import contextlib
import logging
import math
import re
import statistics
import sys
import warnings
import zlib
from itertools import accumulate
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from generator.action_data import FAILURES, Attempt, Provenance, SearchData, live_state_text
from search_tree.errors import UserError
from search_tree.protocol import TacticState, Theorem

FORMAT = "dojo-prover-learned-policy"
#: 2: the pair head has a cost output (version 1 had none, and orders by P(solves) alone)
FORMAT_VERSION = 2
#: outcome classes of a tried candidate, in the policy head's order
OUTCOMES = ("solves", "applies", "fails")
#: the command that rebuilds a checkpoint, named in every error about one
REBUILD = "dojo-prover learn --out RUN_DIR (see docs/learning.md)"
#: identifiers (qualified ones whole: ``Nat.add_comm``, but not a tactic's final period), numbers, symbols
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_']*(?:\.[A-Za-z_][A-Za-z0-9_']*)*|\d+|[^\sA-Za-z0-9_]+")
#: the value's cost of a state it is sure will not be proved (in tactic steps)
MAX_COST = 50.0
#: seconds added to every candidate's predicted time in the score: the search's own work per
#: tactic (a node, a log line) besides Coq's, and a floor that keeps a near-zero prediction from
#: dominating the ratio; chosen on held-out training theorems (docs/learning.md)
COST_OVERHEAD = 0.05


class CheckpointError(UserError, ValueError):
    """A learned-policy checkpoint that is missing, unreadable, or of another format."""


@dataclass(frozen=True)
class ModelConfig:
    buckets: int = 2**15
    dim: int = 32
    hidden: int = 64


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _bucket(feature: str, buckets: int) -> int:
    # crc32, not hash(): Python salts str hashes per process, and features must be stable
    return zlib.crc32(feature.encode()) % buckets


def state_features(text: str, buckets: int) -> list[int]:
    """Hashed features of a state text (:func:`generator.action_data.state_text`)."""
    features = []
    goals = text.split("\n\n")
    features.append(f"ngoals:{min(len(goals), 5)}")
    for goal in goals[:3]:
        lines = goal.split("\n")
        target = tokens(lines[-1][3:] if lines[-1].startswith("|- ") else lines[-1])
        features += [f"g:{t}" for t in target]
        features += [f"gb:{a} {b}" for a, b in zip(target, target[1:])]
        features.append(f"ghead:{target[0] if target else ''}")
        for line in lines[:-1]:
            _, _, type_ = line.partition(" : ")
            features += [f"h:{t}" for t in tokens(type_)]
        features.append(f"nhyps:{min(len(lines) - 1, 10)}")
    return [_bucket(f, buckets) for f in features]


def tactic_features(tactic: str, member: str, goal_head: str, hypotheses: frozenset[str],
                    buckets: int) -> list[int]:
    """Hashed features of a candidate in its state: its tokens, kind, member, and context pairs."""
    words = tokens(tactic)
    kind = words[0] if words else ""
    features = [f"t:{t}" for t in words] + [f"tb:{a} {b}" for a, b in zip(words, words[1:])]
    features += [f"k:{kind}", f"m:{member}", f"km:{kind} {member}", f"kg:{kind} {goal_head}",
                 f"ntok:{min(len(words), 12)}"]
    used = sum(1 for w in words[1:] if w in hypotheses)
    features.append(f"kh:{kind} {min(used, 3)}")  # uses 0, 1, 2, 3+ local hypotheses
    return [_bucket(f, buckets) for f in features]


def _context(text: str) -> tuple[str, frozenset[str]]:
    """The head symbol of the first goal's target and the hypothesis names of the state."""
    first = text.split("\n\n")[0].split("\n")
    target = tokens(first[-1][3:] if first[-1].startswith("|- ") else first[-1])
    names = frozenset(line.partition(" : ")[0].strip() for goal in text.split("\n\n")
                      for line in goal.split("\n")[:-1])
    return (target[0] if target else ""), names


def _bags(rows: Sequence[list[int]]) -> tuple[torch.Tensor, torch.Tensor]:
    """EmbeddingBag's flat input and offsets for ``rows`` of feature ids."""
    offsets = torch.tensor([0, *accumulate(len(r) for r in rows)][:-1], dtype=torch.long)
    flat = torch.tensor([i for r in rows for i in r], dtype=torch.long)
    return flat, offsets


class PolicyValueNet(nn.Module):
    """Shared hashed embeddings; a state tower, a candidate tower, a pair head and a value head."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self.embed = nn.EmbeddingBag(config.buckets, config.dim, mode="sum")
        self.state = nn.Sequential(nn.Linear(config.dim, config.hidden), nn.ReLU())
        self.tactic = nn.Sequential(nn.Linear(config.dim + 1, config.hidden), nn.ReLU())
        self.pair = nn.Sequential(nn.Linear(3 * config.hidden, config.hidden), nn.ReLU())
        self.outcome = nn.Linear(config.hidden, len(OUTCOMES))
        self.cost = nn.Linear(config.hidden, 1)  # log(1 + seconds) the candidate takes to run
        self.value = nn.Linear(config.hidden, 2)  # logit of "proved", log(1 + steps) if proved
        nn.init.normal_(self.embed.weight, std=0.05)

    def encode_states(self, flat: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        return self.state(torch.tanh(self.embed(flat, offsets)))

    def pair_outputs(self, states: torch.Tensor, flat: torch.Tensor, offsets: torch.Tensor,
                     priors: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Outcome logits (one row each) and predicted ``log(1 + seconds)`` of each candidate;
        ``states`` holds its state's encoding, row by row."""
        bag = torch.tanh(self.embed(flat, offsets))
        tactic = self.tactic(torch.cat([bag, priors.unsqueeze(1)], dim=1))
        hidden = self.pair(torch.cat([states, tactic, states * tactic], dim=1))
        return self.outcome(hidden), self.cost(hidden).squeeze(1)


def _prior(score: float) -> float:
    """A tier score as an input: clipped, and scaled to about [-1, 1]."""
    return max(-10.0, min(0.0, score)) / 5.0 + 1.0


def _seconds(log1p_seconds: torch.Tensor) -> torch.Tensor:
    """Seconds from the cost head's ``log(1 + seconds)``, at least 0 (an untrained head may go below)."""
    return torch.expm1(log1p_seconds.clamp(min=0.0, max=8.0))


class LearnedPolicy:
    """A trained :class:`PolicyValueNet` behind the calls a search makes."""

    def __init__(self, net: PolicyValueNet, provenance: Provenance | None = None,
                 metrics: dict[str, Any] | None = None) -> None:
        self.net = net.eval()
        self.provenance = provenance
        self.metrics = metrics or {}

    # --- inference ---------------------------------------------------------------------------
    def score(self, state: TacticState, candidates: Sequence[tuple[str, str, float]]) -> list[float]:
        """One log-probability per candidate (``(tactic, member, tier score)``) of ``state``, in the
        order to try them: proportional to P(solves) / (predicted seconds + :data:`COST_OVERHEAD`),
        Simon and Kadane's index (module docstring), renormalised over the candidates so that the
        best-first search adds them to a path's score as it adds any generator's log-probabilities."""
        return self.score_text(live_state_text(state), candidates)

    def score_text(self, text: str, candidates: Sequence[tuple[str, str, float]]) -> list[float]:
        """:meth:`score` of the state whose text (:func:`generator.action_data.state_text`) is ``text``."""
        if not candidates:
            return []
        with torch.no_grad():
            logits, cost = self._pair_outputs(text, candidates)
            solves = torch.log_softmax(logits, dim=1)[:, 0]
            return torch.log_softmax(solves - torch.log(_seconds(cost) + COST_OVERHEAD), dim=0).tolist()

    def outcome_probabilities(self, text: str, candidates: Sequence[tuple[str, str, float]]) -> torch.Tensor:
        """P(solves, applies, fails) of each candidate in the state of ``text``, one row each."""
        with torch.no_grad():
            return torch.softmax(self._pair_outputs(text, candidates)[0], dim=1)

    def seconds(self, text: str, candidates: Sequence[tuple[str, str, float]]) -> list[float]:
        """The predicted seconds each candidate takes to run in the state of ``text``."""
        with torch.no_grad():
            return _seconds(self._pair_outputs(text, candidates)[1]).tolist() if candidates else []

    def _pair_outputs(self, text: str, candidates: Sequence[tuple[str, str, float]]) -> tuple[torch.Tensor, torch.Tensor]:
        buckets = self.net.config.buckets
        head, names = _context(text)
        flat, offsets = _bags([state_features(text, buckets)])
        encoded = self.net.encode_states(flat, offsets).expand(len(candidates), -1)
        flat, offsets = _bags([tactic_features(t, m, head, names, buckets) for t, m, _ in candidates])
        priors = torch.tensor([_prior(p) for _, _, p in candidates])
        return self.net.pair_outputs(encoded, flat, offsets, priors)

    def costs(self, texts: Sequence[str]) -> list[float]:
        """Remaining cost of each state in tactic steps: the predicted steps if proved, plus
        ``-log P(proved)`` (one step per nat), at most :data:`MAX_COST`."""
        if not texts:
            return []
        out = self._value_outputs(texts)
        steps = torch.expm1(out[:, 1].clamp(0.0, 5.0))
        return (steps - nn.functional.logsigmoid(out[:, 0])).clamp(max=MAX_COST).tolist()

    def proved_probabilities(self, texts: Sequence[str]) -> list[float]:
        """The value's P(the search proves the state) of each state text."""
        return torch.sigmoid(self._value_outputs(texts)[:, 0]).tolist() if texts else []

    def _value_outputs(self, texts: Sequence[str]) -> torch.Tensor:
        with torch.no_grad():
            flat, offsets = _bags([state_features(t, self.net.config.buckets) for t in texts])
            return self.net.value(self.net.encode_states(flat, offsets))

    def value_function(self) -> "PolicyValue":
        return PolicyValue(self)

    # --- checkpoints -------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        payload = {"format": FORMAT, "version": FORMAT_VERSION, "config": asdict(self.net.config),
                   "provenance": None if self.provenance is None else asdict(self.provenance),
                   "metrics": self.metrics,
                   "state_dict": {k: v.half() if v.is_floating_point() else v for k, v in self.net.state_dict().items()}}
        tmp = path.with_name(path.name + ".tmp")
        torch.save(payload, tmp)
        tmp.replace(path)

    @classmethod
    def load(cls, path: str | Path) -> LearnedPolicy:
        """The checkpoint at ``path``; :class:`CheckpointError` (one line: the path, what is wrong,
        how to rebuild it) if it is missing, unreadable or not a learned-policy checkpoint."""
        path = Path(path)
        if not path.is_file():
            raise CheckpointError(f"learned policy checkpoint {path} does not exist; rebuild it with {REBUILD}")
        try:
            payload = torch.load(path, map_location="cpu", weights_only=True)
            if not isinstance(payload, dict) or payload.get("format") != FORMAT:
                raise ValueError("not a learned-policy checkpoint")
            if payload.get("version") != FORMAT_VERSION:
                raise ValueError(f"format version {payload.get('version')}, this code reads {FORMAT_VERSION}")
            net = PolicyValueNet(ModelConfig(**payload["config"]))
            net.load_state_dict({k: v.float() if v.is_floating_point() else v
                                 for k, v in payload["state_dict"].items()})
            provenance = None if payload.get("provenance") is None else Provenance(**payload["provenance"])
        except Exception as exc:  # torch raises many types for a damaged file; all mean the same here
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise CheckpointError(f"learned policy checkpoint {path} is unreadable ({reason[:160]}); "
                                  f"rebuild it with {REBUILD}") from exc
        return cls(net, provenance, payload.get("metrics"))


class PolicyValue:
    """The value of a :class:`LearnedPolicy` as a :class:`search_tree.value.ValueFunction`."""

    def __init__(self, policy: LearnedPolicy) -> None:
        self.policy = policy

    def value(self, states: Sequence[TacticState], context: Theorem) -> list[float]:
        return self.policy.costs([live_state_text(s) for s in states])


# --- training --------------------------------------------------------------------------------

@dataclass(frozen=True)
class TrainConfig:
    """Training settings; the defaults are what ``dojo-prover learn`` uses."""

    epochs: int = 8
    batch_size: int = 256
    lr: float = 3e-3
    weight_decay: float = 1e-5
    seed: int = 0
    holdout: float = 0.15  # the share of theorems held out to measure the ranking


def outcome_class(outcome: str, solves: bool) -> int:
    if solves:
        return 0
    return 2 if outcome in FAILURES else 1


def _holdout(theorem: str, share: float) -> bool:
    return zlib.crc32(theorem.encode()) % 1000 < share * 1000


def _examples(searches: Sequence[SearchData], buckets: int) -> dict[str, Any]:
    """Flat feature rows of every tried candidate and every state, with their targets."""
    state_rows: list[list[int]] = []
    state_proved, state_steps = [], []
    pair_state, tactic_rows, priors, labels, seconds, timed = [], [], [], [], [], []
    for search in searches:
        base = len(state_rows)
        contexts = []
        for record in search.states:
            state_rows.append(state_features(record.text, buckets))
            state_proved.append(1.0 if record.proved else 0.0)
            state_steps.append(math.log1p(record.steps) if record.steps is not None else 0.0)
            contexts.append(_context(record.text))
        for attempt in search.attempts:
            head, names = contexts[attempt.state]
            pair_state.append(base + attempt.state)
            tactic_rows.append(tactic_features(attempt.tactic, attempt.member, head, names, buckets))
            priors.append(_prior(attempt.prior))
            labels.append(outcome_class(attempt.outcome, attempt.solves))
            seconds.append(math.log1p(max(attempt.seconds, 0.0)))
            timed.append(attempt.outcome != "proved")
    return {"state_rows": state_rows, "state_proved": torch.tensor(state_proved),
            "state_steps": torch.tensor(state_steps), "pair_state": torch.tensor(pair_state, dtype=torch.long),
            "tactic_rows": tactic_rows, "priors": torch.tensor(priors), "labels": torch.tensor(labels),
            "seconds": torch.tensor(seconds), "timed": torch.tensor(timed, dtype=torch.float)}


def _lightning_module(net: PolicyValueNet, data: dict[str, Any], config: TrainConfig):
    import lightning as L

    class Module(L.LightningModule):
        class_weight: torch.Tensor  # a buffer, registered in __init__

        def __init__(self) -> None:
            super().__init__()
            self.net = net
            counts = torch.bincount(data["labels"], minlength=len(OUTCOMES)).float().clamp(min=1.0)
            self.register_buffer("class_weight", (counts.sum() / counts / len(OUTCOMES)).sqrt())

        def training_step(self, batch: torch.Tensor, _: int) -> torch.Tensor:
            pairs = batch
            states = data["pair_state"][pairs]
            unique, inverse = torch.unique(states, return_inverse=True)
            flat, offsets = _bags([data["state_rows"][i] for i in unique.tolist()])
            encoded = self.net.encode_states(flat, offsets)
            tflat, toffsets = _bags([data["tactic_rows"][i] for i in pairs.tolist()])
            logits, cost = self.net.pair_outputs(encoded[inverse], tflat, toffsets, data["priors"][pairs])
            policy = nn.functional.cross_entropy(logits, data["labels"][pairs], weight=self.class_weight)
            # a proof-finishing tactic's logged seconds include the check of the whole proof (see
            # seconds_before_solving): not the tactic's cost, so not a cost target
            timed = data["timed"][pairs]
            seconds = ((cost - data["seconds"][pairs]) ** 2 * timed).sum() / timed.sum().clamp(min=1.0)
            out = self.net.value(encoded)
            proved = data["state_proved"][unique]
            value = nn.functional.binary_cross_entropy_with_logits(out[:, 0], proved)
            steps = ((out[:, 1] - data["state_steps"][unique]) ** 2 * proved).sum() / proved.sum().clamp(min=1.0)
            loss = policy + value + 0.5 * steps + 0.5 * seconds
            self.log_dict({"policy_loss": policy, "value_loss": value, "steps_loss": steps,
                           "seconds_loss": seconds}, prog_bar=True, batch_size=len(pairs))
            return loss

        def configure_optimizers(self):
            return torch.optim.AdamW(self.parameters(), lr=config.lr, weight_decay=config.weight_decay)

    return Module()


#: how a ranking orders a state's tried candidates: one score each, higher first
Ranking = Callable[[str, Sequence[tuple[str, str, float]]], Sequence[float]]


def tier_ranking(text: str, candidates: Sequence[tuple[str, str, float]]) -> list[float]:
    """The tiers' order: the members' shifted scores, as the default without a policy runs them."""
    return [prior for _, _, prior in candidates]


def seconds_before_solving(attempts: Sequence[Attempt]) -> float | None:
    """Seconds spent before the first solving attempt, running ``attempts`` in the order given: the
    logged seconds of every attempt ordered before it (None if none solves). Not its own: the
    logged time of a tactic that finishes the proof includes the environment's check of the whole
    proof, which the search pays once whichever tactic finishes it."""
    spent = 0.0
    for attempt in attempts:
        if attempt.solves:
            return spent
        spent += attempt.seconds
    return None


def ranking_metrics(rank: Ranking, searches: Sequence[SearchData]) -> dict[str, float]:
    """On the states where some tried candidate solved, with the tried candidates run in ``rank``'s
    order (ties in the order tried): how often the first one solves (``top1_solves``), and the
    median and mean :func:`seconds_before_solving`. Only what the logs hold is replayed: an untried
    candidate's outcome is unknown, so each state's candidates are those its search tried."""
    hits, spent = 0, []
    for search in searches:
        by_state: dict[int, list[Attempt]] = {}
        for a in search.attempts:
            by_state.setdefault(a.state, []).append(a)
        for state, attempts in by_state.items():
            if not any(a.solves for a in attempts):
                continue
            scores = rank(search.states[state].text, [(a.tactic, a.member, a.prior) for a in attempts])
            ordered = [a for _, a in sorted(zip(scores, attempts, strict=True), key=lambda p: -p[0])]
            hits += ordered[0].solves
            seconds = seconds_before_solving(ordered)
            assert seconds is not None  # the state has a solving attempt
            spent.append(seconds)
    return {"states_with_a_solver": float(len(spent)),
            "top1_solves": hits / len(spent) if spent else math.nan,
            "seconds_before_solving_median": statistics.median(spent) if spent else math.nan,
            "seconds_before_solving_mean": statistics.fmean(spent) if spent else math.nan}


def value_accuracy(policy: LearnedPolicy, searches: Sequence[SearchData]) -> float:
    """The share of the searches' states whose P(proved) is on the right side of 1/2."""
    right = total = 0
    for search in searches:
        for record, p in zip(search.states, policy.proved_probabilities([s.text for s in search.states]), strict=True):
            total += 1
            right += (p > 0.5) == record.proved
    return right / total if total else math.nan


def train(searches: Sequence[SearchData], provenance: Provenance, config: TrainConfig = TrainConfig(),
          model: ModelConfig = ModelConfig(), progress: bool = True) -> LearnedPolicy:
    """A :class:`LearnedPolicy` trained with Lightning on ``searches``; its ``metrics`` compare, on
    the held-out theorems, its order (``held_out_learned``) with the tiers' (``held_out_tiers``) and
    with its own P(solves) alone, without the cost head (``held_out_solves_only``)."""
    import lightning as L
    from torch.utils.data import DataLoader

    L.seed_everything(config.seed, verbose=False)
    train_set = [s for s in searches if not _holdout(s.theorem, config.holdout)]
    held_out = [s for s in searches if _holdout(s.theorem, config.holdout)]
    data = _examples(train_set, model.buckets)
    if not len(data["labels"]):
        raise UserError("no tried tactics in the search data: nothing to learn from "
                        "(were the runs made with --no-logs?)")
    net = PolicyValueNet(model)
    module = _lightning_module(net, data, config)
    # a tensor indexes like a map-style dataset; DataLoader's stub asks for a Dataset
    loader: DataLoader[torch.Tensor] = DataLoader(torch.arange(len(data["labels"])),  # type: ignore[arg-type]
                                                  batch_size=config.batch_size, shuffle=True,
                                                  generator=torch.Generator().manual_seed(config.seed))
    for name in ("lightning.pytorch", "lightning.fabric"):  # its notes about absent GPUs and TPUs
        logging.getLogger(name).setLevel(logging.WARNING)
    trainer = L.Trainer(max_epochs=config.epochs, accelerator="cpu", devices=1, logger=False,
                        enable_checkpointing=False, enable_progress_bar=progress, enable_model_summary=False,
                        deterministic=True)
    # Lightning draws its progress bar on stdout; a command's stdout is its result (the table that
    # --write-results records), so the bar goes to stderr with the rest of the progress
    with warnings.catch_warnings(), contextlib.redirect_stdout(sys.stderr):
        warnings.filterwarnings("ignore", module="lightning")  # deprecations inside Lightning itself
        trainer.fit(module, loader)
    policy = LearnedPolicy(net, provenance)

    def solves_only(text: str, candidates: Sequence[tuple[str, str, float]]) -> list[float]:
        return policy.outcome_probabilities(text, candidates)[:, 0].tolist()

    learned = ranking_metrics(policy.score_text, held_out)
    learned["value_accuracy"] = value_accuracy(policy, held_out)
    policy.metrics = {"train_theorems": len(train_set), "held_out_theorems": len(held_out),
                      "training_examples": int(len(data["labels"])), "training_states": len(data["state_rows"]),
                      "held_out_learned": learned, "held_out_tiers": ranking_metrics(tier_ranking, held_out),
                      "held_out_solves_only": ranking_metrics(solves_only, held_out), "config": asdict(config)}
    return policy
