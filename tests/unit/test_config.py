"""One configuration model: every entry point searches under :mod:`prover.defaults`'s limits, the
Python API applies the command line's defaults itself, and components are given as specs (by
registry name or import path) or, in process, as objects."""

import inspect
import json

import pytest
from custom_components import MARK, PremiseGenerator

from generator import FixedTacticGenerator
from generator.registry import build_generator as build_named
from prover.cli import build_parser
from prover.coq.env import CoqEnvironment
from prover.coq.default_generator import default_width
from prover.coq.presets import baseline_config, default_config
from prover.defaults import DEMO, LEARN, RUN, SEARCH_WIDTH, Limits
from prover.lean.env import LeanDojoEnvironment
from prover.proof_search import (
    BestFirstSearchProver,
    DistributedProver,
    MCTSProver,
    Task,
)
from prover.registry import (
    ComponentSpec,
    NotASpec,
    ProverConfig,
    build_generator,
    check_names,
    prover_from,
    with_defaults,
)
from prover.run.evaluation import EvalConfig, run_evaluation
from search_tree import Status, Theorem
from search_tree.registry import NotInstalled, RegistryError, UnknownName
from search_tree.events import TacticRun

LIMITS = ("timeout", "tactic_timeout", "hammer_timeout", "max_expansions")


def _parsed(*argv):
    return build_parser().parse_args(list(argv))


@pytest.mark.parametrize("argv, profile", [
    (["prove", "Nat.le_0_l"], RUN),
    (["interact", "Nat.le_0_l"], RUN),
    (["eval", "--benchmark", "synthetic:3", "--out", "o"], RUN),
    (["ablate", "--benchmark", "synthetic:3", "--out", "o", "--retrievers", "none"], RUN),
    (["fill-admitted", "proj", "--out", "o"], RUN),
    (["demo"], DEMO),
    (["learn", "--out", "o"], LEARN),
])
def test_every_commands_limit_flags_default_to_its_profile(argv, profile):
    args = _parsed(*argv)
    given = [name for name in LIMITS if hasattr(args, name)]
    assert "timeout" in given or argv[0] == "interact"
    assert {name: getattr(args, name) for name in given} == {name: getattr(profile, name) for name in given}


def test_the_help_text_states_the_models_defaults(capsys):
    with pytest.raises(SystemExit):
        _parsed("demo", "--help")
    text = " ".join(capsys.readouterr().out.split())
    assert "search wall-clock seconds per theorem (default: 10)" in text
    assert "seconds for the default prover's hammer call (default: 5)" in text
    with pytest.raises(SystemExit):
        _parsed("prove", "--help")
    text = " ".join(capsys.readouterr().out.split())
    assert "search wall-clock seconds per theorem (default: 60)" in text
    assert "(default: a third of --timeout, at most 20)" in text


def _defaults(factory):
    return {n: p.default for n, p in inspect.signature(factory).parameters.items()
            if p.default is not inspect.Parameter.empty}


def test_the_python_api_searches_under_the_same_limits_as_the_command_line():
    gen = FixedTacticGenerator(["auto."])
    for prover in (BestFirstSearchProver(gen), MCTSProver(gen)):
        assert (prover.budget.timeout, prover.budget.max_expansions) == (RUN.timeout, RUN.max_expansions) == (60.0, None)
        assert prover.num_sampled_tactics == SEARCH_WIDTH
    assert prover_from(baseline_config(None)).budget.timeout == RUN.timeout
    coq = _defaults(CoqEnvironment)
    assert (coq["tactic_timeout"], coq["hammer_timeout"], coq["verify_timeout"]) == (5.0, 20.0, 60.0)
    preset = default_config()
    assert preset.prover.options == {"timeout": 60.0, "num_sampled_tactics": default_width(), "value": "generator",
                                     "reserve": {"tactic": "hammer.", "first_limit": coq["hammer_timeout"],
                                                 "first_by": 0.25, "final": 0.25,
                                                 "same_problem": ["intros.", "intro."]}}
    assert {k: preset.env.options[k] for k in ("tactic_timeout", "hammer_timeout", "verify_timeout")} == {
        "tactic_timeout": coq["tactic_timeout"], "hammer_timeout": coq["hammer_timeout"],
        "verify_timeout": coq["verify_timeout"]}
    lean = _defaults(LeanDojoEnvironment)
    assert (lean["tactic_timeout"], lean["init_timeout"]) == (60, 600)


