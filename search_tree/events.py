"""The events of a search, one class per kind, shared by whatever writes them and whatever reads them.

A search reports what it does through :class:`search_tree.Meter` (``state``, ``tactic``,
``generate``, ``focus``, and each algorithm's ``expand``, ``cycle``, ``merge``, ``split``); the
prover adds ``proposed`` (who proposed which tactic) and ``verify`` (the re-check), and an
evaluation run frames each search's log with ``start`` and ``end``. Every event serialises to one
JSON object, ``{"event": KIND, "t": SECONDS, ...fields}`` (:meth:`SearchEvent.to_json`), and
:func:`parse_event` reads it back. A field that is ``None`` is left out of the JSON, and a missing
optional field reads as ``None``.

Action logs are read from run directories, which anyone may have edited: :func:`parse_event`
checks every field against the type the search writes (an id is an integer, an outcome one a
search logs, a goal's target text) and refuses anything else with a one-line
:class:`MalformedEvent` naming the field, so that no reader ever works on something else.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from search_tree.errors import UserError
from search_tree.protocol import ErrorKind
from search_tree.result import StopReason

#: The outcomes of a call into the prover as events log them (:func:`search_tree.budget.outcome_name`):
#: a new state, the proof finished, a give-up, and the backend's failures.
OUTCOMES = ("state", "proved", "given_up", *(kind.value for kind in ErrorKind))


class MalformedEvent(UserError, ValueError):
    """A JSON object that is not a search event (unknown kind, a field missing or of the wrong type)."""


@dataclass(frozen=True, kw_only=True)
class SearchEvent:
    """What every event has: its kind (the JSON ``event``) and when it happened.

    ``t`` is the time since the search began, in seconds; the meter stamps it (``None`` for the
    events the prover and the run add around a search).
    """

    kind: ClassVar[str]
    t: float | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON object of this event; fields that are ``None`` are left out."""
        data: dict[str, Any] = {"event": self.kind}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None:
                data[f.name] = _plain(value)
        return data


def _plain(value: Any) -> Any:
    """``value`` as JSON data: nested events' parts become lists and objects."""
    if isinstance(value, (LoggedGoal, Proposal)):
        return value.to_json()
    if isinstance(value, StopReason):
        return str(value)
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True)
class LoggedGoal:
    """One goal of a logged state: its hypotheses ``(name, type)``, its target and its name, if any."""

    target: str
    hypotheses: tuple[tuple[str, str], ...] = ()
    name: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "hypotheses": [list(h) for h in self.hypotheses], "target": self.target}


@dataclass(frozen=True)
class Proposal:
    """One tactic a union generator proposed: the member that proposed it and its tier score."""

    tactic: str
    member: str
    score: float

    def to_json(self) -> list[Any]:
        return [self.tactic, self.member, self.score]


@dataclass(frozen=True, kw_only=True)
class StateLogged(SearchEvent):
    """A state the search met: its ``goals``, or ``same_as`` the first state logged with the same key
    (the search merges them). Exactly one of the two is set."""

    kind: ClassVar[str] = "state"
    state: int
    goals: tuple[LoggedGoal, ...] | None = None
    same_as: int | None = None


@dataclass(frozen=True, kw_only=True)
class TacticRun(SearchEvent):
    """One tactic run on ``state``: its outcome (one of :data:`OUTCOMES`), the state it led to, the
    prover's message on failure, and the search's own numbers (best-first's ``logprob``, MCTS's ``prior``)."""

    kind: ClassVar[str] = "tactic"
    state: int
    tactic: str
    outcome: str
    next_state: int | None = None
    message: str | None = None
    seconds: float = 0.0
    logprob: float | None = None
    prior: float | None = None


@dataclass(frozen=True, kw_only=True)
class Generated(SearchEvent):
    """One generator call for ``state``: how many suggestions it made, in how many seconds."""

    kind: ClassVar[str] = "generate"
    state: int
    num: int
    seconds: float


@dataclass(frozen=True, kw_only=True)
class Focused(SearchEvent):
    """One focusing call: goal ``goal`` (0-based) of ``state``, and where it led."""

    kind: ClassVar[str] = "focus"
    state: int
    goal: int
    outcome: str
    next_state: int | None = None
    seconds: float = 0.0


@dataclass(frozen=True, kw_only=True)
class Expanded(SearchEvent):
    """A state expanded: best-first logs its ``priority``; MCTS its ``visits``, ``value`` and how many
    tactics it has (``tactics``), of which ``new_tactics`` came from this expansion."""

    kind: ClassVar[str] = "expand"
    state: int
    depth: int
    priority: float | None = None
    visits: int | None = None
    value: float | None = None
    new_tactics: int | None = None
    tactics: int | None = None


@dataclass(frozen=True, kw_only=True)
class Cycled(SearchEvent):
    """The tactic just run at ``state`` led back to ``to``, a state on its own path: a dead edge."""

    kind: ClassVar[str] = "cycle"
    state: int
    tactic: str
    to: int


