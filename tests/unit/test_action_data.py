"""Reading a prover's own searches back from action logs (generator.action_data): on a real run
directory of the synthetic backend searched with the default's union generator, and on small logs
written by hand where every label is known."""

from __future__ import annotations

import json

import pytest

from prover.benchmarks.registry import load_benchmark
from generator.action_data import (ActionLogError, Provenance, check_compatible, read_data, read_log, read_run,
                                   run_logs, write_data)
from generator.registry import GENERATORS
from search_tree.events import TacticRun, parse_event
from learn_fixtures import NAME, TARGET
from prover.registry import ComponentSpec, ProverConfig
from prover.run.evaluation import EvalConfig, ResultsFile, run_evaluation


@pytest.fixture(scope="module")
def synthetic_run(tmp_path_factory):
    """A real evaluation run directory: 12 synthetic theorems, best-first over the union generator."""
    out = tmp_path_factory.mktemp("run")
    with pytest.MonkeyPatch.context() as patch:  # the name exists for this run only
        patch.setitem(GENERATORS._targets, NAME, TARGET)
        config = EvalConfig(ProverConfig(ComponentSpec("synthetic"), ComponentSpec("best_first", {"max_expansions": 12}),
                                         ComponentSpec(NAME)), "synthetic:30", limit=12)
        run_evaluation(config, load_benchmark("synthetic:30", 12), out, progress=False)
    return out


def test_every_logged_tactic_is_read_with_its_member_outcome_and_time(synthetic_run):
    """Each tactic event becomes one attempt, attributed to the member that proposed it, with the
    logged outcome and seconds. Fails if attempts are dropped or invented, or members are lost."""
    for log in run_logs(synthetic_run):
        events = [parse_event(json.loads(line)) for line in log.read_text().splitlines()]
        tactics = [e for e in events if isinstance(e, TacticRun)]
        search = read_log(log)
        assert [(a.tactic, a.outcome, a.seconds) for a in search.attempts] == [
            (e.tactic, e.outcome, e.seconds) for e in tactics]
        assert {a.member for a in search.attempts} <= {"synthetic", "noise"}
        assert all(a.member == "noise" and a.prior == pytest.approx(-1.1) for a in search.attempts
                   if a.tactic == "noise.")


def test_a_proved_search_proves_its_first_state_in_as_many_steps_as_its_proof(synthetic_run):
    """The first state of a proved search is proved, at the length of the proof found; the first
    state of a failed one is not, and no attempt solves there. Fails if proof distances are
    miscounted or if solved-ness leaks into failed searches."""
    records = {r["log"]: r for r in ResultsFile(synthetic_run / "results.jsonl").load()}
    proved = 0
    for log, record in records.items():
        search = read_log(synthetic_run / log)
        root = search.states[0]
        assert search.proved == (record["status"] == "proved") == root.proved
        if search.proved:
            proved += 1
            assert root.steps == len(record["result"]["proof"])
            assert any(a.solves for a in search.attempts if a.outcome == "proved")
        else:
            assert not any(a.solves or s.proved for a in search.attempts for s in search.states)
    assert 0 < proved < len(records)


def _log(tmp_path, events):
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


GOAL = {"hypotheses": [["n", "nat"]], "target": "n + 0 = n"}


