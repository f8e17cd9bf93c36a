"""Parse the proof states coqtop prints (Coq 8.16, ``-emacs``, unfocused goals shown).

coqtop prints the first focused goal with its hypotheses and only the targets of the others
(``goal 2 (ID 7) is:``); the hypotheses of goal ``i`` come from ``Show i.``, which prints the same
block under a ``goal i (ID n) is:`` header. The first line says how many goals are focused and
how many are shelved (``3 focused goals (shelved: 1) (ID 20)``); ``*** Unfocused goals:`` lists
the goals outside the current bullet or brace. Outcomes other than a list of goals are told by
exact messages of 8.16:

* ``No more goals.``: the proof is complete;
* ``No more goals, but there are some goals you gave up:``: ``admit``/``give_up`` was used;
* ``All the remaining goals are on the shelf.``: only shelved goals are left (``Unshelve.``);
* ``This subproof is complete, but there are some unfocused goals.``: the focused goals of a
  bullet or brace are solved and the next bullet (or ``}``) must come.

Tactics print their own messages inside ``<infomsg>`` tags, so these texts are matched only
outside tags and a tactic cannot fake them. Warnings (``<warning>``, e.g. a deprecated lemma
name) come after a location header and are dropped with it. The ``(ID n)`` evar numbers are dropped from the
rendered state because they differ between equal states. The goal blocks themselves are read by
:mod:`prover.coq.syntax`, the one reader of Coq's printed goals.
"""

from __future__ import annotations

import enum
import functools
import re
from dataclasses import dataclass

from search_tree.protocol import Goal
from search_tree.syntax.common import GoalParseError
from prover.coq.syntax import has_metavariable, parse_goal_block, render_goal

# a message block, with the location coqtop prints before warnings ("Toplevel input, characters
# 18-26:" and the echoed input lines starting with "> ")
_TAG = re.compile(r"(?:Toplevel input, characters \d+-\d+:\n(?:>[^\n]*\n)*)?<(warning|infomsg)>(.*?)</\1>\n?", re.DOTALL)
_HEADER = re.compile(r"^(\d+) (focused )?goals?((?: \([^()]*\))*)$")
_SHELVED = re.compile(r"\(shelved: (\d+)\)")
_ID_SUFFIX = re.compile(r" \(ID (\d+)\)$")
_LISTED = re.compile(r"^goal (\d+)(?: \(ID (\d+)\))? is:$")

MSG_NO_MORE_GOALS = "No more goals."
MSG_GAVE_UP = "No more goals, but there are some goals you gave up:"
MSG_ON_SHELF = "All the remaining goals are on the shelf."
MSG_SUBPROOF_DONE = "This subproof is complete, but there are some unfocused goals."


class Outcome(str, enum.Enum):
    GOALS = "goals"  # focused goals remain
    FINISHED = "finished"  # no goal at all: the proof can be closed
    GAVE_UP = "gave_up"  # no goal left, but some were admitted
    SHELVED = "shelved"  # only shelved goals remain
    SUBPROOF_DONE = "subproof_done"  # the current bullet/brace is solved; unfocused goals remain


@dataclass(frozen=True)
class ProofView:
    """One printed proof state.

    ``goals`` are the focused goals (all of them with hypotheses once :func:`with_hypotheses`
    has filled in goals 2..n); ``others`` are targets of goals coqtop lists without context:
    unfocused goals, or the shelved/given-up/remaining goals named by the messages above.
    ``hint`` is coqtop's advice after a finished subproof (``Focus next goal with bullet -.``).
    ``ids`` are the evar numbers coqtop prints for the focused goals (``(ID 7)``): within one line
    of proof states, a goal keeps its number until it is solved, which lets a state reuse the
    hypotheses of goals it inherits (see :func:`with_hypotheses`).
    """

    outcome: Outcome
    goals: tuple[Goal, ...] = ()
    others: tuple[str, ...] = ()
    shelved: int = 0
    hint: str = ""
    ids: tuple[int | None, ...] = ()
    filled: bool = False  # goals 2..n carry their hypotheses (see with_hypotheses)

    @property
    def complete_goals(self) -> bool:
        """Whether every focused goal already has its hypotheses (coqtop prints only the first's)."""
        return self.outcome != Outcome.GOALS or len(self.goals) <= 1 or self.filled

    def render(self) -> str:
        """The state as text: the source of ``TacticState.pp`` and of the state identity key."""
        parts = []
        if self.outcome == Outcome.SUBPROOF_DONE:
            parts.append(f"{MSG_SUBPROOF_DONE} {self.hint}".strip())
        elif self.outcome == Outcome.SHELVED:
            parts.append(MSG_ON_SHELF)
        parts.extend(render_goal(g) for g in self.goals)
        if self.shelved:
            parts.append(f"(shelved: {self.shelved})")
        if self.others:
            title = "*** Unfocused goals:" if self.outcome == Outcome.GOALS else "*** Remaining goals:"
            parts.append(title + "\n" + "\n".join(self.others))
        return "\n\n".join(parts)


