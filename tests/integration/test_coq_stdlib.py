"""The stdlib index, the split and the corpus: text scans, so only the installed sources are needed."""

import json
from pathlib import Path

import pytest

from prover.coq.stdlib import (
    SPLITS, StdlibScanError, compute_split, load_index, load_split, resolve_require, scan_file, split_of,
    stdlib_theorems,
)
from search_tree.protocol import TheoremNotFound

SAMPLE = """\
Require Import Arith.
(* a lemma in a comment: Lemma fake : False. *)
Module M.
  Section S.
    Variable n : nat.
    Lemma in_section : n = n.
    Proof. reflexivity. Qed.
  End S.
  Module Type T.
    Parameter p : nat.
  End T.
  Module N := Nat.
  #[local] Lemma nested : True.
  Proof.
    exact I.
  Defined.
End M.
Definition d : nat.
Proof. exact 0. Defined.
Theorem admitted : False.
Proof. Admitted.
Program Definition prog : nat := _.
Next Obligation. exact 1. Qed.
Fixpoint f (n : nat) : nat := match n with 0 => 0 | S k => f k end.
Inductive ev : nat -> Prop := ev0 : ev 0 | evS n : od n -> ev (S n)
with od : nat -> Prop := (* a comment | x : y *) odS n : ev n -> od (S n)
where "'E' n" := (ev n).
Record pt := mk { px : nat; py : {n : nat | n > 0} }.
Class sub (R : nat -> Prop) : Prop := is_sub : forall {x y}, R x -> R y.
"""

def needs_coq(test):
    """Marked ``coq``: these run coqc (tests/integration requires it)."""
    return pytest.mark.coq(test)


def scan(tmp_path: Path, text: str, name: str = "Sample.v"):
    (tmp_path / name).write_text(text)
    modules = {"Coq.Arith.Arith": "Arith/Arith.v", "Coq.Sample": name}
    return scan_file(tmp_path, name, modules)


def test_scan_names_positions_and_proofs(tmp_path):
    f = scan(tmp_path, SAMPLE)
    assert f.module == "Coq.Sample"
    assert f.requires == ["Coq.Arith.Arith"] and f.imports == ["Init/Prelude.v", "Arith/Arith.v"]
    names = {d.full_name: d for d in f.declarations}
    # modules qualify names, sections do not; module types are modules too
    assert {"M.in_section", "M.T.p", "M.nested", "d", "admitted", "prog", "f"} <= set(names)
    assert names["M.in_section"].start == (6, 5) and names["M.in_section"].name_pos == (6, 11)
    assert names["f"].kind == "fixpoint"
    # members of inductive and record types are premises too
    assert {n: names[n].kind for n in ("ev0", "evS", "od", "odS", "mk", "px", "py")} == {
        "ev0": "constructor", "evS": "constructor", "od": "inductive", "odS": "constructor",
        "mk": "constructor", "px": "projection", "py": "projection"}
    assert names["odS"].code == "odS n : ev n -> od (S n)" and names["odS"].start == (26, 50)
    assert names["py"].code == "py : {n : nat | n > 0}"
    # a brace in the type of a class's single field is no record body
    assert names["is_sub"].code == "is_sub : forall {x y}, R x -> R y" and "x" not in names
    thms = {t.full_name: t for t in f.theorems}
    # Admitted proofs and definitions are no benchmark theorems
    assert set(thms) == {"M.in_section", "M.nested"}
    text = (tmp_path / "Sample.v").read_text()
    assert [text[a:b] for a, b in thms["M.nested"].proof] == ["Proof.", "exact I."]
    assert thms["M.nested"].terminator == "Defined" and thms["M.in_section"].in_section