def test_labels_follow_merged_states_to_the_proof(tmp_path):
    """State 3 is reached again as state 4 (``same_as``), and the proof goes on from 4: the tactic
    that reached 3 solves, the state is proved in one step, the root in two; the error does not
    solve, nor ``intros.``, which leaves the root as it was (state 5 is the root again), nor
    ``f_equal.``, whose state 6 is proved only by going back to 3 (``undo.``, which solves). Fails
    if merged states are not followed, distances are off by one, or a step that does not get
    closer to the proof is taken for one that does."""
    path = _log(tmp_path, [
        {"event": "start", "theorem": "t"},
        {"event": "state", "state": 1, "goals": [GOAL]},
        {"event": "proposed", "state": 1, "candidates": [["induction n.", "automation", -0.5], ["lia.", "decision", -2.0]]},
        {"event": "tactic", "state": 1, "tactic": "lia.", "outcome": "timeout", "seconds": 5.0, "next_state": None},
        {"event": "state", "state": 3, "goals": [{"hypotheses": [], "target": "0 + 0 = 0"}]},
        {"event": "tactic", "state": 1, "tactic": "induction  n.", "outcome": "state", "seconds": 0.01, "next_state": 3},
        {"event": "state", "state": 4, "same_as": 3},
        {"event": "tactic", "state": 4, "tactic": "reflexivity.", "outcome": "proved", "seconds": 0.002,
         "next_state": None, "logprob": -0.3},
        {"event": "state", "state": 5, "same_as": 1},
        {"event": "tactic", "state": 1, "tactic": "intros.", "outcome": "state", "seconds": 0.001, "next_state": 5},
        {"event": "state", "state": 6, "goals": [{"hypotheses": [], "target": "S 0 + 0 = S 0"}]},
        {"event": "tactic", "state": 3, "tactic": "f_equal.", "outcome": "state", "seconds": 0.001, "next_state": 6},
        {"event": "tactic", "state": 6, "tactic": "undo.", "outcome": "state", "seconds": 0.001, "next_state": 3},
        {"event": "end", "status": "proved"},
    ])
    search = read_log(path)
    assert [(s.text, s.proved, s.steps) for s in search.states] == [
        ("n : nat\n|- n + 0 = n", True, 2), ("|- 0 + 0 = 0", True, 1), ("|- S 0 + 0 = S 0", True, 2)]
    assert [(a.state, a.member, a.prior, a.outcome, a.solves) for a in search.attempts] == [
        (0, "decision", -2.0, "timeout", False), (0, "automation", -0.5, "state", True),
        (1, "unknown", -0.3, "proved", True), (0, "unknown", 0.0, "state", False),
        (1, "unknown", 0.0, "state", False), (2, "unknown", 0.0, "state", True)]


@pytest.mark.parametrize("line, message", [
    ("{not json", r"log.jsonl:2 is not JSON"),
    ('["a list"]', r"log.jsonl:2: a JSON list is not a search event"),
    ('{"event": "tactic", "state": 1}', r"log.jsonl:2: a 'tactic' event's field 'tactic' is missing"),
    ('{"event": "tactic", "state": "1", "tactic": "auto.", "outcome": "error"}',
     r"log.jsonl:2: a 'tactic' event's field 'state' is str '1', not an integer"),
    ('{"event": "tactic", "state": 9, "tactic": "auto.", "outcome": "error", "seconds": 0.1}',
     r"tactic 'auto.' runs on state 9, which no 'state' event describes"),
])
def test_a_damaged_log_is_one_error_naming_it(tmp_path, line, message):
    """Fails if a damaged log is skipped silently or raises a bare traceback type."""
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps({"event": "state", "state": 1, "goals": [GOAL]}) + "\n" + line + "\n")
    with pytest.raises(ActionLogError, match=message) as info:
        read_log(path)
    assert "\n" not in str(info.value) and str(path) in str(info.value)


def test_data_round_trips_with_its_provenance_and_other_provenance_is_refused(synthetic_run, tmp_path):
    """Written search data reads back equal; data of another Coq version or library is refused in
    one line naming the file. Fails if provenance is dropped or not compared."""
    searches = read_run(synthetic_run)
    here = Provenance("8.16.1", "coq-stdlib")
    count = write_data(tmp_path / "data.jsonl", here, searches)
    assert count == sum(len(s.attempts) for s in searches) > 0
    assert read_data(tmp_path / "data.jsonl", here) == (here, searches)
    for other in (Provenance("8.18.0", "coq-stdlib"), Provenance("8.16.1", "coq-project:/p")):
        with pytest.raises(ActionLogError, match=r"data\.jsonl: search data of .*refusing to mix it in"):
            read_data(tmp_path / "data.jsonl", other)
    check_compatible(here, here, "x")
    (tmp_path / "bad.jsonl").write_text('{"provenance": {"coq_version": "8.16.1"}}\n')
    with pytest.raises(ActionLogError, match=r"bad\.jsonl is unreadable .*delete it and rerun"):
        read_data(tmp_path / "bad.jsonl")


def test_a_directory_without_results_is_not_a_run(tmp_path):
    with pytest.raises(ActionLogError, match="is not an evaluation run directory"):
        read_run(tmp_path)
