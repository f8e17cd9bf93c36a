"""Search events and stop reasons: what the searches write reads back as the same objects, a
malformed event is refused in one line naming its field, and action logs and results written
before the events were classes (``tests/fixtures/legacy_runs``, written by a synthetic evaluation
with the code of that time) still read."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from generator import FixedTacticGenerator
from generator.action_data import read_log
from prover.proof_search import BestFirstSearchProver, MCTSProver
from prover.run.analysis import load_run, retries_by_kind, stop_kind
from scripted_env import ScriptedEnv
from search_tree import StopKind, StopReason, Theorem
from search_tree.errors import UserError
from search_tree.events import (
    EVENTS,
    Cycled,
    Ended,
    Expanded,
    Focused,
    Generated,
    LoggedGoal,
    MalformedEvent,
    Merged,
    Proposal,
    Proposed,
    SearchEvent,
    Split,
    Started,
    StateLogged,
    TacticRun,
    Verified,
    parse_event,
    parse_events,
)

LEGACY = Path(__file__).resolve().parents[1] / "fixtures" / "legacy_runs"

ONE_OF_EACH: list[SearchEvent] = [
    StateLogged(t=0.0, state=0, goals=(LoggedGoal("n + 0 = n", (("n", "nat"),), "base"), LoggedGoal("True"))),
    StateLogged(t=0.1, state=4, same_as=0),
    TacticRun(t=0.2, state=0, tactic="intros.", outcome="state", next_state=4, seconds=0.01, logprob=-0.5),
    TacticRun(t=0.3, state=0, tactic="lia.", outcome="timeout", message="Timeout!", seconds=5.0, prior=0.25),
    Generated(t=0.4, state=0, num=7, seconds=0.002),
    Focused(t=0.5, state=4, goal=1, outcome="state", next_state=9, seconds=0.001),
    Focused(t=0.6, state=4, goal=2, outcome="refused"),
    Expanded(t=0.7, state=0, depth=0, priority=-1.5),
    Expanded(t=0.8, state=4, depth=1, visits=3, value=0.5, new_tactics=2, tactics=5),
    Cycled(t=0.9, state=4, tactic="idtac.", to=4),
    Merged(t=1.0, state=0, tactic="intro n.", into="intros."),
    Split(t=1.1, state=4, goals=(9, 10)),
    Proposed(state=0, candidates=(Proposal("lia.", "decision", -2.0), Proposal("auto.", "automation", -0.5))),
    Verified(ok=False, message="Error: no"),
    Started(theorem="t", attempt=1, seed=7, worker=2, node="abc", retries=1),
    Ended(t=1.2, status="failed", stop_reason=StopReason(StopKind.ENVIRONMENT_FAILURE, "coqtop: died")),
]


def test_every_kind_of_event_reads_back_equal_from_its_json():
    """Fails if a field is dropped, renamed or changes type on the way to disk and back."""
    assert {type(e) for e in ONE_OF_EACH} == set(EVENTS.values())
    for event in ONE_OF_EACH:
        data = json.loads(json.dumps(event.to_json()))
        assert data["event"] == event.kind and parse_event(data) == event, data


def test_the_json_is_the_format_action_logs_have():
    """Fails if the on-disk field names or shapes change (older readers and the fixtures rely on them)."""
    assert ONE_OF_EACH[0].to_json() == {"event": "state", "t": 0.0, "state": 0, "goals": [
        {"name": "base", "hypotheses": [["n", "nat"]], "target": "n + 0 = n"},
        {"name": None, "hypotheses": [], "target": "True"}]}
    assert ONE_OF_EACH[3].to_json() == {"event": "tactic", "t": 0.3, "state": 0, "tactic": "lia.", "outcome": "timeout",
                                        "message": "Timeout!", "seconds": 5.0, "prior": 0.25}
    assert ONE_OF_EACH[12].to_json() == {"event": "proposed", "state": 0,
                                         "candidates": [["lia.", "decision", -2.0], ["auto.", "automation", -0.5]]}
    assert ONE_OF_EACH[-1].to_json() == {"event": "end", "t": 1.2, "status": "failed",
                                         "stop_reason": "environment_failure: coqtop: died"}


@pytest.mark.parametrize("search", ["best_first", "mcts"])
def test_what_a_search_emits_reads_back_equal(search):
    """The events of real searches (best-first and AND-OR MCTS over a scripted backend that can
    focus) survive JSON. Fails if a producer writes a field the parser refuses or reads differently."""
    graph = {"s0": {"intro": "s1", "intros": "s1"}, "s1": {"split": "s2", "idtac": "s1"}, "s2": {"both": "proved"},
             "gA": {"a": "proved"}, "gB": {"b": "proved"}}
    generator = FixedTacticGenerator(["intro", "intros", "split", "idtac", "a", "b", "both"])
    prover = (BestFirstSearchProver(generator, timeout=10) if search == "best_first"
              else MCTSProver(generator, timeout=10, max_simulations=40))
    events: list[SearchEvent] = []
    env = ScriptedEnv(graph, goals={"s2": ["gA", "gB"]})
    result = prover.search(env, Theorem("t"), on_event=events.append)
    assert result.stop_reason == StopReason(StopKind.PROVED)
    kinds = {e.kind for e in events}
    assert {"state", "tactic", "generate", "expand", "cycle", "verify"} <= kinds
    assert search == "best_first" or {"focus", "split", "merge"} <= kinds
    lines = [json.dumps(e.to_json()) for e in events]
    assert parse_events(lines, "log") == (events, [])


MALFORMED = [
    ([1, 2], "a JSON list is not a search event"),
    ({"state": 1}, "None is not an event kind"),
    ({"event": "guess"}, "str 'guess' is not an event kind"),
    ({"event": "tactic", "state": 1, "outcome": "error"}, "a 'tactic' event's field 'tactic' is missing"),
    ({"event": "tactic", "state": True, "tactic": "a", "outcome": "error"},
     "a 'tactic' event's field 'state' is bool True, not an integer"),
    ({"event": "tactic", "state": 1, "tactic": "a", "outcome": "won"},
     "a 'tactic' event's field 'outcome' is str 'won', not an outcome a search logs"),
    ({"event": "tactic", "state": 1, "tactic": "a", "outcome": "state"}, "a 'tactic' event's field 'next_state' is missing"),
    ({"event": "tactic", "state": 1, "tactic": "a", "outcome": "error", "seconds": "1"},
     "a 'tactic' event's field 'seconds' is str '1', not a number"),
    ({"event": "tactic", "t": [0], "state": 1, "tactic": "a", "outcome": "error"},
     "a 'tactic' event's field 't' is list [0], not a number"),
    ({"event": "state", "state": 1}, "a 'state' event's field 'goals' and 'same_as' are both given or both missing"),
    ({"event": "state", "state": 1, "same_as": 0, "goals": []}, "'goals' and 'same_as' are both given"),
    ({"event": "state", "state": 1, "goals": [{"target": 3}]}, "a 'state' event's field 'goals[].target' is int 3"),
    ({"event": "state", "state": 1, "goals": [{"target": "x", "hypotheses": [["h"]]}]},
     "field 'goals[].hypotheses' holds list ['h'], not a [name, type] pair of texts"),
    ({"event": "state", "state": 1, "goals": ["x"]}, "field 'goals[]' is str 'x', not an object"),
    ({"event": "split", "state": 1, "goals": [1, "2"]}, "a 'split' event's field 'goals[]' is str '2', not an integer"),
    ({"event": "proposed", "state": 1, "candidates": [["a", "m"]]},
     "field 'candidates' holds list ['a', 'm'], not a [tactic, member, score] triple"),
    ({"event": "verify", "ok": 1}, "a 'verify' event's field 'ok' is int 1, not true or false"),
    ({"event": "expand", "state": 1}, "a 'expand' event's field 'depth' is missing"),
    ({"event": "end", "status": "open", "stop_reason": "bored"},
     "a 'end' event's field 'stop_reason' is not a stop reason (stop reason 'bored' names no kind"),
]


@pytest.mark.parametrize("data, message", MALFORMED)
def test_a_malformed_event_is_refused_in_one_line_naming_its_field(data, message):
    """Fails if an event of the wrong shape is accepted, or refused with a bare traceback type."""
    with pytest.raises(MalformedEvent, match=re.escape(message)) as info:
        parse_event(data)
    assert isinstance(info.value, UserError) and "\n" not in str(info.value)


def test_a_damaged_log_keeps_its_other_events_and_names_each_bad_line():
    good = [json.dumps(e.to_json()) for e in ONE_OF_EACH[:3]]
    events, problems = parse_events([good[0], "{torn", "", good[1], '{"event": "cycle"}', good[2]], "run/log.jsonl")
    assert events == ONE_OF_EACH[:3]
    assert [p.split(" ", 1)[0] for p in problems] == ["run/log.jsonl:2", "run/log.jsonl:5:"]


# -- stop reasons ----------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", list(StopKind))
def test_a_stop_reason_reads_back_from_its_text(kind):
    for reason in (StopReason(kind), StopReason(kind, "coqtop: died\nTraceback: ...")):
        assert StopReason.parse(str(reason)) == reason


def test_stop_reason_text_is_the_stored_form():
    """Fails if the text results files hold changes (old files and the report read it)."""
    assert str(StopReason(StopKind.MAX_EXPANSIONS)) == "max_expansions"
    assert str(StopReason(StopKind.NODE_LOST, "n1 left the cluster")) == "node_lost: n1 left the cluster"
    assert StopReason.parse("worker_error: ValueError: x: y") == StopReason(StopKind.WORKER_ERROR, "ValueError: x: y")
    long = StopReason(StopKind.WORKER_DIED, "a" * 300 + "\nsecond line")
    assert long.first_line() == StopReason(StopKind.WORKER_DIED, "a" * 200)
    with pytest.raises(UserError, match="stop reason 'environment failure' names no kind"):
        StopReason.parse("environment failure")


# -- run directories written before the change --------------------------------------------------

def test_legacy_action_logs_parse_and_write_back_the_same_json():
    """Every line of the logs a synthetic evaluation wrote before events were classes parses, and
    serialises back to the same object (but for fields that were written as null)."""
    logs = sorted(LEGACY.glob("*/logs/*.jsonl"))
    assert len(logs) == 8
    kinds = set()
    for log in logs:
        for line in log.read_text().splitlines():
            data = json.loads(line)
            event = parse_event(data)
            kinds.add(event.kind)
            assert event.to_json() == {k: v for k, v in data.items() if v is not None}, line
    assert kinds == {"start", "state", "generate", "expand", "tactic", "cycle", "focus", "split", "verify", "end"}


def test_legacy_run_directories_load_with_their_stop_reasons_and_retries():
    for name, proved, failed in (("best_first", 1, 0), ("mcts", 1, 1)):
        run = load_run(LEGACY / name)
        assert len(run.records) == 4 and run.skipped == []
        assert sum(r["status"] == "proved" for r in run.records) == proved
        assert sum(stop_kind(r["result"]["stop_reason"]) == "environment_failure" for r in run.records) == failed
        assert retries_by_kind(run.records) == {"environment_failure": 1}
        for record in run.records:
            events, problems = run.read_events(record)
            assert problems == [] and isinstance(events[0], Started) and isinstance(events[-1], Ended)
            assert events[-1].stop_reason == StopReason.parse(record["result"]["stop_reason"])
            assert sum(isinstance(e, (TacticRun, Focused)) for e in events) == record["result"]["num_env_calls"]
            search = read_log(run.path / record["log"])
            assert search.proved == (record["status"] == "proved") and search.theorem == record["key"]