@pytest.mark.parametrize("limits, hammer, verify", [
    (Limits(timeout=60), 20.0, 60.0),   # a third of 60, at the cap
    (Limits(timeout=9), 3.0, 60.0),     # a third; the check's floor
    (Limits(timeout=300), 20.0, 300.0),  # capped; the check gets the search's time
    (Limits(timeout=9, hammer_timeout=7), 7.0, 60.0),
])
def test_derived_limits(limits, hammer, verify):
    assert (limits.hammer, limits.verify) == (hammer, verify)
    preset = default_config(limits.timeout, hammer_timeout=limits.hammer_timeout)
    assert (preset.env.options["hammer_timeout"], preset.env.options["verify_timeout"]) == (hammer, verify)


def test_the_presets_policy_is_a_path_the_shipped_checkpoint_or_none(tmp_path):
    """``default_config``'s ``policy``: a path is the caller's checkpoint, whatever its name (a
    file called ``shipped`` too), :data:`SHIPPED` the package's own where it has one, None none.
    Fails if a path is read as the sentinel (it was the string "shipped": such a path was
    swapped for the package's checkpoint, or dropped)."""
    from prover.coq.presets import SHIPPED, SHIPPED_POLICY

    def policy(config):
        return config.generator.options.get("policy")

    shipped = tmp_path / "shipped"
    assert policy(default_config(policy=shipped)) == str(shipped)
    assert policy(default_config(policy="shipped")) == "shipped"
    assert policy(default_config(policy=None)) is None
    expected = str(SHIPPED_POLICY) if SHIPPED_POLICY.exists() else None
    assert policy(default_config(policy=SHIPPED)) == policy(default_config()) == expected


def synthetic(generator=None, **search):
    return ProverConfig(ComponentSpec("synthetic"), ComponentSpec("best_first", {"max_expansions": 20, **search}),
                        generator if generator is not None else ComponentSpec("synthetic"))


THEOREMS = [Theorem(f"synthetic_{i:04d}") for i in range(4)]


def test_with_defaults_is_idempotent_and_fills_every_option():
    once = with_defaults(synthetic())
    assert with_defaults(once) == once
    assert once.prover.options["timeout"] == RUN.timeout
    assert once.prover.options["num_sampled_tactics"] == SEARCH_WIDTH
    assert "hint_rate" in once.generator.options and "latency" in once.env.options


def test_distributed_prover_applies_the_defaults_itself():
    config = synthetic()
    with DistributedProver(config) as prover:
        got = {o.task.theorem.full_name: o.result.status for o in prover.iter_results([Task(t) for t in THEOREMS])}
        assert prover.config == with_defaults(config)
    assert set(got) == {t.full_name for t in THEOREMS} and Status.PROVED in got.values()


def test_a_generator_given_as_an_object_runs_in_process():
    marked = build_generator(ComponentSpec("custom_components:MarkedGenerator"))
    events = []
    with DistributedProver(synthetic(marked)) as prover:
        for outcome in prover.iter_results([Task(THEOREMS[0])]):
            events = outcome.events
    assert prover.config.generator is marked
    assert any(isinstance(e, TacticRun) and e.tactic == MARK for e in events)


