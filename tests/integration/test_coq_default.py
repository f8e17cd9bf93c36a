"""The default Coq prover (prover.coq.default_generator): its tiers, its traced-data fallback, its wiring
into ``eval``/``prove``, and real Coq searches with its context additions and CoqHammer."""

from __future__ import annotations

import argparse
import logging
import time
import warnings
from pathlib import Path

import pytest

from prover.coq.default_generator import CoqDefaultGenerator, coq_default, default_width
from prover.coq.presets import ADDITIONS, TACTIC_LIMITS, default_config
from prover.defaults import HAMMER_BY
from prover.registry import build_run
from generator.fixed import FixedTacticGenerator
from generator.knn import KNNGenerator
from generator.proof_retrieval import ProofRetrievalGenerator
from prover.coq import additions
from prover.coq.context import adhoc_theorem
from search_tree import ErrorKind, Status, TacticError, TacticState
from search_tree.events import SearchEvent, TacticRun
from test_coq_hammer import atp_processes
from traced_fixtures import commutation_theorems, write

STATE = TacticState("  ============================\n  True", id=0)
THEOREM = adhoc_theorem("Lemma t : True.", [])
HAMMER = additions.probe(additions.ADDITIONS["hammer"].sentences)
needs_coq = pytest.mark.coq


def test_tiers_shift_each_member_and_cap_it():
    """A member's scores are shifted by its offset, a tactic proposed twice keeps its best shifted
    score, and ``top`` caps a member. Fails if the offsets are ignored (the expensive member's
    tactic would come first), if duplicates add up, or if the cap is not applied."""
    cheap = FixedTacticGenerator([("auto.", -1.0), ("lia.", -2.0)])
    costly = FixedTacticGenerator([("hammer.", -0.1), ("auto.", -0.2), ("sauto.", -0.3)])
    generator = CoqDefaultGenerator([(cheap, 0.0, 10), (costly, -3.0, 2)])
    assert generator.generate(STATE, THEOREM, 10) == [("auto.", -1.0), ("lia.", -2.0), ("hammer.", -3.1)]