def strip_tags(output: str) -> tuple[str, list[str]]:
    """The output without ``<warning>``/``<infomsg>`` blocks, and the texts of those blocks."""
    if "</" not in output:  # the common case: a bare proof state
        return output, []
    messages = [m.group(2).strip() for m in _TAG.finditer(output)]
    return _TAG.sub("", output), messages


@functools.lru_cache(maxsize=1024)  # equal states recur in a search (merged states, replays)
def parse_view(output: str) -> ProofView | None:
    """Parse what coqtop printed after an accepted sentence; None when it printed no state.

    coqtop prints the state only when the proof changed, so None means "as before the sentence".
    """
    body, messages = strip_tags(output)
    if not body.strip():
        return None
    lines = body.strip("\n").split("\n")
    # debugging tactics (debug auto, info_auto) print untagged traces before the state
    start = next((i for i, line in enumerate(lines) if _HEADER.match(_ID_SUFFIX.sub("", line))), None)
    if start is None:
        if lines[-1] == MSG_NO_MORE_GOALS:
            return ProofView(Outcome.FINISHED)
        raise GoalParseError(f"unexpected coqtop output: {output[:300]!r}")
    lines = lines[start:]
    for message in messages:
        for outcome, text in ((Outcome.GAVE_UP, MSG_GAVE_UP), (Outcome.SHELVED, MSG_ON_SHELF),
                              (Outcome.SUBPROOF_DONE, MSG_SUBPROOF_DONE)):
            if message.startswith(text) and (header := _HEADER.match(lines[0])):
                hint = " ".join(message[len(text):].split())
                shelved = _SHELVED.search(header.group(3))
                return ProofView(outcome, others=tuple(_listed_targets(lines[1:])), hint=hint,
                                 shelved=int(shelved.group(1)) if shelved else 0)
    first_id = _ID_SUFFIX.search(lines[0])
    header = _HEADER.match(_ID_SUFFIX.sub("", lines[0]))
    assert header is not None
    count = int(header.group(1))
    shelved = _SHELVED.search(header.group(3))
    rest = lines[1:]
    try:
        unfocused_at = rest.index("*** Unfocused goals:")
    except ValueError:
        unfocused_at = len(rest)
    focused, unfocused = rest[:unfocused_at], rest[unfocused_at + 1:]
    first_end = next((i for i, line in enumerate(focused) if _LISTED.match(line)), len(focused))
    goals = [parse_goal_block(focused[:first_end])]
    goals += [Goal((), t, has_metavariable=has_metavariable(t)) for t in _listed_targets(focused[first_end:])]
    if len(goals) != count:
        raise GoalParseError(f"coqtop announced {count} goals but printed {len(goals)}: {output[:300]!r}")
    ids = [int(first_id.group(1)) if first_id else None]
    ids += [int(m.group(2)) if m.group(2) else None for m in map(_LISTED.match, focused[first_end:]) if m]
    return ProofView(Outcome.GOALS, tuple(goals), tuple(_listed_targets(unfocused)),
                     shelved=int(shelved.group(1)) if shelved else 0, ids=tuple(ids))


def parse_shown_goal(output: str) -> Goal:
    """Parse the reply to ``Show i.``: a ``goal i (ID n) is:`` header and a full goal block."""
    body, _ = strip_tags(output)
    lines = body.strip("\n").split("\n")
    if not lines or not _LISTED.match(lines[0]):
        raise GoalParseError(f"unexpected reply to Show: {output[:300]!r}")
    return parse_goal_block(lines[1:])


def with_hypotheses(view: ProofView, shown: list[Goal]) -> ProofView:
    """``view`` with goals 2..n replaced by their full forms (from ``Show 2.`` ... ``Show n.``)."""
    if len(shown) != len(view.goals) - 1:
        raise ValueError(f"{len(view.goals) - 1} shown goals needed, got {len(shown)}")
    return ProofView(view.outcome, (view.goals[0], *shown), view.others, view.shelved, view.hint, view.ids, True)


def inherited_goals(parent: ProofView | None) -> dict[int, Goal]:
    """The goals of ``parent`` that a state derived from it may reuse, by evar number.

    A goal keeps its evar number, hypotheses and target while it stays unsolved, unless an evar
    inside it gets instantiated meanwhile; so only goals without evars are reused.
    """
    if parent is None or not parent.complete_goals:
        return {}
    return {i: g for i, g in zip(parent.ids, parent.goals) if i is not None and not g.has_metavariable}


def _listed_targets(lines: list[str]) -> list[str]:
    """Targets of a ``goal i (ID n) is:`` list (each target indented by one space)."""
    targets: list[list[str]] = []
    for line in lines:
        if _LISTED.match(line):
            targets.append([])
        elif targets and line.strip():
            targets[-1].append(line.removeprefix(" "))
        elif line.strip() and line != "You need to go back and solve them.":
            raise GoalParseError(f"unexpected line in a goal list: {line[:300]!r}")
    return ["\n".join(t) for t in targets]
