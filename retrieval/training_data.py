"""Training data of the learned retrievers: (query, positive premises) pairs.

Two sources, one shape:

* traced tactics (LeanDojo benchmark JSON, from Lean or the Coq tracer): the state before a tactic
  is the query, the premises annotated in the tactic that resolve in the corpus are positives;
* ``proofs.jsonl`` (``{full_name, statement, proof}``): the statement, rewritten as the proof state
  it opens (:func:`retrieval.statement_state.statement_as_state`, so that training queries look
  like the states of evaluation and do not carry the theorem's own name), is the query; the names
  the proof mentions that resolve in the corpus are positives (weak supervision: a name in a proof is a
  premise of its statement). A short name is resolved as Lean would, by trying the namespaces of
  the theorem from the innermost out (``Set.foo`` mentioning ``Ioc_subset`` may mean
  ``Set.Ioc_subset``). The names are read with the corpus's language
  (:attr:`search_tree.language.Language.identifier`), as its sources write them.

Theorems of evaluation splits must never be trained on: every source takes an ``exclude`` set of
theorem names (see :func:`evaluation_theorem_names`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import AbstractSet, Iterable

from retrieval.corpus import Corpus
from retrieval.evaluation import annotated_premises
from retrieval.traced_file import load_traced
from retrieval.statement_state import statement_as_state


class NoTrainingPairs(ValueError):
    """A file that yields no training pair (no records, every theorem excluded, or no premise
    that resolves in the corpus), told apart from a malformed one."""


@dataclass(frozen=True)
class TrainingPair:
    """A query (a proof state or a statement), the corpus indices of its positive premises, and the
    theorem it comes from with that theorem's file (empty where the source does not say)."""

    query: str
    positives: tuple[int, ...]
    theorem: str = ""
    file_path: str = ""


def evaluation_theorem_names(paths: Iterable[str | Path]) -> set[str]:
    """Names of the theorems in evaluation files: traced JSON (``full_name``) or benchmark JSON
    lines such as miniF2F and ProofNet (``name``)."""
    names: set[str] = set()
    for path in paths:
        for item in load_traced(path):
            name = item.get("full_name") or item.get("name")
            if name:
                names.add(name)
    return names


def pairs_from_traced(traced: Iterable[dict], corpus: Corpus, exclude: AbstractSet[str] = frozenset()) -> list[TrainingPair]:
    """One pair per traced tactic with at least one premise that resolves in the corpus."""
    pairs = []
    for thm in traced:
        if thm["full_name"] in exclude:
            continue
        for tac in thm.get("traced_tactics", []):
            pos = tuple(i for i in (corpus.index_of(n) for n in annotated_premises(tac)) if i is not None)
            if pos:
                pairs.append(TrainingPair(tac["state_before"], pos, thm["full_name"], thm.get("file_path", "")))
    return pairs


def resolve_name(name: str, namespace: str, corpus: Corpus) -> int | None:
    """Resolve ``name`` as written inside ``namespace``: innermost namespace first, then root."""
    parts = namespace.split(".") if namespace else []
    for depth in range(len(parts), -1, -1):
        full = ".".join(parts[:depth] + [name])
        i = corpus.index_of(full)
        if i is not None:
            return i
    return None


def _proof_record(line: str, where: str) -> dict:
    """One ``proofs.jsonl`` record, or ``ValueError`` naming ``where`` and the bad field: the file
    is untrusted input, and a wrong type would otherwise surface far away, inside the tokenizer."""
    try:
        item = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where}: not JSON ({exc.msg})") from None
    if not isinstance(item, dict):
        raise ValueError(f"{where}: a record must be a JSON object, not {type(item).__name__}")
    for field in ("full_name", "statement", "proof"):
        if not isinstance(item.get(field, "" if field == "proof" else None), str):
            raise ValueError(f"{where}: {field!r} must be a string")
    return item


def pairs_from_proofs(path: str | Path, corpus: Corpus, exclude: AbstractSet[str] = frozenset(),
                      max_positives: int = 32) -> list[TrainingPair]:
    """Pairs (statement as a state -> premises named in the proof) from a ``proofs.jsonl`` file; the
    corpus must have been loaded with its language, which reads the names."""
    identifier = re.compile(corpus.language.identifier)
    pairs = []
    with Path(path).open(encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            item = _proof_record(line, f"{path}: line {number}")
            name = item["full_name"]
            if name in exclude:
                continue
            namespace = name.rsplit(".", 1)[0] if "." in name else ""
            pos: dict[int, None] = {}
            for ident in identifier.findall(item.get("proof", "")):
                i = resolve_name(ident, namespace, corpus)
                if i is not None and corpus.premises[i].full_name != name:
                    pos[i] = None
            if pos:
                pairs.append(TrainingPair(statement_as_state(item["statement"]), tuple(pos)[:max_positives], name))
    return pairs


def load_pairs(path: str | Path, corpus: Corpus, exclude: AbstractSet[str] = frozenset()) -> list[TrainingPair]:
    """Training pairs from a traced JSON file or a ``proofs.jsonl`` file (told apart by its first
    record's fields); :class:`NoTrainingPairs` naming the file and why when it yields none, a
    ``ValueError`` naming it when a record is malformed."""
    records = load_traced(path)
    if not records:
        raise NoTrainingPairs(f"{path}: no training pairs: the file holds no records")
    if not isinstance(records[0], dict):
        raise ValueError(f"{path}: a record must be a JSON object, not {type(records[0]).__name__}")
    traced = "traced_tactics" in records[0]
    if traced:
        try:  # the shape of a traced file is checked where it is read: a missing or mistyped field
            pairs = pairs_from_traced(records, corpus, exclude)
        except (KeyError, TypeError, IndexError, AttributeError) as exc:
            raise ValueError(f"{path}: malformed traced record ({type(exc).__name__}: {exc})") from exc
    else:
        pairs = pairs_from_proofs(path, corpus, exclude)
    if pairs:
        return pairs
    kept = [r for r in records if (r.get("full_name") or r.get("name")) not in exclude]
    if not kept:
        why = f"all {len(records)} theorems are excluded as evaluation theorems"
    else:
        if traced:
            named = [n for r in kept for t in r.get("traced_tactics", []) for n in annotated_premises(t)]
        else:
            named = [n for r in kept for n in re.findall(corpus.language.identifier, r.get("proof", ""))]
        why = (f"no tactic or proof of its {len(kept)} non-excluded theorems names a premise" if not named else
               f"none of the {len(named)} premise names used by its {len(kept)} non-excluded theorems "
               f"resolves in the corpus {corpus.source}")
    raise NoTrainingPairs(f"{path}: no training pairs: {why}")