def test_an_object_where_the_configuration_must_travel_is_refused_in_one_line(tmp_path):
    config = synthetic(FixedTacticGenerator(["auto."]))
    with pytest.raises(NotASpec, match=r"^workers on Ray needs the generator as a ComponentSpec .*, not a "
                                       r"FixedTacticGenerator object: an object serves a run in this process only"):
        DistributedProver(config, num_workers=2).start()
    with pytest.raises(NotASpec, match=r"^a run directory \(its config.json\) needs the generator"):
        run_evaluation(EvalConfig(config, "synthetic:4"), THEOREMS, tmp_path / "run", progress=False)
    assert not (tmp_path / "run").exists()
    with pytest.raises(NotASpec):
        config.to_json()


def test_a_retriever_is_passed_by_signature_and_refused_in_one_line_where_it_has_no_use():
    retriever = object()
    taker = build_generator(ComponentSpec("custom_components:PremiseGenerator", {"tactics": ["auto."]}), retriever)
    assert isinstance(taker, PremiseGenerator) and taker.retriever is retriever
    with pytest.raises(RegistryError, match=r"^generator 'fixed' takes no retriever \(its factory has no retriever "
                                            r"parameter\): give the retriever 'none'"):
        build_generator(ComponentSpec("fixed", {"tactics": ["auto."]}), retriever)
    assert build_generator(ComponentSpec("fixed", {"tactics": ["auto."]})).generate(None, None, 1) == [("auto.", 0.0)]


def test_fused_offers_its_retriever_to_the_members_whose_signature_asks_for_it():
    retriever = object()
    fused = build_named("fused", retriever=retriever, members=[
        {"name": "fixed", "tactics": ["auto."]},
        {"name": "custom_components:PremiseGenerator", "tactics": ["lia."], "weight": 2.0}])
    (fixed, _), (taker, weight) = fused.members
    assert isinstance(fixed, FixedTacticGenerator) and isinstance(taker, PremiseGenerator)
    assert taker.retriever is retriever and weight == 2.0


def test_components_by_import_path_and_their_errors():
    config = synthetic(ComponentSpec("custom_components:MarkedGenerator", {"hint_rate": 1.0}))
    check_names(config)
    assert with_defaults(config).generator == config.generator  # **options: no defaults to add
    assert json.loads(json.dumps(config.to_json()))["generator"]["name"] == "custom_components:MarkedGenerator"
    with pytest.raises(RegistryError, match=r"^generator 'custom_components:Nope': custom_components:Nope does not exist"):
        build_generator(ComponentSpec("custom_components:Nope"))
    with pytest.raises(NotInstalled, match=r"^no_such_module:Gen is not available: module no_such_module is not installed"):
        build_generator(ComponentSpec("no_such_module:Gen"))
    with pytest.raises(UnknownName, match=r"^unknown generator 'fixd'; known: .*did you mean 'fixed'"):
        build_generator(ComponentSpec("fixd"))
    with pytest.raises(RegistryError, match=r"^generator 'custom_components:Nope'"):  # before any work starts
        check_names(synthetic(ComponentSpec("custom_components:Nope")))


def test_the_code_of_components_named_by_import_path_travels_to_the_workers():
    from pathlib import Path

    from prover.registry import outside_modules
    from prover.run.nodes import import_root, job_runtime_env, task_runtime_env

    fused = ComponentSpec("fused", {"members": [{"name": "fixed", "tactics": ["auto."]},
                                                {"name": "custom_components:PremiseGenerator", "tactics": []}]})
    config = ProverConfig(ComponentSpec("synthetic"), ComponentSpec("prover.proof_search:MCTSProver"), fused)
    assert outside_modules(config) == ["prover", "custom_components"]
    here = Path(__file__).resolve().parents[1]  # tests/, where custom_components.py is
    shipped = job_runtime_env(outside_modules(config))["py_modules"]
    assert shipped == job_runtime_env()["py_modules"] + [str(here / "custom_components.py")]
    path = task_runtime_env(False, outside_modules(config))["env_vars"]["PYTHONPATH"].split(":")
    assert path[:2] == [str(import_root()), str(here)]
    assert task_runtime_env(True, outside_modules(config)) == {}
    with pytest.raises(NotInstalled, match="^module no_such_module is not installed here"):
        task_runtime_env(False, ["no_such_module"])
