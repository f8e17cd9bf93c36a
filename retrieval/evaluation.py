"""Recall evaluation of retrievers on traced tactics, and the retriever ablation table.

Definitions follow ReProver (Yang et al., "LeanDojo: Theorem Proving with Retrieval-Augmented
Language Models", NeurIPS 2023): for each traced tactic whose annotated premises resolve in the
corpus, with ``G`` the set of those premises and ``R_k`` the retriever's top ``k``,
``R@k = |R_k ∩ G| / |G|`` (for ``k`` = 1, 4 and 10: 4 is what a prover that names four premises
to a tactic, such as CoqHammer's ``sauto use:``, can use) and ``MRR = 1 / (rank of the first premise of G)`` (0 when none is
retrieved within the search depth), averaged over tactics. Retrieval is restricted to the premises
accessible from the theorem when its file is in the corpus.

Which tactics count is reported, never hidden: a tactic is dropped when it uses no premise, when
none of its premises resolves by full name in the corpus (the traced data and the corpus may come
from different library versions), or when every resolved premise is inaccessible by the corpus's
imports and positions.
"""

from __future__ import annotations

import json
import platform
import random
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence


from retrieval.base import Retriever, build_retriever
from retrieval.corpus import Corpus
from search_tree.errors import UserError
from search_tree.protocol import Theorem


@dataclass(frozen=True)
class PremiseExample:
    """One traced tactic: the state it ran on, its theorem, and the premises it used."""

    state: str
    theorem: Theorem
    premises: tuple[str, ...]  # full names, resolved in the corpus and accessible, in order of use


@dataclass
class ExampleSet:
    """Examples kept for evaluation, and why the others were dropped."""

    examples: list[PremiseExample]
    total_tactics: int
    dropped: Counter = field(default_factory=Counter)
    unresolved_premises: int = 0
    resolved_premises: int = 0
    sampled_from: int | None = None  # usable examples before a random sample was drawn

    def sample(self, n: int, seed: int = 0) -> "ExampleSet":
        """A random sample of ``n`` examples (all when there are fewer), remembering the population."""
        if n >= len(self.examples):
            return self
        return ExampleSet(random.Random(seed).sample(self.examples, n), self.total_tactics, self.dropped,
                          self.unresolved_premises, self.resolved_premises, len(self.examples))


def theorem_of(traced: dict) -> Theorem:
    """The :class:`Theorem` of a traced theorem (its file and start position give accessibility)."""
    start = traced.get("start")
    return Theorem(traced["full_name"], traced.get("file_path", ""), tuple(start) if start else None)


def annotated_premises(tactic: dict) -> list[str]:
    """Full names of the premises a traced tactic uses, first occurrence order, no repeats."""
    annotated = tactic.get("annotated_tactic") or ["", []]
    return list(dict.fromkeys(p["full_name"] for p in annotated[1]))


def premise_examples(traced: Iterable[dict], corpus: Corpus) -> ExampleSet:
    """Evaluation examples from traced theorems: one per tactic with resolvable, accessible premises."""
    out = ExampleSet([], 0)
    for thm in traced:
        theorem = theorem_of(thm)
        for tac in thm.get("traced_tactics", []):
            out.total_tactics += 1
            names = annotated_premises(tac)
            if not names:
                out.dropped["no premises"] += 1
                continue
            resolved = [n for n in names if n in corpus]
            out.resolved_premises += len(resolved)
            out.unresolved_premises += len(names) - len(resolved)
            if not resolved:
                out.dropped["no premise resolves in the corpus"] += 1
                continue
            accessible = [n for n in resolved
                          if corpus.is_accessible(corpus[n], theorem.file_path, theorem.position) and n != theorem.full_name]
            if not accessible:
                out.dropped["resolved premises all inaccessible"] += 1
                continue
            out.examples.append(PremiseExample(tac["state_before"], theorem, tuple(accessible)))
    return out


@dataclass
class RecallReport:
    """R@1, R@4, R@10 and MRR of one retriever, with the number of queries and their mean latency."""

    retriever: str
    r1: float
    r4: float
    r10: float
    mrr: float
    queries: int
    ms_per_query: float

    def row(self) -> str:
        return (f"| {self.retriever} | {100 * self.r1:.1f} | {100 * self.r4:.1f} | {100 * self.r10:.1f} | "
                f"{self.mrr:.3f} | "
                f"{self.queries} | {self.ms_per_query:.1f} |")


TABLE_HEADER = ("| retriever | R@1 (%) | R@4 (%) | R@10 (%) | MRR | queries | ms/query |\n"
                "|---|---|---|---|---|---|---|")