@dataclass(frozen=True, kw_only=True)
class Merged(SearchEvent):
    """The tactic just run at ``state`` led where the sibling tactic ``into`` had led (MCTS)."""

    kind: ClassVar[str] = "merge"
    state: int
    tactic: str
    into: str


@dataclass(frozen=True, kw_only=True)
class Split(SearchEvent):
    """``state`` split into one focused state per goal (``goals``: their ids), proved independently."""

    kind: ClassVar[str] = "split"
    state: int
    goals: tuple[int, ...]


@dataclass(frozen=True, kw_only=True)
class Proposed(SearchEvent):
    """Who proposed which tactic for ``state`` (a union generator)."""

    kind: ClassVar[str] = "proposed"
    state: int
    candidates: tuple[Proposal, ...]


@dataclass(frozen=True, kw_only=True)
class Verified(SearchEvent):
    """The independent re-check of the proof found: its verdict and the checker's message."""

    kind: ClassVar[str] = "verify"
    ok: bool
    message: str = ""


@dataclass(frozen=True, kw_only=True)
class Started(SearchEvent):
    """The first line of an evaluation run's action log: which attempt, where it ran, after how many retries."""

    kind: ClassVar[str] = "start"
    theorem: str
    attempt: int = 0
    seed: int = 0
    worker: int = -1
    node: str = ""
    retries: int = 0


@dataclass(frozen=True, kw_only=True)
class Ended(SearchEvent):
    """The last line of an evaluation run's action log: the result's status and stop reason."""

    kind: ClassVar[str] = "end"
    status: str
    stop_reason: StopReason | None = None


EVENTS: dict[str, type[SearchEvent]] = {cls.kind: cls for cls in (
    StateLogged, TacticRun, Generated, Focused, Expanded, Cycled, Merged, Split, Proposed, Verified, Started, Ended)}

#: what each field type is called in an error message (the JSON's words)
_JSON_NAMES: dict[Any, str] = {int: "an integer", (int, float): "a number", str: "a string", bool: "true or false",
                               list: "a list", dict: "an object"}


class _Fields:
    """The fields of one JSON event, each read as a type or refused in one line naming it."""

    def __init__(self, data: dict[str, Any], kind: str) -> None:
        self.data = data
        self.kind = kind

    def fail(self, name: str, problem: str) -> MalformedEvent:
        return MalformedEvent(f"a {self.kind!r} event's field {name!r} {problem}")

    def get(self, name: str, want: type | tuple[type, ...], optional: bool = False,
            default: Any = None) -> Any:
        if name not in self.data or self.data[name] is None:
            if optional:
                return default
            raise self.fail(name, "is missing")
        return self.check(self.data[name], name, want)

    def check(self, value: Any, name: str, want: type | tuple[type, ...]) -> Any:
        # a bool is an int to Python, never a number or an id in an event
        if not isinstance(value, want) or (isinstance(value, bool) and want is not bool):
            raise self.fail(name, f"is {_shown(value)}, not {_JSON_NAMES[want]}")
        return value

    def number(self, name: str) -> float:
        return float(self.get(name, (int, float)))

    def optional_number(self, name: str) -> float | None:
        value = self.get(name, (int, float), optional=True)
        return None if value is None else float(value)

    def next_state(self, outcome: str) -> int | None:
        """The ``next_state`` of a call into the prover: required when the call led to a state."""
        return self.get("next_state", int, optional=outcome != "state")

    def outcome(self, name: str) -> str:
        value = self.get(name, str)
        if value not in OUTCOMES:
            raise self.fail(name, f"is {_shown(value)}, not an outcome a search logs ({', '.join(OUTCOMES)})")
        return value

    def goals(self, name: str) -> tuple[LoggedGoal, ...] | None:
        raw = self.get(name, list, optional=True)
        if raw is None:
            return None
        goals = []
        for goal in raw:
            goal = self.check(goal, f"{name}[]", dict)
            hypotheses = []
            for pair in self.check(goal.get("hypotheses", []), f"{name}[].hypotheses", list):
                if not isinstance(pair, list) or len(pair) != 2 or not all(isinstance(p, str) for p in pair):
                    raise self.fail(f"{name}[].hypotheses", f"holds {_shown(pair)}, not a [name, type] pair of texts")
                hypotheses.append((pair[0], pair[1]))
            target = self.check(goal.get("target"), f"{name}[].target", str)
            goal_name = goal.get("name")
            if goal_name is not None:
                self.check(goal_name, f"{name}[].name", str)
            goals.append(LoggedGoal(target, tuple(hypotheses), goal_name))
        return tuple(goals)

    def ints(self, name: str) -> tuple[int, ...]:
        return tuple(self.check(v, f"{name}[]", int) for v in self.get(name, list))

    def candidates(self, name: str) -> tuple[Proposal, ...]:
        out = []
        for item in self.get(name, list):
            if (not isinstance(item, list) or len(item) != 3 or not isinstance(item[0], str)
                    or not isinstance(item[1], str) or not isinstance(item[2], (int, float))
                    or isinstance(item[2], bool)):
                raise self.fail(name, f"holds {_shown(item)}, not a [tactic, member, score] triple")
            out.append(Proposal(item[0], item[1], float(item[2])))
        return tuple(out)