def test_scan_errors_name_file_and_line(tmp_path):
    with pytest.raises(StdlibScanError, match=r"Bad\.v:3:1: End does not close the innermost block M"):
        scan(tmp_path, "Section S.\nModule M.\nEnd S.\nEnd M.\n", "Bad.v")
    with pytest.raises(StdlibScanError, match=r"Open\.v: unclosed section S"):
        scan(tmp_path, "Section S.\nLemma a : True. Proof. exact I. Qed.\n", "Open.v")


def test_resolve_require_suffixes_and_prefix():
    modules = {"Coq.Arith.PeanoNat": "", "Coq.Init.Peano": "", "Coq.Bool.Bool": "", "Coq.ssr.ssrbool": ""}
    assert resolve_require("PeanoNat", None, modules) == "Coq.Arith.PeanoNat"
    assert resolve_require("Arith.PeanoNat", "Coq", modules) == "Coq.Arith.PeanoNat"
    assert resolve_require("ssrbool", "Coq", modules) == "Coq.ssr.ssrbool"
    assert resolve_require("Nope", None, modules) is None


def test_split_is_deterministic_disjoint_and_shipped():
    paths = [f"D{i}/F{j}.v" for i in range(20) for j in range(20)]
    a, b = compute_split(paths), compute_split(list(reversed(paths)))
    assert a == b
    sets = [set(a[s]) for s in SPLITS]
    assert sum(map(len, sets)) == len(paths) and set().union(*sets) == set(paths)
    assert 0.7 < len(a["train"]) / len(paths) < 0.9 and len(a["val"]) > 10 and len(a["test"]) > 10
    shipped = load_split()
    assert all(split_of(p) == s for s in SPLITS for p in shipped[s])
    assert not set(shipped["train"]) & set(shipped["test"]) and not set(shipped["val"]) & set(shipped["test"])


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    """The installed stdlib's index, built once into a fresh cache directory."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DOJO_PROVER_CACHE", str(tmp_path_factory.mktemp("cache")))
        yield load_index(progress=False)


@needs_coq
def test_index_of_the_installed_stdlib(index):
    assert len(index.files) > 500
    # the split covers every stdlib file, each once
    shipped = load_split()
    assert sorted(p for s in SPLITS for p in shipped[s]) == sorted(index.files)
    t = index.theorem("between_le")
    assert (t.file_path, t.position) == ("Arith/Between.v", (37, 3))
    assert t.statement == "Lemma between_le : forall k l, between k l -> k <= l."
    assert t.extra["qualified_name"] == "Coq.Arith.Between.between_le"
    source = (index.root / "Arith/PeanoNat.v").read_text().splitlines()
    t = index.theorem("Nat.add_0_l")
    assert index.theorem("Coq.Arith.PeanoNat.Nat.add_0_l") == t
    assert source[t.position[0] - 1][t.position[1] - 1 :].startswith("Lemma add_0_l")
    with pytest.raises(TheoremNotFound, match=r"no theorem 'Nat.add_0_x'.*Nat\.add_0_l"):
        index.theorem("Nat.add_0_x")
    with pytest.raises(TheoremNotFound, match="ambiguous"):
        index.theorem("eqb_refl")
    # the cache round-trips the index exactly
    again = load_index(progress=False)
    assert again.files["Arith/PeanoNat.v"] == index.files["Arith/PeanoNat.v"]
    test = stdlib_theorems("test", index)
    assert test and all(th.file_path in shipped["test"] for th in test)
    with pytest.raises(ValueError, match="unknown split 'dev'"):
        stdlib_theorems("dev", index)


@needs_coq
def test_corpus_is_in_dependency_order(index, tmp_path):
    from prover.coq.corpus import write_corpus

    n = write_corpus(index, tmp_path / "corpus.jsonl")
    lines = [json.loads(line) for line in (tmp_path / "corpus.jsonl").read_text().splitlines()]
    assert n == sum(len(r["premises"]) for r in lines) > 10_000
    seen: set[str] = set()
    for rec in lines:
        assert set(rec) == {"path", "module", "imports", "premises"}
        assert all(dep in seen for dep in rec["imports"]), rec["path"]
        seen.add(rec["path"])
    between = next(r for r in lines if r["path"] == "Arith/Between.v")
    assert between["module"] == "Coq.Arith.Between"
    p = next(p for p in between["premises"] if p["full_name"] == "between_le")
    assert p == {"full_name": "between_le", "code": "Lemma between_le : forall k l, between k l -> k <= l.",
                 "start": [37, 3], "end": [37, 56], "kind": "lemma"}


def test_premise_resolution_rules(tmp_path):
    from prover.coq.corpus import PremiseResolver
    from prover.coq.stdlib import CoqIndex

    sources = {
        "A.v": "Lemma base : True. Proof. exact I. Qed.\nLemma twice : True. Proof. exact I. Qed.\n",
        "B.v": "Require Import A.\nModule M.\nLemma twice : True. Proof. exact I. Qed.\nEnd M.\n",
        "C.v": "Lemma unrelated : True. Proof. exact I. Qed.\n",
        "D.v": "Require Import B.\nLemma here : True. Proof. exact I. Qed.\nLemma later : True. Proof. exact I. Qed.\n",
    }
    for name, text in sources.items():
        (tmp_path / name).write_text(text)
    modules = {f"Coq.{n[:-2]}": n for n in sources}
    index = CoqIndex(tmp_path, [scan_file(tmp_path, n, modules) for n in sources])
    assert list(index.files) == ["A.v", "B.v", "C.v", "D.v"]  # dependencies first
    r = PremiseResolver(index)
    at = (3, 1)  # inside D.v, after "here", before "later"
    assert r.accessible_files("D.v") == {"A.v", "B.v"}  # transitive imports only
    assert r.resolve("base", "D.v", at).def_path == "A.v"
    # a later import shadows an earlier one; qualified names pick exactly
    assert r.resolve("twice", "D.v", at).full_name == "M.twice"
    assert r.resolve("A.twice", "D.v", at).full_name == "twice"
    assert r.resolve("Coq.B.M.twice", "D.v", at).def_path == "B.v"
    assert r.resolve("unrelated", "D.v", at) is None  # C.v is not imported
    assert r.resolve("later", "D.v", at) is None and r.resolve("here", "D.v", at).def_pos == (2, 7)
    text, premises = r.annotate('apply base; exact (twice "base" H). (* base *)', "D.v", at, {"H", "base2"})
    assert text == 'apply <a>base</a>; exact (<a>twice</a> "base" H). (* base *)'
    assert [p.full_name for p in premises] == ["base", "M.twice"]
    # hypotheses shadow premises; tactic names are never premises
    assert r.annotate("exact base.", "D.v", at, {"base"}) == ("exact base.", [])


def test_block_sentence_is_shared_by_the_index_and_the_contexts():
    from prover.coq.stdlib import block_sentence

    assert block_sentence("Section S.") == ("section", "S", "")
    assert block_sentence("Module Make (X : OrderedType) <: S.") == ("module", "Make", " (X : OrderedType) <: S.")
    assert block_sentence("Declare Module E : T.") == ("declare", "E", "")
    assert block_sentence("Module N := Nat.") == ("defined", "N", "")
    assert block_sentence("Module M := F with Definition t := nat.")[0] == "defined"
    assert block_sentence("End Make.") == ("end", "Make", "")
    assert block_sentence("Lemma x : True.") is None


def test_unicode_hypotheses_parse_as_in_ratan():
    from prover.coq.goals import parse_view

    # Reals/Ratan.v: remember (atan(x)) as α.
    view = parse_view("1 goal (ID 5)\n  \n  x : R\n  α : R\n  Heqα : α = atan x\n  ============================\n  cos α > 0")
    assert [h.name for h in view.goals[0].hypotheses] == ["x", "α", "Heqα"]
    assert view.goals[0].hypotheses[2].type == "α = atan x"
