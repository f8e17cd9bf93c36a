"""ssreflect in the default prover, on the stdlib's own ssreflect files (``Coq.ssr``) and on a small
ssreflect project traced here: the index marks the theorems whose context loads ssreflect, the
baseline proves them with ssreflect's tactics, which it proposes nowhere else, goals printed with
ssreflect's notation parse into hypotheses the templates act on, and kNN learns the project's own
ssreflect steps from its traces."""

from __future__ import annotations

from pathlib import Path

import pytest

from coq_projects import make_project
from generator.state_parsing import hypothesis_kind
from prover.coq.context import adhoc_theorem
from prover.coq.env import CoqEnvironment
from prover.coq.language import COQ
from prover.coq.presets import baseline_config, default_config
from prover.coq.project import load_project
from prover.coq.templates import automation_generator
from prover.registry import prover_from
from retrieval.symbols import extract_symbols
from search_tree import TacticState

#: a project whose first file proves boolean lemmas the ssreflect way and whose second states one
#: more of the same shape, under other names
BOOLS = """From Coq Require Import ssreflect ssrbool.

Lemma andb_sym (a b : bool) : a && b -> b && a.
Proof. by case: a; case: b. Qed.

Lemma orb_sym (a b : bool) : a || b -> b || a.
Proof. by case: a; case: b. Qed.

Lemma implb_and (a b : bool) : a && b ==> a.
Proof. by case: a; case: b. Qed.
"""
USE = """From Coq Require Import ssreflect ssrbool.
Require Import S.Bools.

Lemma orb_and_sym (x y : bool) : x || y && x -> x.
Proof. by case: x; case: y. Qed.
"""


def test_an_ssreflect_lemma_is_marked_and_proved_with_ssreflect_tactics():
    """Fails if ``negbK`` (ssrbool.v, which requires ssreflect) is not marked, if an Arith theorem
    or ssreflect.v itself (its context is before ssreflect exists) is, or if the baseline does not
    prove ``negbK`` with ssreflect's ``by case.`` (Coq's own proof), within its first expansion."""
    with CoqEnvironment() as env:
        theorem = env.theorem("Coq.ssr.ssrbool.negbK")
        assert theorem.extra.get("ssreflect") is True
        assert "ssreflect" not in env.theorem("Nat.add_0_l").extra
        assert not any(t.extra.get("ssreflect") for t in env.index.theorems(["ssr/ssreflect.v"]))
        result = prover_from(baseline_config(None, timeout=60)).search(env, theorem)
    assert result.status.value == "proved" and result.script == "by case.", (result.stop_reason, result.script)


def test_a_goal_in_ssreflect_notation_parses_into_the_hypotheses_templates_act_on():
    """A goal printed by coqtop with ssrbool's notation (``\\in``, ``~~``, ``&&``, ``==>``): fails
    if its hypotheses are not read one by one with their types, if the boolean ones are not taken
    as propositions (``rewrite``/``apply:`` would skip them and ``case:``/``elim:`` would take them
    as data), or if the notation is not read as the constants it denotes."""
    theorem = adhoc_theorem("Lemma t (T : Type) (A : pred T) (x : T) (b c : bool) : "
                            "x \\in A -> ~~ (b && c) -> b ==> ~~ c.", ["From Coq Require Import ssreflect ssrbool."])
    with CoqEnvironment() as env, env.open(theorem) as (session, state):
        state = session.run_tac(state, "move=> Hx Hbc.")
    assert isinstance(state, TacticState), state
    goal = state.goals[0]
    assert [(h.name, h.type) for h in goal.hypotheses] == [
        ("T", "Type"), ("A", "pred T"), ("x", "T"), ("b", "bool"), ("c", "bool"), ("Hx", "x \\in A"),
        ("Hbc", "~~ (b && c)")]
    assert goal.target == "b ==> ~~ c"
    kinds = {h.name: hypothesis_kind(h.type, COQ) for h in goal.hypotheses}
    assert kinds == {"T": "sort", "A": "data", "x": "data", "b": "data", "c": "data", "Hx": "prop", "Hbc": "prop"}
    text = " ".join([*(h.type for h in goal.hypotheses), goal.target])
    assert extract_symbols(text, COQ, {h.name for h in goal.hypotheses}) == {"pred", "bool", "in_mem", "negb", "andb",
                                                                               "implb"}
    tactics = {t for t, _ in automation_generator().generate(state, _ssreflect(theorem), 200)}
    assert {"by rewrite Hbc.", "by apply: Hx.", "case: c.", "elim: b."} <= tactics
    assert not {"case: Hx.", "rewrite b.", "by apply: c."} & tactics


def _ssreflect(theorem):
    from prover.coq.records import CoqFields

    return CoqFields(ssreflect=True).on(theorem)


@pytest.fixture
def traced_ssreflect_project(tmp_path: Path, private_cache) -> Path:
    """:data:`BOOLS` and :data:`USE` as a project (``-Q theories S``), traced into the private cache."""
    from prover.coq.tracer import ensure_traced

    root = make_project(tmp_path / "ssrproj", {"theories/Bools.v": BOOLS, "theories/Use.v": USE}, "-Q theories S")
    assert ensure_traced(progress=False, project=load_project(str(root))).failed == []
    return root


def test_knn_learns_ssreflect_steps_from_the_traced_project_and_the_default_proves_with_them(
        traced_ssreflect_project):
    """Fails if the project's traces are not where the default looks for them, if kNN over them
    does not propose the project's ssreflect step renamed to the new lemma's variables at the top,
    or if the default prover does not prove the new lemma with an ssreflect step."""
    project = str(traced_ssreflect_project)
    with CoqEnvironment(project=project) as env:
        theorem = env.theorem("orb_and_sym")
        assert theorem.extra.get("ssreflect") is True
        traces = CoqEnvironment.default_traces({"project": project}, [theorem])
        assert traces is not None and Path(traces[-1], "corpus.jsonl").exists()
        from generator.knn import KNNGenerator

        knn = KNNGenerator.from_traced(traces[-1], COQ)
        with env.open(theorem) as (_, state):
            proposed = [t for t, _ in knn.generate(state, theorem, 3)]
        assert proposed[0] == "by case: x; case: y.", proposed
        result = prover_from(default_config(timeout=60, project=project, policy=None)).search(env, theorem)
    assert result.status.value == "proved", result.stop_reason
    assert result.script.split()[0] in {"by", "case:", "elim:", "move=>", "done."}, result.script