def evaluate(retriever: Retriever, examples: Sequence[PremiseExample], name: str | None = None,
             depth: int = 100, batch_size: int = 32) -> RecallReport:
    """ReProver's R@1, R@4, R@10 and MRR (first gold premise within ``depth``) over ``examples``."""
    r1 = r4 = r10 = rr = 0.0
    start = time.perf_counter()
    for b in range(0, len(examples), batch_size):
        batch = examples[b:b + batch_size]
        rankings = retriever.batch_retrieve([e.state for e in batch], [e.theorem for e in batch], depth)
        for ex, ranking in zip(batch, rankings):
            gold = set(ex.premises)
            names = [p.full_name for p, _ in ranking]
            r1 += len(gold.intersection(names[:1])) / len(gold)
            r4 += len(gold.intersection(names[:4])) / len(gold)
            r10 += len(gold.intersection(names[:10])) / len(gold)
            rr += next((1.0 / (i + 1) for i, n in enumerate(names) if n in gold), 0.0)
    elapsed = time.perf_counter() - start
    n = max(len(examples), 1)
    return RecallReport(name or retriever.name, r1 / n, r4 / n, r10 / n, rr / n, len(examples), 1000 * elapsed / n)


def evaluation_subcorpus(corpus: Corpus, examples: Sequence[PremiseExample], size: int, seed: int = 0) -> Corpus:
    """The gold premises of ``examples`` plus random others, ``size`` premises in all.

    For encoders too slow to embed a whole library on the machine at hand: every retriever is then
    compared on the same, documented sub-corpus (with the gold premises in it, distractors drawn
    uniformly), which makes the task easier than on the full corpus.
    """
    gold = {i for e in examples for n in e.premises if (i := corpus.index_of(n)) is not None}
    rest = [i for i in range(len(corpus)) if i not in gold]
    extra = random.Random(seed).sample(rest, max(0, min(len(rest), size - len(gold))))
    return corpus.restrict(gold | set(extra))


#: what :func:`run_ablation` writes into its output directory
OUTPUTS = ("table.md", "results.json", "config.json")


def check_output_dir(out_dir: str | Path) -> None:
    """Refuse (a :class:`search_tree.errors.UserError` naming it) an output directory that
    :func:`run_ablation` would clobber: one that is a file, or holds anything but an earlier
    ablation's outputs (an ``eval`` run directory has a ``config.json`` too). Called before the
    evaluation runs, so that a wrong directory costs nothing."""
    out = Path(out_dir)
    if not out.exists():
        return
    if not out.is_dir():
        raise UserError(f"{out} is not a directory; choose another --output-dir")
    foreign = sorted(p.name for p in out.iterdir() if p.name not in OUTPUTS)
    config = out / "config.json"
    try:
        earlier = not config.exists() or "retrievers" in json.loads(config.read_text(encoding="utf-8"))
    except (OSError, ValueError, TypeError):
        earlier = False
    if foreign or not earlier:
        what = f"holds {', '.join(foreign[:3])}" if foreign else "has a config.json that no retrieval evaluation wrote"
        raise UserError(f"{out} {what}: it is not an earlier output of retrieval-eval, and writing there would replace "
                        "its files; choose another --output-dir")


def run_ablation(corpus: Corpus, examples: ExampleSet, retrievers: Sequence[str],
                 options: dict[str, dict[str, Any]] | None = None, out_dir: str | Path | None = None,
                 config: dict[str, Any] | None = None) -> str:
    """Evaluate each named retriever on ``examples``; return (and write) the Markdown table.

    With ``out_dir``, writes ``table.md``, ``results.json`` (one report per retriever) and
    ``config.json`` (the resolved configuration: corpus, data, options, counts, machine).
    """
    if out_dir is not None:
        check_output_dir(out_dir)
    options = options or {}
    reports = []
    for name in retrievers:
        t0 = time.perf_counter()
        retriever = build_retriever(name, corpus, **options.get(name, {}))
        build_s = time.perf_counter() - t0
        report = evaluate(retriever, examples.examples, name)
        reports.append((report, build_s))
    lines = [TABLE_HEADER] + [r.row() for r, _ in reports]
    dropped = ", ".join(f"{v} {k}" for k, v in sorted(examples.dropped.items())) or "none"
    sampled = f" (a random sample of the {examples.sampled_from} usable)" if examples.sampled_from else ""
    summary = (f"{len(examples.examples)} of {examples.total_tactics} traced tactics used{sampled} "
               f"(dropped: {dropped}); {examples.resolved_premises} premise uses resolve in the corpus "
               f"of {len(corpus)} premises, {examples.unresolved_premises} do not.")
    table = "\n".join(lines) + "\n\n" + summary + "\n"
    if out_dir is not None:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        (out / "table.md").write_text(table, encoding="utf-8")
        (out / "results.json").write_text(json.dumps(
            [{**asdict(r), "build_s": b} for r, b in reports], indent=2), encoding="utf-8")
        resolved = {
            **(config or {}),
            "corpus": corpus.source, "num_premises": len(corpus), "retrievers": list(retrievers),
            "options": options, "tactics_total": examples.total_tactics,
            "tactics_used": len(examples.examples), "tactics_usable": examples.sampled_from or len(examples.examples),
            "dropped": dict(examples.dropped),
            "premise_uses_resolved": examples.resolved_premises,
            "premise_uses_unresolved": examples.unresolved_premises,
            "python": platform.python_version(), "machine": platform.machine(),
        }
        (out / "config.json").write_text(json.dumps(resolved, indent=2, default=str), encoding="utf-8")
    return table
