"""The namesake generator on hand-made corpora and traces (no Coq; the real stdlib case is in
``tests/integration/test_namesake_coq.py``)."""

from generator.namesake import NamesakeGenerator, fill, learned_templates
from retrieval.corpus import Corpus, Premise
from search_tree.protocol import TacticState, Theorem

STATE = TacticState("  n : nat\n  ============================\n  n + 0 = n", 0)
FIXED = (("apply {}.", -1.0),)


def premise(name: str, path: str, line: int) -> Premise:
    return Premise(name, f"Lemma {name.rsplit('.', 1)[-1]} : True.", path, (line, 1), (line, 20))


def step(tactic: str, *premises: str) -> dict:
    return {"tactic": tactic, "annotated_tactic": [tactic, [{"full_name": p} for p in premises]],
            "state_before": STATE.pp, "state_after": "no goals"}


def traced(name: str, path: str, line: int, *steps: dict) -> dict:
    return {"full_name": name, "file_path": path, "start": [line, 1], "traced_tactics": list(steps)}


# Base.v declares NZ.add_0_r and NZ.mul_1_r; Derived.v imports it and restates both in module N;
# Other.v imports nothing.
CORPUS = Corpus([
    ("Base.v", [], [premise("NZ.add_0_r", "Base.v", 1), premise("NZ.mul_1_r", "Base.v", 5)]),
    ("Derived.v", ["Base.v"], [premise("N.mul_1_r", "Derived.v", 10), premise("N.add_0_r", "Derived.v", 20),
                               premise("N.late", "Derived.v", 30)]),
    ("Other.v", [], [premise("O.add_0_r", "Other.v", 1)]),
])


def test_templates_abstract_only_the_theorems_own_namesake():
    """Fails if a template is taken from a step that names the theorem without using a namesake
    (checked: the premise condition dropped), if the name's qualifier survives the hole, or if a
    template that names the namesake twice cannot be filled (it crashed the search: ``str.format``
    with one name for two holes)."""
    theorems = [
        traced("N.mul_1_r", "Derived.v", 10, step("intros.", ), step("apply NZ.mul_1_r; auto'.", "NZ.mul_1_r")),
        traced("N.add_0_r", "Derived.v", 20, step("rewrite add_0_r in H.")),  # names it, uses no namesake
        traced("N.braces", "Derived.v", 25, step("now rewrite {1}braces.", "NZ.braces")),
        traced("N.twice", "Derived.v", 26, step("now rewrite <- !conv, N.twice, Z.twice.", "Z.twice")),
        traced("N.hole", "Derived.v", 27, step("have {}: hole.", "NZ.hole")),  # a literal {} is no template
    ]
    texts = [t.text for t in learned_templates(theorems)]
    assert texts == ["apply {}; auto'.", "now rewrite {1}{}.", "now rewrite <- !conv, {}, {}."]
    assert [fill(t, "x") for t in texts[1:]] == ["now rewrite {1}x.", "now rewrite <- !conv, x, x."]


def test_proposes_learned_then_fixed_templates_with_short_and_qualified_names():
    """Fails if the file's own earlier template is not first, or if the qualified name of the
    namesake (``NZ.add_0_r``) is not tried beside the short one."""
    templates = learned_templates(
        [traced("N.mul_1_r", "Derived.v", 10, step("apply mul_1_r; auto'.", "NZ.mul_1_r"))])
    gen = NamesakeGenerator(CORPUS, templates, FIXED)
    here = Theorem("N.add_0_r", file_path="Derived.v", position=(20, 1))
    assert gen.namesakes(here) == ["NZ.add_0_r"]
    tactics = [t for t, _ in gen.generate(STATE, here, 10)]
    assert tactics == ["apply add_0_r; auto'.", "apply add_0_r.", "apply NZ.add_0_r."]


def test_nothing_without_an_accessible_namesake():
    """Fails if a namesake is taken from a file the theorem does not import (``Other.v``), from
    later in its own file, or if the theorem's own declaration counts as its namesake."""
    gen = NamesakeGenerator(CORPUS, [], FIXED)
    assert gen.generate(STATE, Theorem("N.late", file_path="Derived.v", position=(30, 1)), 10) == []
    # Base.v's NZ.mul_1_r is its own declaration there, and N.mul_1_r comes later in another file
    assert gen.generate(STATE, Theorem("NZ.mul_1_r", file_path="Base.v", position=(5, 1)), 10) == []
    # without a position every premise of the file is accessible, its own declaration still not
    assert gen.generate(STATE, Theorem("NZ.mul_1_r", file_path="Base.v"), 10) == []
    # Other.v imports nothing: Base.v's and Derived.v's add_0_r are out of its reach
    assert gen.generate(STATE, Theorem("O.add_0_r", file_path="Other.v", position=(1, 1)), 10) == []
    # a learned template of a later lemma of the file is not used either
    later = learned_templates([traced("N.zz", "Derived.v", 40, step("exact zz.", "NZ.zz"))])
    gen = NamesakeGenerator(CORPUS, later, FIXED)
    here = Theorem("N.add_0_r", file_path="Derived.v", position=(20, 1))
    assert [t for t, _ in gen.generate(STATE, here, 10)] == ["apply add_0_r.", "apply NZ.add_0_r."]


def test_nearest_namesake_first_and_count_capped():
    """Fails if the namesakes are not ordered own file first, latest first: the short name resolves
    to the latest declaration in scope, so the qualified ones should start with it."""
    corpus = Corpus([
        ("A.v", [], [premise("A.f", "A.v", 1)]),
        ("B.v", ["A.v"], [premise("B1.f", "B.v", 1), premise("B2.f", "B.v", 5), premise("B.f", "B.v", 9)]),
    ])
    gen = NamesakeGenerator(corpus, [], FIXED, qualified=1)
    here = Theorem("B.f", file_path="B.v", position=(9, 1))
    assert gen.namesakes(here) == ["B2.f", "B1.f", "A.f"]
    assert [t for t, _ in gen.generate(STATE, here, 10)] == ["apply f.", "apply B2.f."]


def test_qualified_namesakes_are_written_as_the_theorems_file_can_name_them():
    """Fails if a fixed template is filled with a namesake's module-relative name: another file's
    is loaded but maybe not imported (fully qualified, it resolves), and a functor's lemma is no
    constant (only its short name, already tried, reaches it)."""
    corpus = Corpus([
        ("Peano.v", [], [Premise("max_r", "Lemma max_r : True.", "Peano.v", (1, 1), (1, 20), "lemma", "Coq.Init.Peano")]),
        ("NZ.v", [], [Premise("NZProp.max_r", "Lemma max_r : True.", "NZ.v", (1, 1), (1, 20), "lemma", "Coq.NZ", True)]),
        ("Nat.v", ["Peano.v", "NZ.v"], [premise("Nat.max_r", "Nat.v", 9)]),
    ])
    here = Theorem("Nat.max_r", file_path="Nat.v", position=(9, 1))
    gen = NamesakeGenerator(corpus, [], FIXED)
    assert sorted(gen.namesakes(here)) == ["NZProp.max_r", "max_r"]
    assert sorted(t for t, _ in gen.generate(STATE, here, 10)) == ["apply Coq.Init.Peano.max_r.", "apply max_r."]
