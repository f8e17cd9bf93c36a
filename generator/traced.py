"""Reading traced proofs in LeanDojo's format (Lean and the Coq tracer write the same JSON).

A traced file is a JSON list (or JSON Lines) of theorems
``{file_path, full_name, start, end, traced_tactics: [{tactic, annotated_tactic: [text,
[{full_name, def_path, def_pos, def_end_pos}]], state_before, state_after}]}``. From it we make
one :class:`TacticExample` per traced tactic: the state before, the tactic, the premises the tactic
uses (LeanDojo's annotations) and a label for the value head, the number of tactic steps left.

Remaining-steps labels. A traced proof is a list of tactics, not a tree, so the label is an
approximation: for the tactic at position ``i`` we follow the chain of states, from its
``state_after`` to the first later tactic whose ``state_before`` is exactly that state, and so on;
a tactic whose ``state_after`` is ``no goals`` has 1 step left (itself). Where the chain breaks (a
tactic acted inside a nested block, or closed one of several goals and the next tactic's state
prints differently), we fall back to the linear count: the tactics after ``i`` in the trace, plus
one. Linear proofs get the exact count; branching proofs get the length of the traced path, which
undercounts the work left on sibling goals that the chain does not visit.

No heavy imports: kNN and the benchmarks use this without torch.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from retrieval.traced_file import TracedFormatError, load_traced

NO_GOALS = "no goals"


@dataclass(frozen=True)
class TracedPremise:
    """A premise annotated in a traced tactic (``code`` is filled from a corpus when known)."""

    full_name: str
    path: str = ""
    code: str = ""


@dataclass(frozen=True)
class TacticExample:
    """One training/evaluation example: (state, premises) -> tactic, and the steps left."""

    theorem: str
    file_path: str
    index: int  # position of the tactic in the theorem's trace
    state: str
    tactic: str
    state_after: str
    premises: tuple[TracedPremise, ...]
    remaining_steps: int
    start: tuple[int, int] | None = None  # the theorem's position in its file: what may see it (generator.accessible)


def iter_traced_files(paths: str | Path | Iterable[str | Path]) -> Iterator[Path]:
    """The traced files named: a ``.json``/``.jsonl`` file, or every such file under a directory."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    for p in map(Path, paths):
        if p.is_dir():
            yield from sorted(q for q in p.rglob("*") if q.suffix in (".json", ".jsonl") and q.is_file())
        elif p.exists():
            yield p
        else:
            raise TracedFormatError(f"{p}: no such traced file or directory")


def load_theorems(paths: str | Path | Iterable[str | Path]) -> list[dict]:
    """All traced theorems of the files named (JSON list, a single object, or JSON Lines), each
    file read by :func:`retrieval.traced_file.load_traced` (whose parse a process shares)."""
    theorems: list[dict] = []
    for path in iter_traced_files(paths):
        records = load_traced(path)
        if path.suffix == ".jsonl":
            theorems.extend(records)
            continue
        if len(records) == 1 and isinstance(records[0], dict) and "traced_tactics" not in records[0]:
            records = records[0].get("theorems", records)
        theorems.extend(t for t in records if isinstance(t, dict) and "traced_tactics" in t)
    return theorems


def remaining_steps(traced_tactics: list[dict]) -> list[int]:
    """Steps left at each traced tactic, itself included (see the module docstring)."""
    n = len(traced_tactics)
    labels = [0] * n
    for i in range(n - 1, -1, -1):
        after = traced_tactics[i].get("state_after", "").strip()
        if after == NO_GOALS:
            labels[i] = 1
            continue
        nxt = next((j for j in range(i + 1, n) if traced_tactics[j].get("state_before", "").strip() == after), None)
        labels[i] = 1 + labels[nxt] if nxt is not None else n - i
    return labels


def theorem_examples(theorem: dict, code_of: dict[str, str] | None = None) -> list[TacticExample]:
    """The examples of one traced theorem (premise ``code`` looked up in ``code_of`` if given)."""
    tactics = theorem.get("traced_tactics") or []
    labels = remaining_steps(tactics)
    out = []
    for i, (tt, left) in enumerate(zip(tactics, labels)):
        annotated = tt.get("annotated_tactic") or ["", []]
        premises = tuple(
            TracedPremise(p["full_name"], p.get("def_path", ""), (code_of or {}).get(p["full_name"], ""))
            for p in (annotated[1] if len(annotated) > 1 else [])
        )
        out.append(TacticExample(
            theorem=theorem.get("full_name", ""), file_path=theorem.get("file_path", ""), index=i,
            state=tt["state_before"], tactic=tt["tactic"], state_after=tt.get("state_after", ""),
            premises=premises, remaining_steps=left, start=tuple(theorem["start"]) if theorem.get("start") else None,
        ))
    return out


def examples(theorems: Iterable[dict], code_of: dict[str, str] | None = None) -> list[TacticExample]:
    """Examples of every theorem, in order."""
    return [ex for thm in theorems for ex in theorem_examples(thm, code_of)]


def in_val_split(full_name: str, val_percent: float, seed: int = 0) -> bool:
    """Deterministic split by theorem name: stable across runs, machines and file orders.

    Splitting by theorem (not by tactic) keeps every state of a validation proof out of training,
    the way LeanDojo's ``random`` split does.
    """
    digest = hashlib.sha1(f"{seed}:{full_name}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % 10_000 < val_percent * 100


def split_by_theorem(theorems: list[dict], val_percent: float, seed: int = 0) -> tuple[list[dict], list[dict]]:
    """(train, val) by :func:`in_val_split`."""
    train = [t for t in theorems if not in_val_split(t.get("full_name", ""), val_percent, seed)]
    val = [t for t in theorems if in_val_split(t.get("full_name", ""), val_percent, seed)]
    return train, val


def load_corpus_code(corpus_path: str | Path) -> dict[str, str]:
    """``full_name -> code`` from a LeanDojo ``corpus.jsonl`` (to show premises as at inference)."""
    code: dict[str, str] = {}
    with open(corpus_path) as f:
        for line in f:
            if line.strip():
                for p in json.loads(line).get("premises", []):
                    code[p["full_name"]] = p.get("code", "")
    return code
