"""A small policy and value learned from the prover's own searches (expert iteration on CPU).

What it does. Given a proof state and the union of candidate tactics the default's members
propose (:mod:`prover.coq.default_generator`), the *policy* estimates for each candidate the chance that
it *solves* the state (finishes the proof, or leads to a state the search goes on to prove), that
it merely *applies*, or that it *fails* (an error, or a timeout that costs the tactic's whole
limit); candidates are then ordered by the log-probability of solving, renormalised over the
state's candidates. The *value* estimates whether the search proves a state and in how many steps,
and is read as a remaining cost for best-first priority (:mod:`search_tree.best_first`) or MCTS.
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

A checkpoint records its format version, the model's sizes, the provenance of its data (the Coq
version and library, :class:`generator.action_data.Provenance`) and its training metrics. A
missing or unreadable one raises :class:`CheckpointError`, one line naming it and how to rebuild it.
"""

from __future__ import annotations

import contextlib
import logging
import math
import re
import sys
import warnings
import zlib
from itertools import accumulate
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from generator.action_data import FAILURES, Provenance, SearchData, live_state_text
from search_tree.errors import UserError
from search_tree.protocol import TacticState, Theorem

FORMAT = "dojo-prover-learned-policy"
FORMAT_VERSION = 1
#: outcome classes of a tried candidate, in the policy head's order
OUTCOMES = ("solves", "applies", "fails")
#: the command that rebuilds a checkpoint, named in every error about one
REBUILD = "dojo-prover learn --out RUN_DIR (see docs/learning.md)"
#: identifiers (qualified ones whole: ``Nat.add_comm``, but not a tactic's final period), numbers, symbols
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_']*(?:\.[A-Za-z_][A-Za-z0-9_']*)*|\d+|[^\sA-Za-z0-9_]+")
#: the value's cost of a state it is sure will not be proved (in tactic steps)
MAX_COST = 50.0


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
        self.pair = nn.Sequential(nn.Linear(3 * config.hidden, config.hidden), nn.ReLU(),
                                  nn.Linear(config.hidden, len(OUTCOMES)))
        self.value = nn.Linear(config.hidden, 2)  # logit of "proved", log(1 + steps) if proved
        nn.init.normal_(self.embed.weight, std=0.05)

    def encode_states(self, flat: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        return self.state(torch.tanh(self.embed(flat, offsets)))

    def outcome_logits(self, states: torch.Tensor, flat: torch.Tensor, offsets: torch.Tensor,
                       priors: torch.Tensor) -> torch.Tensor:
        """Outcome logits of each candidate; ``states`` holds its state's encoding, row by row."""
        bag = torch.tanh(self.embed(flat, offsets))
        tactic = self.tactic(torch.cat([bag, priors.unsqueeze(1)], dim=1))
        return self.pair(torch.cat([states, tactic, states * tactic], dim=1))


def _prior(score: float) -> float:
    """A tier score as an input: clipped, and scaled to about [-1, 1]."""
    return max(-10.0, min(0.0, score)) / 5.0 + 1.0


class LearnedPolicy:
    """A trained :class:`PolicyValueNet` behind the calls a search makes."""

    def __init__(self, net: PolicyValueNet, provenance: Provenance | None = None,
                 metrics: dict[str, Any] | None = None) -> None:
        self.net = net.eval()
        self.provenance = provenance
        self.metrics = metrics or {}

    # --- inference ---------------------------------------------------------------------------
    def score(self, state: TacticState, candidates: Sequence[tuple[str, str, float]]) -> list[float]:
        """Log-probabilities, over ``candidates`` (``(tactic, member, tier score)``), of being the one
        that solves ``state``: each candidate's log P(solves) renormalised over the candidates."""
        return self.score_text(live_state_text(state), candidates)

    def score_text(self, text: str, candidates: Sequence[tuple[str, str, float]]) -> list[float]:
        """:meth:`score` of the state whose text (:func:`generator.action_data.state_text`) is ``text``."""
        if not candidates:
            return []
        with torch.no_grad():
            solves = torch.log_softmax(self._outcome_logits(text, candidates), dim=1)[:, 0]
            return torch.log_softmax(solves, dim=0).tolist()

    def outcome_probabilities(self, text: str, candidates: Sequence[tuple[str, str, float]]) -> torch.Tensor:
        """P(solves, applies, fails) of each candidate in the state of ``text``, one row each."""
        with torch.no_grad():
            return torch.softmax(self._outcome_logits(text, candidates), dim=1)

    def _outcome_logits(self, text: str, candidates: Sequence[tuple[str, str, float]]) -> torch.Tensor:
        buckets = self.net.config.buckets
        head, names = _context(text)
        flat, offsets = _bags([state_features(text, buckets)])
        encoded = self.net.encode_states(flat, offsets).expand(len(candidates), -1)
        flat, offsets = _bags([tactic_features(t, m, head, names, buckets) for t, m, _ in candidates])
        priors = torch.tensor([_prior(p) for _, _, p in candidates])
        return self.net.outcome_logits(encoded, flat, offsets, priors)

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
    pair_state, tactic_rows, priors, labels, groups = [], [], [], [], []
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
            groups.append(base + attempt.state)
    return {"state_rows": state_rows, "state_proved": torch.tensor(state_proved),
            "state_steps": torch.tensor(state_steps), "pair_state": torch.tensor(pair_state, dtype=torch.long),
            "tactic_rows": tactic_rows, "priors": torch.tensor(priors), "labels": torch.tensor(labels),
            "groups": groups}


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
            logits = self.net.outcome_logits(encoded[inverse], tflat, toffsets, data["priors"][pairs])
            policy = nn.functional.cross_entropy(logits, data["labels"][pairs], weight=self.class_weight)
            out = self.net.value(encoded)
            proved = data["state_proved"][unique]
            value = nn.functional.binary_cross_entropy_with_logits(out[:, 0], proved)
            steps = ((out[:, 1] - data["state_steps"][unique]) ** 2 * proved).sum() / proved.sum().clamp(min=1.0)
            loss = policy + value + 0.5 * steps
            self.log_dict({"policy_loss": policy, "value_loss": value, "steps_loss": steps}, prog_bar=True,
                          batch_size=len(pairs))
            return loss

        def configure_optimizers(self):
            return torch.optim.AdamW(self.parameters(), lr=config.lr, weight_decay=config.weight_decay)

    return Module()


def ranking_metrics(policy: LearnedPolicy | None, searches: Sequence[SearchData]) -> dict[str, float]:
    """On the states where some tried candidate solved: how often the top-ranked tried candidate
    solves, by the policy (``policy``) or by the tier scores (``policy=None``); and the value's
    accuracy at telling proved states from the rest."""
    hits = total = 0
    value_right = value_total = 0
    for search in searches:
        by_state: dict[int, list] = {}
        for a in search.attempts:
            by_state.setdefault(a.state, []).append(a)
        for state, attempts in by_state.items():
            if not any(a.solves for a in attempts):
                continue
            total += 1
            if policy is None:
                best = max(attempts, key=lambda a: a.prior)
            else:
                probs = policy.outcome_probabilities(search.states[state].text,
                                                     [(a.tactic, a.member, a.prior) for a in attempts])
                best = attempts[int(torch.argmax(probs[:, 0]))]
            hits += best.solves
        if policy is not None:
            for record, p in zip(search.states, policy.proved_probabilities([s.text for s in search.states]),
                                 strict=True):
                value_total += 1
                value_right += (p > 0.5) == record.proved
    out = {"states_with_a_solver": float(total), "top1_solves": hits / total if total else float("nan")}
    if value_total:
        out["value_accuracy"] = value_right / value_total
    return out


def train(searches: Sequence[SearchData], provenance: Provenance, config: TrainConfig = TrainConfig(),
          model: ModelConfig = ModelConfig(), progress: bool = True) -> LearnedPolicy:
    """A :class:`LearnedPolicy` trained with Lightning on ``searches``; its ``metrics`` compare its
    ranking with the tiers' on the held-out theorems."""
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
    policy.metrics = {"train_theorems": len(train_set), "held_out_theorems": len(held_out),
                      "training_examples": int(len(data["labels"])), "training_states": len(data["state_rows"]),
                      "held_out_learned": ranking_metrics(policy, held_out),
                      "held_out_tiers": ranking_metrics(None, held_out), "config": asdict(config)}
    return policy
