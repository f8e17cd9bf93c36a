"""A small hand-made Lean corpus whose right answers are known, shared by the retrieval tests."""

from __future__ import annotations

import json
from pathlib import Path

from prover.lean.language import LEAN
from retrieval.corpus import Corpus


def premise(name, code, line, kind="theorem"):
    return {"full_name": name, "code": code, "start": [line, 1], "end": [line, 80], "kind": kind}


FILES = [
    {"path": "Lib/Basic.lean", "imports": [], "premises": [
        premise("Foo.frob", "def Foo.frob : ℕ → ℕ", 3, "def"),
        premise("add_zero'", "theorem add_zero' (n : ℕ) : n + 0 = n", 5),
        premise("zero_add'", "theorem zero_add' (n : ℕ) : 0 + n = n", 6),
        premise("add_comm'", "theorem add_comm' (a b : ℕ) : a + b = b + a", 7),
        premise("le_refl'", "theorem le_refl' (a : ℕ) : a ≤ a", 8),
        premise("le_trans'", "theorem le_trans' {a b c : ℕ} : a ≤ b → b ≤ c → a ≤ c", 9),
        premise("mul_one'", "theorem mul_one' (n : ℕ) : n * 1 = n", 10),
        premise("mul_comm'", "theorem mul_comm' (a b : ℕ) : a * b = b * a", 11),
    ]},
    {"path": "Lib/Frob.lean", "imports": ["Lib/Basic.lean"], "premises": [
        premise("frob_add", "theorem frob_add (a b : ℕ) : Foo.frob (a + b) = Foo.frob a + Foo.frob b", 5),
        premise("mul_self_eq", "theorem mul_self_eq (a : ℕ) : a * a = a * a", 10),
        premise("frob_late", "theorem frob_late (a : ℕ) : Foo.frob (a + 0) = Foo.frob a", 50),
    ]},
    {"path": "Lib/Other.lean", "imports": ["Lib/Basic.lean"], "premises": [
        premise("frob_other", "theorem frob_other (a b : ℕ) : Foo.frob (a + b) = Foo.frob (b + a)", 4),
    ]},
]

FROB_GOAL = "a b c : ℕ\n⊢ Foo.frob (a + b + c) = Foo.frob a + Foo.frob (b + c)"


def write_corpus(tmp_path: Path, files: list[dict] = FILES) -> Path:
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps(f, ensure_ascii=False) + "\n" for f in files), encoding="utf-8")
    return path


def small_corpus(tmp_path: Path, files: list[dict] = FILES) -> Corpus:
    return Corpus.from_jsonl(write_corpus(tmp_path, files), LEAN)


def padded_files(n: int) -> list[dict]:
    """:data:`FILES` with ``n`` filler lemmas added to ``Lib/Basic.lean`` (lines 20 on), so that a
    ranking over the premises accessible from ``Lib/Frob.lean`` is longer than ten."""
    basic, *rest = FILES
    filler = [premise(f"mul_filler{i}", f"theorem mul_filler{i} (n : ℕ) : n * {i + 2} = {i + 2} * n", 20 + i)
              for i in range(n)]
    return [{**basic, "premises": basic["premises"] + filler}, *rest]