def _shown(value: Any) -> str:
    """A short printing of an untrusted value for an error message."""
    text = repr(value)
    return f"{type(value).__name__} {text[:40]}{'...' if len(text) > 40 else ''}"


def parse_event(data: Any) -> SearchEvent:
    """The event a JSON object of an action log holds; :class:`MalformedEvent` if it holds none.

    Fields the event's kind does not have are ignored (a newer writer's additions)."""
    if not isinstance(data, dict):
        raise MalformedEvent(f"a JSON {type(data).__name__} is not a search event (an object with an 'event')")
    kind = data.get("event")
    cls = EVENTS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise MalformedEvent(f"{_shown(kind)} is not an event kind ({', '.join(EVENTS)})")
    f = _Fields(data, cls.kind)
    t = f.optional_number("t")
    if cls is StateLogged:
        same_as = f.get("same_as", int, optional=True)
        goals = f.goals("goals")
        if (same_as is None) == (goals is None):
            raise f.fail("goals", "and 'same_as' are both given or both missing: a state event has one")
        return StateLogged(t=t, state=f.get("state", int), goals=goals, same_as=same_as)
    if cls is TacticRun:
        state, tactic, outcome = f.get("state", int), f.get("tactic", str), f.outcome("outcome")
        return TacticRun(t=t, state=state, tactic=tactic, outcome=outcome, next_state=f.next_state(outcome),
                         message=f.get("message", str, optional=True),
                         seconds=f.optional_number("seconds") or 0.0,
                         logprob=f.optional_number("logprob"), prior=f.optional_number("prior"))
    if cls is Generated:
        return Generated(t=t, state=f.get("state", int), num=f.get("num", int), seconds=f.number("seconds"))
    if cls is Focused:
        state, goal, outcome = f.get("state", int), f.get("goal", int), f.outcome("outcome")
        return Focused(t=t, state=state, goal=goal, outcome=outcome, next_state=f.next_state(outcome),
                       seconds=f.optional_number("seconds") or 0.0)
    if cls is Expanded:
        return Expanded(t=t, state=f.get("state", int), depth=f.get("depth", int),
                        priority=f.optional_number("priority"), visits=f.get("visits", int, optional=True),
                        value=f.optional_number("value"), new_tactics=f.get("new_tactics", int, optional=True),
                        tactics=f.get("tactics", int, optional=True))
    if cls is Cycled:
        return Cycled(t=t, state=f.get("state", int), tactic=f.get("tactic", str), to=f.get("to", int))
    if cls is Merged:
        return Merged(t=t, state=f.get("state", int), tactic=f.get("tactic", str), into=f.get("into", str))
    if cls is Split:
        return Split(t=t, state=f.get("state", int), goals=f.ints("goals"))
    if cls is Proposed:
        return Proposed(t=t, state=f.get("state", int), candidates=f.candidates("candidates"))
    if cls is Verified:
        return Verified(t=t, ok=f.get("ok", bool), message=f.get("message", str, optional=True, default=""))
    if cls is Started:
        return Started(t=t, theorem=f.get("theorem", str), attempt=f.get("attempt", int, optional=True, default=0),
                       seed=f.get("seed", int, optional=True, default=0),
                       worker=f.get("worker", int, optional=True, default=-1),
                       node=f.get("node", str, optional=True, default=""),
                       retries=f.get("retries", int, optional=True, default=0))
    assert cls is Ended
    reason = f.get("stop_reason", str, optional=True)
    try:
        stop_reason = None if reason is None else StopReason.parse(reason)
    except UserError as exc:
        raise f.fail("stop_reason", f"is not a stop reason ({exc})") from None
    return Ended(t=t, status=f.get("status", str), stop_reason=stop_reason)


def parse_events(lines: Iterable[str], source: str) -> tuple[list[SearchEvent], list[str]]:
    """The events of an action log's ``lines``, and one message per line that holds none, naming
    ``source`` and the line: such a line is left out, so that a damaged log still shows the rest of
    its search. Blank lines are skipped."""
    events: list[SearchEvent] = []
    problems: list[str] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            events.append(parse_event(json.loads(line)))
        except json.JSONDecodeError as exc:
            problems.append(f"{source}:{number} is not valid JSON ({exc}); that event is left out")
        except MalformedEvent as exc:
            problems.append(f"{source}:{number}: {exc}; that event is left out")
    return events, problems
