"""Small traced-proof files in LeanDojo's format, written by tests (Coq-style states)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def tactic(tac: str, before: str, after: str, premises: list[str] = ()) -> dict:
    annotated = tac
    for name in premises:
        annotated = annotated.replace(name, f"<a>{name}</a>")
    return {
        "tactic": tac,
        "annotated_tactic": [annotated, [{"full_name": p, "def_path": "Arith.v", "def_pos": [1, 1], "def_end_pos": [1, 9]}
                                         for p in premises]],
        "state_before": before,
        "state_after": after,
    }


def theorem(name: str, tactics: list[dict]) -> dict:
    return {"url": "local", "commit": "0", "file_path": "Arith.v", "full_name": name, "start": [1, 1], "end": [2, 1],
            "traced_tactics": tactics}


def commutation_theorems(n: int) -> list[dict]:
    """``n`` two-step proofs: ``intros.`` then ``lia.`` (something a tiny model can learn)."""
    out = []
    for i in range(n):
        goal = f"n + {i} = {i} + n"
        intro_state = f"  n : nat\n  ============================\n  {goal}"
        out.append(theorem(f"comm_{i}", [
            tactic("intros.", f"  ============================\n  forall n : nat, {goal}", intro_state),
            tactic("lia.", intro_state, "no goals"),
        ]))
    return out


def write(path: Path, theorems: list[dict]) -> Path:
    path.write_text(json.dumps(theorems))
    return path


@contextmanager
def traced_stdlib(tmp_path_factory, files: list[str]) -> Iterator[tuple]:
    """Trace ``files`` of the real stdlib with coqtop into a fresh cache (``DOJO_PROVER_CACHE`` set
    while the block runs); yields ``(index, traced directory, trace summary)``."""
    from prover.coq.stdlib import load_index
    from prover.coq.tracer import ensure_traced

    cache = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DOJO_PROVER_CACHE", str(cache))
        out = cache / "traced"
        summary = ensure_traced(files, out_dir=out, progress=False)
        yield load_index(progress=False), out, summary
