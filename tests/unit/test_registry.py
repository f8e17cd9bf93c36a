"""The one registry mechanism, the tables built on it, and the baseline as a template set."""

from __future__ import annotations

import subprocess
import sys

import pytest

from prover.benchmarks.registry import stable_sample
from prover.coq.templates import SSREFLECT, automation_generator
from prover.coq.presets import baseline_config
from prover.proof_search import make_prover
from prover.registry import prover_from
from generator.fixed import FixedTacticGenerator
from generator.template import load_templates
from search_tree import Goal, Hypothesis, TacticState, Theorem, make_value
from search_tree.registry import NotInstalled, Registry, RegistryError, UnknownName


def test_unknown_name_names_the_table_and_close_matches():
    """Fails if a table's unknown-name error drops the table, the name or the difflib suggestions,
    or stops being catchable as the KeyError/ValueError the old tables raised."""
    with pytest.raises(UnknownName, match=r"unknown search 'best_frist'; known: best_first, mcts; "
                                          r"did you mean 'best_first'\?"):
        make_prover("best_frist", FixedTacticGenerator(["auto."]))
    with pytest.raises(ValueError, match="unknown value function 'heuristics'.*did you mean 'heuristic'"):
        make_value("heuristics")
    with pytest.raises(KeyError, match="unknown template set 'coq:HAMER'.*'coq:HAMMER'"):
        load_templates("coq:HAMER")


