"""What a prover's own searches teach: the tactics they tried, read back from a run's action logs.

An evaluation run (:mod:`prover.run.evaluation`) writes one action log per (theorem, attempt):
JSON lines of search events. The events this module reads are

* ``state``: a proof state the search reached, its ``goals`` (hypotheses and target), or
  ``same_as`` an earlier state with the same key (the search merged them);
* ``proposed``: the candidates of a union generator for a state, ``[tactic, member, tier score]``
  each (:meth:`prover.coq.default_generator.CoqDefaultGenerator.proposers`);
* ``tactic``: one tactic run on a state, its ``outcome`` (``state``, ``proved``, ``error``,
  ``timeout``, ``crash``, ``refused``, ``given_up``), the ``next_state`` and the ``seconds`` it took.

From these, every tried (state, tactic) becomes an :class:`Attempt` with its member, tier score,
outcome and time, and whether it *solved* its state: it finished the proof, or took a step along
the shortest proof the search found from there (a tactic that leaves its state as it was, or leads
to a state proved only by coming back, does not solve). Every state becomes a :class:`StateRecord` with whether it got proved and
in how few tactic steps (the shortest path to ``proved`` in the search graph). These are the
policy's and the value's training targets in :mod:`generator.learned_policy`.

Data carries its provenance (:class:`Provenance`: the Coq version and the library the searches ran
on), because a tactic's outcome depends on both: data of another Coq or library is refused
(:func:`check_compatible`), never mixed in.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from search_tree.errors import UserError
from search_tree.events import (
    Ended,
    LoggedGoal,
    MalformedEvent,
    Proposed,
    SearchEvent,
    Started,
    StateLogged,
    TacticRun,
    parse_event,
)
from search_tree.protocol import TacticState
from search_tree.safe_files import UnsafePath, read_json, read_regular, record_log, replace_file

#: outcomes that are a failure of the tactic (the rest: ``state`` and ``proved``)
FAILURES = frozenset({"error", "timeout", "crash", "refused", "given_up"})
#: the member name of a tactic a log does not attribute (a generator that is not a union)
UNATTRIBUTED = "unknown"


class ActionLogError(UserError, ValueError):
    """An action log, run directory or data file that cannot be read as what it claims to be."""


@dataclass(frozen=True)
class Provenance:
    """Where search data comes from: it is comparable only with data of the same Coq and library."""

    coq_version: str
    library: str

    def describe(self) -> str:
        return f"Coq {self.coq_version}, library {self.library}"


#: a run directory's record of its :class:`Provenance`, written by ``eval`` (``learn``'s rounds too)
PROVENANCE_FILE = "provenance.json"


def write_provenance(run_dir: Path, provenance: Provenance) -> None:
    """Record which prover and library the searches of ``run_dir`` ran on: the one writer of
    :data:`PROVENANCE_FILE`, so that a run's action logs are never read as another version's."""
    replace_file(run_dir / PROVENANCE_FILE, json.dumps(asdict(provenance), indent=2).encode())


def read_provenance(run_dir: Path) -> Provenance | None:
    """The :class:`Provenance` ``run_dir`` records, None when it records none; an
    :class:`ActionLogError` naming the file when it is not a provenance record (read as a regular
    file only: a run directory is untrusted, and a link or a FIFO there is refused)."""
    path = run_dir / PROVENANCE_FILE
    try:
        record = read_json(path)
    except ValueError as exc:
        raise ActionLogError(f"{path} {exc}; it is not a provenance record") from None
    if record is None:
        return None
    if not (isinstance(record, dict) and set(record) == {"coq_version", "library"}
            and all(isinstance(v, str) and v for v in record.values())):
        raise ActionLogError(f"{path} is not a provenance record (an object with strings coq_version and library): "
                             f"{json.dumps(record)[:80]}")
    return Provenance(**record)


@dataclass(frozen=True)
class StateRecord:
    """A state a search reached: its printed goals, whether the search proved it, in how many steps."""

    text: str
    proved: bool
    steps: int | None  # tactic steps of the shortest proof found from it; None if not proved


@dataclass(frozen=True)
class Attempt:
    """One tactic a search ran on ``states[state]`` of its :class:`SearchData`."""

    state: int
    tactic: str
    member: str
    prior: float  # the member's score shifted by its tier (or the logged score, unattributed)
    outcome: str
    seconds: float
    solves: bool  # finished the proof, or led to a state the search proved


@dataclass(frozen=True)
class SearchData:
    """Everything one action log says about one search."""

    theorem: str
    proved: bool
    states: list[StateRecord]
    attempts: list[Attempt]


def state_text(goals: Iterable[LoggedGoal]) -> str:
    """One text for a logged state's goals: each goal's hypotheses ``name : type``, then ``|- target``,
    one line each (a type or target printed over several lines is joined), goals apart by a blank line."""
    def flat(text: str) -> str:
        return " ".join(str(text).split())

    parts = []
    for goal in goals:
        hyps = [f"{flat(name)} : {flat(type_)}" for name, type_ in goal.hypotheses]
        parts.append("\n".join([*hyps, f"|- {flat(goal.target)}"]))
    return "\n\n".join(parts)


def live_state_text(state: TacticState) -> str:
    """:func:`state_text` of a live state, as its ``state`` event logs it, so that training and
    search see one text."""
    return state_text(LoggedGoal(g.target, tuple((h.name, h.type) for h in g.hypotheses)) for g in state.goals)


def _events(path: Path) -> Iterator[SearchEvent]:
    try:  # a record names it: a regular file only (no link, FIFO or device)
        data = read_regular(path)
        if data is None:
            raise FileNotFoundError(f"no file {path}")
        lines = data.decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ActionLogError(f"action log {path} cannot be read ({exc})") from exc
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ActionLogError(f"action log {path}:{number} is not JSON ({exc.msg})") from exc
        try:
            yield parse_event(event)
        except MalformedEvent as exc:
            raise ActionLogError(f"action log {path}:{number}: {exc}") from exc


def read_log(path: str | Path) -> SearchData:
    """The :class:`SearchData` of one action log (raises :class:`ActionLogError` naming a bad line)."""
    path = Path(path)
    goals: dict[int, str] = {}
    alias: dict[int, int] = {}
    members: dict[tuple[int, str], tuple[str, float]] = {}
    tried: list[TacticRun] = []
    theorem, proved = "", False
    for event in _events(path):
        if isinstance(event, Started):
            theorem = event.theorem
        elif isinstance(event, Ended):
            proved = event.status == "proved"
        elif isinstance(event, StateLogged):
            if event.same_as is not None:
                alias[event.state] = event.same_as
            else:
                goals[event.state] = state_text(event.goals or ())
        elif isinstance(event, Proposed):
            for c in event.candidates:
                members[(event.state, " ".join(c.tactic.split()))] = (c.member, c.score)
        elif isinstance(event, TacticRun):
            tried.append(event)

    def canonical(state: int) -> int:
        return alias.get(state, state)

    # the search graph over canonical states, then each state's shortest distance to a proof
    edges: dict[int, list[int]] = defaultdict(list)
    distance: dict[int, int] = {}
    for t in tried:
        source = canonical(t.state)
        if t.outcome == "proved":
            distance[source] = 1
        elif t.outcome == "state" and t.next_state is not None:
            edges[source].append(canonical(t.next_state))
    changed = True
    while changed:  # Bellman-Ford on unit weights: the graph is small and may hold merged cycles
        changed = False
        for source, targets in edges.items():
            best = min((distance[t] + 1 for t in targets if t in distance), default=None)
            if best is not None and best < distance.get(source, best + 1):
                distance[source] = best
                changed = True

    index: dict[int, int] = {}
    states: list[StateRecord] = []
    for state_id, text in goals.items():
        index[state_id] = len(states)
        states.append(StateRecord(text, state_id in distance, distance.get(state_id)))
    attempts = []
    for t in tried:
        source = canonical(t.state)
        if source not in index:
            raise ActionLogError(f"action log {path}: tactic {t.tactic!r} runs on state {t.state}, "
                                 "which no 'state' event describes")
        unattributed = (UNATTRIBUTED, 0.0 if t.logprob is None else t.logprob)
        member, prior = members.get((t.state, " ".join(t.tactic.split())), unattributed)
        nxt = None if t.next_state is None else canonical(t.next_state)
        # a step along a shortest proof: not back to its own state, nor into a state proved only
        # by coming back through this one
        solves = t.outcome == "proved" or (
            t.outcome == "state" and nxt in distance and distance[nxt] < distance.get(source, 0))
        attempts.append(Attempt(index[source], t.tactic, member, prior, t.outcome, t.seconds, solves))
    return SearchData(theorem, proved, states, attempts)


def run_logs(run_dir: str | Path) -> list[Path]:
    """The action logs of an evaluation run directory's recorded results, in result order."""
    run_dir = Path(run_dir)
    results = run_dir / "results.jsonl"
    data = read_regular(results)  # a run directory is untrusted: a link or a FIFO is refused
    if data is None:
        raise ActionLogError(f"{run_dir} is not an evaluation run directory (no results.jsonl)")
    logs = []
    for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            log = json.loads(line).get("log")
        except (json.JSONDecodeError, AttributeError) as exc:
            raise ActionLogError(f"{results}:{number} is not a result record") from exc
        if log:
            try:
                logs.append(record_log(run_dir, log))
            except UnsafePath as exc:
                raise ActionLogError(f"{results}:{number}: {exc}") from None
    return logs


