"""Reading declaration sentences: which ``:=`` is a body, so that no theorem drops out of the index."""


import pytest

from prover.coq.sentences import split_sentences
from prover.coq.stdlib import THEOREM_KEYWORDS, load_index, scan_file
from prover.coq.vernacular import DECLARATION, has_body, needs_proof, proof_terminator

# statements of the Coq 8.16 stdlib whose `:=` belongs to the type, not to a body
STATEMENTS_WITHOUT_BODY = [
    "Lemma diveucl_spec x y : let (q,r) := diveucl x y in (φ q, φ r) = Z.div_eucl (φ x) (φ y).",
    "Lemma BoolTheory : ring_theory false true xorb andb xorb (fun b:bool => b) (eq(A:=bool)).",
    "Lemma Zdiv_rest_ok : forall x p, let (qr, r) := Zdiv_rest_aux (x, 1) p in x = qr * 2 ^ p + r.",
    "Lemma f (n := 3) : let fix g k := k in let cofix s := s in g n = n.",
    "Theorem t : forall x, match x with 0 => let y := x in y = 0 | S _ => True end.",
    "Lemma sig_ok : {x : nat | let y := x in y = x} -> True.",
    'Lemma str : "a := b" = "a := b".',
    "Definition d {A} (x := 1) : {y : nat | y = x}.",
]
STATEMENTS_WITH_BODY = [
    "Definition d := 3.",
    "Definition d : nat := let x := 1 in x.",
    "Lemma by_term : let x := 0 in x = 0 := eq_refl.",
    "Instance i : C := { f := 0 }.",
    "Fixpoint f (n : nat) {struct n} : nat := match n with 0 => 0 | S k => f k end.",
    "Definition e (A:=bool) := fix f (n : nat) := n.",
]


@pytest.mark.parametrize("code", STATEMENTS_WITHOUT_BODY)
def test_a_colon_equal_inside_the_type_is_no_body(code):
    """Fails if a `:=` owned by `let`/`fix`, a binder, a named argument or a string counts as a body
    (e.g. `has_body` as `":=" in code`, the index's old rule that dropped these theorems)."""
    assert not has_body(code)
    assert needs_proof(code, DECLARATION.match(code).group("kw"))


@pytest.mark.parametrize("code", STATEMENTS_WITH_BODY)
def test_a_top_level_colon_equal_is_a_body(code):
    """Fails if `has_body` misses a body whose statement or value has a `let`/`fix` (e.g. answering
    False whenever a `let` occurs), or a body after a `{struct n}` or `(A:=bool)`."""
    assert has_body(code)
    assert not needs_proof(code, DECLARATION.match(code).group("kw"))


def test_the_scan_keeps_theorems_whose_statement_has_a_let(tmp_path):
    """Fails if the scanner decides "opens a proof" by any `:=` in the statement."""
    text = "\n".join(f"{code}\nProof. exact I. Qed." for code in STATEMENTS_WITHOUT_BODY[:3]) + "\n"
    (tmp_path / "Let.v").write_text(text)
    f = scan_file(tmp_path, "Let.v", {"Coq.Let": "Let.v"})
    assert [t.full_name for t in f.theorems] == ["diveucl_spec", "BoolTheory", "Zdiv_rest_ok"]
    assert [len(t.proof) for t in f.theorems] == [2, 2, 2]  # Proof. exact I.


@pytest.mark.coq
def test_every_proved_stdlib_theorem_is_indexed(tmp_path, monkeypatch):
    """Fails if a theorem followed by Qed/Defined is missing from the real index (the old `:=` rule
    dropped 94, among them the four named here). Program lemmas are left out on purpose."""
    monkeypatch.setenv("DOJO_PROVER_CACHE", str(tmp_path))
    index = load_index(progress=False)
    for name in ("Uint63.diveucl_spec", "DecimalQ.dnorm_spec_i", "Ring.BoolTheory", "Zpower.Zdiv_rest_ok"):
        short = name.split(".", 1)[1]
        assert any(t.extra["qualified_name"].endswith(name) for t in index.theorems() if t.full_name == short), name
    missing = []
    for f in index.files.values():
        indexed = {t.offset for t in f.theorems}
        statement = None
        for s in split_sentences((index.root / f.path).read_text(), f.path):
            if m := DECLARATION.match(s.code):
                statement = (s, m)
            elif (keyword := proof_terminator(s.code)) is not None and statement is not None:
                (sent, m), statement = statement, None
                proved = keyword in ("Qed", "Defined")
                if proved and m.group("kw") in THEOREM_KEYWORDS and sent.start not in indexed:
                    missing.append(f"{f.path}: {' '.join(sent.code.split()[:3])}")
    assert missing == ["Program/Wf.v: Program Lemma fix_sub_eq_ext"]