def test_targets_are_imported_only_when_loaded():
    """Fails if registering or looking up a name imports its module (a table must cost nothing for
    a backend that is not installed), or if a missing module is not told apart as NotInstalled."""
    table = Registry("thing", {"missing": "no_such_module_xyz:Thing"})
    assert table["missing"] == "no_such_module_xyz:Thing" and "missing" in table and "other" not in table
    with pytest.raises(NotInstalled, match="module no_such_module_xyz is not installed"):
        table.load("missing")
    assert issubclass(NotInstalled, RegistryError) and issubclass(UnknownName, RegistryError)
    with pytest.raises(ValueError, match="thing 'bad': target 'nocolon' is not of the form 'module:attribute'"):
        table.register("bad", "nocolon")
    code = ("import sys, prover.registry, prover.benchmarks.registry, generator.template; "
            "assert not {'retrieval.dense', 'prover.coq.env', 'prover.lean.env', 'prover.benchmarks.datasets'} "
            "& set(sys.modules), sorted(sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_stable_sample_is_a_growing_subset_in_the_given_order():
    """Fails if the sample depends on the input order, if a larger limit is not a superset, or if
    the chosen theorems come back out of the order given (files would interleave)."""
    theorems = [Theorem(f"t{i}", f"F{i % 3}.v") for i in range(40)]
    small, large = stable_sample(theorems, 5), stable_sample(theorems, 12)
    assert len(small) == 5 and set(small) <= set(large)
    assert small == [t for t in theorems if t in small]
    assert set(stable_sample(list(reversed(theorems)), 5)) == set(small)
    assert stable_sample(theorems, None) == theorems


STATE = TacticState("pp", 0, (Goal(tuple(Hypothesis(n, t) for n, t in [("n", "nat"), ("H", "n <= 3")]), "P n"),))


def test_the_baseline_is_a_template_set_with_its_old_scores():
    """Fails if the baseline's scores are normalised (its best-first depth penalty would change),
    if ``{local}`` skips data or propositional hypotheses, or if the rank penalty is not 0.1: the
    expected list is what the former BaselineGenerator returned for this state, plus the 8 tactics of
    the one Coq list (``AUTOMATION``) that only the template set had."""
    got = automation_generator().generate(STATE, Theorem("t"), 36)
    assert got[:3] == [("intros.", -0.5), ("reflexivity.", -1.0), ("assumption.", -1.1)]
    assert [s for s in got if "{" not in s[0] and (" H;" in s[0] or " n;" in s[0])] == [
        ("destruct H; simpl; auto.", -2.45), ("induction H; simpl; auto.", -2.5),
        ("destruct n; simpl; auto.", -2.45 - 0.1), ("induction n; simpl; auto.", -2.5 - 0.1)]
    assert len(got) == 32 and prover_from(baseline_config(None)).num_sampled_tactics == 36 + len(SSREFLECT) + 8 * 4
    assert load_templates("coq:BASELINE").normalise is False


def test_every_coq_template_set_takes_the_one_automation_list_with_its_priors():
    """Fails if a Coq set keeps its own copy of the automation tactics or their priors (the former
    ``_AUTOMATION`` and ``BASELINE_TACTICS`` shared 18 tactics with different priors)."""
    from prover.coq.templates import AUTOMATION

    for name in ("coq", "coq:BASELINE", "coq:HAMMER", "coq:FITTED"):
        fixed = {t.text: t.log_prior for t in load_templates(name).templates if t.slot is None}
        assert set(dict(AUTOMATION)) <= set(fixed), name
        if name != "coq:FITTED":  # its priors are fitted, its tactics the same
            assert {t: fixed[t] for t, _ in AUTOMATION} == dict(AUTOMATION), name


def test_the_baseline_proposes_ssreflect_tactics_only_where_ssreflect_is_loaded():
    """Fails if ssreflect's tactics are proposed for a theorem whose context does not load
    ssreflect (they do not parse there), or are missing or ranked otherwise than set where it does;
    if ``case:``/``elim:`` are proposed on a propositional hypothesis or ``rewrite``/``apply:`` on
    a data variable; or if the baseline can be asked for fewer suggestions than it makes."""
    plain = automation_generator().generate(STATE, Theorem("t"), 100)
    ssr = automation_generator().generate(STATE, Theorem("t", extra={"ssreflect": True}), 100)
    assert not {t for t, _ in plain} & {t for t, _ in SSREFLECT}
    assert set(plain) < set(ssr) and len(ssr) == len(plain) + len(SSREFLECT) + 8
    assert ("done.", -0.95) in ssr and ("case: n.", -2.45) in ssr and ("elim: n.", -2.55) in ssr
    assert ("by rewrite H.", -2.3) in ssr and ("by case: H.", -2.4) in ssr
    assert not {"case: H.", "elim: H.", "rewrite n.", "by apply: n."} & {t for t, _ in ssr}
    assert len(ssr) <= prover_from(baseline_config(None)).num_sampled_tactics
    assert automation_generator(["auto."]).generate(STATE, Theorem("t", extra={"ssreflect": True}), 100) == \
        automation_generator(["auto."]).generate(STATE, Theorem("t"), 100)


def test_backends_bring_their_generators_and_template_sets():
    """Fails if the generator package names a backend again (a Coq or synthetic entry in its own
    tables, or an import of ``prover``), or if importing any part of ``prover`` (as a Ray worker
    does when it unpickles a prover) leaves a backend's generators or template sets unknown."""
    code = ("import sys, generator, generator.template\n"
            "assert not [m for m in sys.modules if m.split('.')[0] == 'prover'], sorted(sys.modules)\n"
            "assert 'automation' not in generator.GENERATORS and not list(generator.template.TEMPLATE_SETS)\n"
            "import prover.registry\n"
            "g = generator.build_generator('automation')\n"
            "assert type(g).__name__ == 'AutomationGenerator' and g.plain.rank_penalty == 0.1, g\n"
            "assert type(generator.build_generator('synthetic', seed=3)).__name__ == 'SyntheticGenerator'\n"
            "assert sorted(generator.template.TEMPLATE_SETS) == ['coq', 'coq:BASELINE', 'coq:FITTED', 'coq:HAMMER', 'lean']\n"
            "assert sorted(prover.registry.ENVIRONMENTS) == ['coq', 'leandojo', 'synthetic']\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_template_generator_takes_the_run_backends_set_by_default():
    """Fails if a ``template`` generator named without ``templates`` proposes another backend's
    tactics (Coq's on a Lean run), or runs on a backend that has no language instead of saying
    that it needs a set."""
    from generator.template import load_templates
    from prover.backends import language_for
    from prover.registry import ComponentSpec, build_generator

    for env, templates in (("coq", "coq"), ("leandojo", "lean")):
        assert build_generator(ComponentSpec("template"), None, language_for(env)).templates is load_templates(templates)
    with pytest.raises(ValueError, match=r"^the template generator needs templates=NAME \(one of coq, "):
        build_generator(ComponentSpec("template"), None, language_for("synthetic"))