def read_run(run_dir: str | Path) -> list[SearchData]:
    """Every search of an evaluation run directory (a run without action logs gives none)."""
    return [read_log(path) for path in run_logs(run_dir)]


def check_compatible(expected: Provenance, found: Provenance, source: str | Path) -> None:
    """Refuse data of another Coq version or library: a tactic's outcome there says nothing here."""
    if found != expected:
        raise ActionLogError(f"{source}: search data of {found.describe()}, not {expected.describe()}; "
                             "refusing to mix it in (learn from runs of the same Coq and library)")


def write_data(path: str | Path, provenance: Provenance, searches: Iterable[SearchData]) -> int:
    """Write ``searches`` as JSON lines after a provenance header; returns the number of attempts."""
    path = Path(path)
    count = 0
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as out:
        out.write(json.dumps({"provenance": asdict(provenance)}) + "\n")
        for search in searches:
            count += len(search.attempts)
            out.write(json.dumps({"theorem": search.theorem, "proved": search.proved,
                                  "states": [asdict(s) for s in search.states],
                                  "attempts": [asdict(a) for a in search.attempts]}, ensure_ascii=False) + "\n")
    tmp.replace(path)
    return count


def read_data(path: str | Path, expected: Provenance | None = None) -> tuple[Provenance, list[SearchData]]:
    """A file of :func:`write_data`; with ``expected``, refused unless its provenance matches."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
        provenance = Provenance(**json.loads(lines[0])["provenance"])
        searches = []
        for line in lines[1:]:
            record = json.loads(line)
            searches.append(SearchData(record["theorem"], record["proved"],
                                       [StateRecord(**s) for s in record["states"]],
                                       [Attempt(**a) for a in record["attempts"]]))
    except (OSError, UnicodeDecodeError, IndexError, KeyError, TypeError, json.JSONDecodeError) as exc:
        raise ActionLogError(f"search data {path} is unreadable ({type(exc).__name__}: {exc}); "
                             "delete it and rerun the command that wrote it") from exc
    if expected is not None:
        check_compatible(expected, provenance, path)
    return provenance, searches