def test_missing_traces_leave_out_knn_and_proofs_with_one_warning(tmp_path):
    """Without traced splits the default still builds, without kNN and proof retrieval, and says
    how to enable them, as a warning (the command line prints those with its prefix). Fails if a
    missing trace raises, builds a learned member, or is silent."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        generator = coq_default(traces=str(tmp_path), hammer=False)
    assert [type(g) for g, _, _ in generator.members] == [type(generator.members[0][0]), FixedTacticGenerator]
    assert [str(w.message) for w in caught if "left out" in str(w.message)] == [
        f"coq_default: no traced Coq data in {tmp_path}, so kNN and proof retrieval are left out; "
        "run `dojo-prover trace --env coq` once to enable them"]


def test_traced_splits_add_online_knn_and_proof_retrieval(tmp_path):
    """With a traced split in the directory, kNN and proof retrieval join at the learned tier and
    their tactics are proposed, shifted. Fails if the traced files are not found or not used."""
    write(tmp_path / "train.json", commutation_theorems(4))
    generator = coq_default(traces=str(tmp_path), hammer=False)
    learned = [(type(g), offset) for g, offset, _ in generator.members[2:]]
    assert learned == [(KNNGenerator, -0.5), (ProofRetrievalGenerator, -0.5)]
    state = TacticState("  n : nat\n  ============================\n  n + 9 = 9 + n", id=0)
    other = adhoc_theorem("Lemma c : forall n : nat, n + 9 = 9 + n.", [])
    knn = dict(generator.members[2][0].generate(state, other, 5))
    assert dict(generator.generate(state, other, 200))["lia."] >= knn["lia."] - 0.5


def test_the_default_width_keeps_hammer_on_an_ssreflect_state_with_a_projects_traces(tmp_path):
    """On an ssreflect theorem's first state with eight hypotheses, learning from two traced
    directories (the stdlib's and a project's), the default makes more suggestions than the former
    fixed width of 80. Fails if the width its preset asks for is narrower than what it makes, or
    cuts ``hammer.``, which comes last."""
    for name in ("stdlib", "project"):
        (tmp_path / name).mkdir()
        write(tmp_path / name / "train.json", commutation_theorems(4))
    generator = coq_default(traces=[str(tmp_path / "stdlib"), str(tmp_path / "project")])
    hypotheses = "".join(f"  {v} : nat\n  H{v} : {v} <= 3\n" for v in "abcd")
    state = TacticState(f"{hypotheses}  ============================\n  a + b = c + d", id=0)
    theorem = adhoc_theorem("Lemma t (a b c d : nat) : a <= 3 -> b <= 3 -> c <= 3 -> d <= 3 -> a + b = c + d.",
                            ["From Coq Require Import ssreflect."])
    everything = generator.generate(state, theorem, 10_000)
    assert 80 < len(everything) <= default_config().prover.options["num_sampled_tactics"] == default_width()
    assert generator.generate(state, theorem, default_width())[-1] == ("hammer.", -4.5)


def _eval_args(*flags: str) -> argparse.Namespace:
    from prover.commands import eval as eval_command

    parser = argparse.ArgumentParser()
    eval_command.configure(parser)
    return parser.parse_args(["--benchmark", "coq-stdlib:test", "--out", "x", *flags])


def test_eval_without_generator_runs_the_default_preset():
    """``eval --env coq`` with no ``--generator`` runs coq_default with its additions and no
    premise retriever (docs/coq.md, "Premises for sauto and hauto"), and flags given still win.
    Fails if the default stays ``fixed`` or the preset overrides a flag."""
    from prover.commands.eval import build_config

    args = _eval_args("--timeout", "30", "--env-opt", "hammer_timeout=7")
    config = build_config(args, args.retriever, {}).prover
    assert (config.generator.name, config.retriever.name) == ("coq_default", "none")
    assert config.env.options["additions"] == ["hammer", "psatz", "ring", "field"]
    assert config.env.options["hammer_timeout"] == 7
    assert config.prover.options["timeout"] == 30
    named = _eval_args("--generator", "template")
    config = build_config(named, named.retriever, {}).prover
    assert (config.generator.name, config.retriever.name, config.env.options) == ("template", "none", {})


@pytest.mark.coq
@needs_coq
def test_default_proves_with_a_decision_procedure_and_prints_its_addition():
    """A nonlinear lemma in a context that loads nothing (``n <= m -> n * n <= m * m``: ``lia`` and
    the baseline fail, ``nia`` proves it) is proved by the default prover, verified by coqc, and the
    printed proof names the context additions it was checked with. Fails if ``nia`` is not among
    the actions or its addition (Psatz) is not part of the proof."""
    theorem = adhoc_theorem("Lemma sq_mono : forall n m : nat, n <= m -> n * n <= m * m.", [])
    env, prover = build_run(default_config(timeout=60, tactic_timeout=5, hammer_timeout=5))
    with env:
        result = prover.search(env, theorem)
    assert result.status == Status.PROVED, result.stop_reason
    lines = result.script.splitlines()
    assert "(* context addition, before the statement: Require Import Psatz. *)" in lines
    assert lines[-1] == "nia.", result.script


@pytest.mark.coq
@needs_coq
@pytest.mark.parametrize("statement, tactic, printed", [
    ("Lemma sq : forall n m : nat, n <= m -> n * n <= m * m.", "nia.", ["Require Import Psatz."]),
    ("Lemma ex : forall (A : Prop) (l : list A), l = l.", "sauto.", ["From Hammer Require Import Tactics."]),
    ("Lemma tr : True /\\ True.", "auto.", []),
])
def test_a_proof_is_printed_with_the_additions_its_tactics_need(statement, tactic, printed):
    """The default's environment loads every addition (CoqHammer, Psatz, ArithRing, Field), but a
    verified proof names only what its own tactics need: a user pastes it with those lines and no
    more. Fails if verification reports the proof with all the additions (seen: seven lines above
    ``sauto.``, ``Set Hammer ATPLimit`` among them), or with none where it needs one."""
    from prover.coq.env import CoqEnvironment
    from search_tree.protocol import linear_proof

    theorem = adhoc_theorem(statement, [])
    with CoqEnvironment(additions=list(ADDITIONS)) as env:
        verdict = env.verify(theorem, linear_proof([tactic]))
    assert verdict.ok, verdict.message
    lines = verdict.script.splitlines()
    assert lines == [f"{additions.ANNOTATION}{s} *)" for s in printed] + [tactic], verdict.script


@pytest.mark.coq
@needs_coq
def test_default_search_runs_hammer_once_per_state_and_leaves_no_atp():
    """On a false lemma the default's search tries ``hammer`` on the first state, then at most once
    more on another state, and no ATP process survives the search. Fails if hammer is proposed
    on every state, never, twice on one state, or if a timed-out hammer leaves E or CVC4 running."""
    theorem = adhoc_theorem("Lemma no : forall n : nat, n * n = n + 1.", [])
    env, prover = build_run(default_config(timeout=20, tactic_timeout=1, hammer_timeout=4))
    events: list[SearchEvent] = []
    with env:
        result = prover.search(env, theorem, on_event=events.append)
        hammers = [e for e in events if isinstance(e, TacticRun) and e.tactic == "hammer."]
        assert atp_processes() == []
    assert result.status != Status.PROVED
    assert 1 <= len(hammers) <= 2 and hammers[0].state == 0, hammers
    assert len({e.state for e in hammers}) == len(hammers)
    assert atp_processes() == []


@pytest.mark.coq
@needs_coq
def test_default_runs_hammer_by_its_deadline_on_a_stdlib_theorem_whose_tactics_time_out():
    """QArith's ``Qpower_plus`` (val split) at 8 s: ``sauto`` times out on the first state under
    its own 2-s limit (not the 5-s tactic timeout), and ``hammer``, scored below a hundred other
    suggestions, runs on that state by its deadline (a quarter of the 8 s, or when the tactic
    running then ends), before suggestions scored above it where they have not all run by then
    (a fast machine runs them all in under 2 s, and hammer then comes next in its turn). Fails if
    hammer waits its turn past the deadline (it then ran after 3.7 s here at 20 s, and never where
    more tactics time out) or if the expensive tactics get the whole tactic timeout."""
    env, prover = build_run(default_config(timeout=8))
    events: list[SearchEvent] = []
    with env:
        prover.search(env, env.theorem("Qpower_plus"), on_event=events.append)
    runs = [e for e in events if isinstance(e, TacticRun)]
    hammer = next(e for e in runs if e.tactic == "hammer.")
    deadline = 8 * HAMMER_BY
    running = [e.t for e in runs if e.t - e.seconds <= deadline < e.t]  # the tactic the deadline found running
    assert hammer.state == 0 and hammer.t - hammer.seconds <= max(running, default=deadline) + 0.5, (hammer, running)
    expensive = [e for e in runs if e.state == 0 and e.tactic.split()[0].rstrip(".") in TACTIC_LIMITS]
    assert expensive and all(e.seconds < 3.0 for e in expensive), expensive


@pytest.mark.coq
@needs_coq
def test_a_tactic_limit_stops_its_tactic_before_the_tactic_timeout():
    """``tactic_limits`` applies by a tactic's first word: a recursive ``let rec`` loop never
    ends, and under a 1-s limit it times out in well under the 10-s tactic timeout, while another tactic keeps the
    timeout. Fails if the limit is ignored or applied to every tactic."""
    from prover.coq.env import CoqEnvironment

    with CoqEnvironment(tactic_timeout=10, tactic_limits={"let": 1.0}) as env:
        with env.open(adhoc_theorem("Lemma l : True.", [])) as (session, state):
            started = time.monotonic()
            looped = session.run_tac(state, "let rec loop := idtac; loop in loop.")
            assert isinstance(looped, TacticError) and looped.kind == ErrorKind.TIMEOUT, looped
            assert time.monotonic() - started < 5.0
            assert session.tactic_timeout == 10


@pytest.mark.coq
@needs_coq
def test_statement_broken_by_additions_is_opened_without_them(caplog):
    """setoid_ring's ``PaddX_ok`` does not parse after Psatz/Field/ArithRing (their notations
    shadow the file's): it is opened without the additions and verified in the same bare context.
    Being the stdlib's, not the user's, this is logged (INFO), not warned about; a statement the
    user gave would be warned about. Fails if the rejection crashes the search (ValueError), if
    verification would still compile the additions, or if a stdlib theorem raises a warning."""
    from prover.coq.env import CoqEnvironment

    with CoqEnvironment(additions=("psatz", "ring", "field")) as env:
        theorem = env.theorem("Coq.setoid_ring.Ncring_polynom.PaddX_ok")
        with warnings.catch_warnings(), caplog.at_level(logging.INFO, logger="prover.coq.env"):
            warnings.simplefilter("error")
            with env.open(theorem) as (_, state):
                assert "PaddX Padd P2 k n P" in state.pp
        assert [r.getMessage() for r in caplog.records if r.name == "prover.coq.env"] == [
            "PaddX_ok: coqtop rejects its statement after the context additions psatz, ring, field; opened without them"]
        assert env.context(theorem).additions == ()
        assert env._installed(theorem) and not env._installed(adhoc_theorem("Lemma l : True.", []))


def test_side_by_side_systems_share_one_wall_clock_limit():
    """Every system of benchmarks/coq_vs_hammer.py gets the same limit per theorem: ``hammer`` and
    ``sauto`` the whole of it in one call, the seven stock tactics a seventh each, the searches it
    as their timeout (the default's hammer a third). Fails if a system is given more or less time
    than the others, or ``hammer`` runs without its addition."""
    from benchmarks.coq_vs_hammer import COMPARED, systems

    table = systems(21.0)
    assert set(COMPARED) <= set(table)
    assert table["hammer"].env.options == {"tactic_timeout": 21.0, "additions": ["hammer"], "hammer_timeout": 21.0,
                                           "verify_timeout": 60.0}  # the final check's floor
    assert table["sauto"].env.options["additions"] == ["hammer-tactics"]
    assert table["stock"].env.options["tactic_timeout"] == pytest.approx(3.0)
    assert {name: table[name].prover.options["timeout"] for name in table} == dict.fromkeys(table, 21.0)
    assert table["default"].env.options["hammer_timeout"] == pytest.approx(7.0)
    assert table["default-mcts"].prover.name == "mcts"
    assert "policy" not in table["default-unlearned"].generator.options
    assert table["default-no-namesakes"].generator.options == {**table["default"].generator.options, "namesakes": False}
    chosen = systems(21.0, hammer_timeout=9.0, policy=Path("round-1/policy.pt"))
    assert chosen["default"].generator.options == {"policy": "round-1/policy.pt"}
    assert chosen["default"].env.options["hammer_timeout"] == chosen["default-mcts"].env.options["hammer_timeout"] == 9.0
    assert chosen["default"].prover.options["reserve"]["first_limit"] == 9.0
    assert chosen["hammer"].env.options == table["hammer"].env.options  # the flags set the default's only


def test_a_listing_drawn_from_a_tuned_split_is_called_tuning_data(tmp_path):
    """Fails if benchmarks/coq_vs_hammer.py calls a listing of val theorems evaluation data (a
    results file would then say no choice was made on it), or a listing holding one test theorem
    tuning data."""
    import json

    from benchmarks.coq_vs_hammer import tuned_source
    from prover.benchmarks.registry import load_benchmark

    val, test = load_benchmark("coq-stdlib:val", 3), load_benchmark("coq-stdlib:test", 1)
    assert tuned_source("coq-stdlib:val", val) == "coq-stdlib:val" and tuned_source("coq-stdlib:test", test) is None
    for name, theorems, expected in (("val.jsonl", val, "coq-stdlib:val"), ("mixed.jsonl", val + test, None)):
        listing = tmp_path / name
        listing.write_text("".join(json.dumps({"project": "coq-stdlib", "file": t.file_path, "name": t.full_name}) + "\n"
                                   for t in theorems), encoding="utf-8")
        assert tuned_source(str(listing), load_benchmark(str(listing))) == expected


def test_library_proof_lengths_count_the_steps_of_the_library_proof(capsys):
    """The side-by-side table by the library proof's length counts a proof's tactic sentences, not
    ``Proof.``, bullets or braces. Fails if ``plus_n_O`` (``Proof. intro n; induction n; simpl;
    auto. Qed.``) counts other than one, ``hd_error_tl_repr`` (a ``destruct`` then two bulleted
    steps) other than three, ``hd_error_some_nil`` (two sentences on one line) other than two, or a
    proof is put in the wrong bucket."""
    from benchmarks.coq_vs_hammer import by_length, library_proof_lengths
    from prover.coq.index import load_index
    from prover.run.evaluation import theorem_key

    index = load_index(progress=False)
    names = ("Coq.Init.Peano.plus_n_O", "Coq.Lists.List.hd_error_tl_repr", "Coq.Lists.List.hd_error_some_nil")
    theorems = [index.theorem(name) for name in names]
    lengths = library_proof_lengths(theorems)
    assert [lengths[theorem_key(t)] for t in theorems] == [1, 3, 2]
    by_length({"default": {theorem_key(t): 1.0 for t in theorems[:2]}}, lengths, 4)
    table = capsys.readouterr().out
    assert "| theorems | 1 | 2 | 0 | 0 | 0 |" in table and "| default | 1 | 1 | 0 | 0 | 0 |" in table
    assert "1 of the 4 theorems are in no column" in table


def test_coq_run_config_survives_its_json_round_trip():
    """A Coq run's recorded configuration equals what a resume recomputes: the environment's tuple
    default (``additions=()``) is recorded as JSON gives it back. Fails if ``with_defaults`` keeps
    the tuple (a resumed coq eval was refused: "additions: saved [], now []")."""
    import json

    from prover.registry import ComponentSpec, ProverConfig, with_defaults

    config = with_defaults(ProverConfig(ComponentSpec("coq"), ComponentSpec("best_first", {"timeout": 5}),
                                        ComponentSpec("fixed", {"tactics": ["auto."]})))
    assert json.loads(json.dumps(config.to_json())) == config.to_json()
