"""A coqtop process that keeps a replayed file prefix, so that theorems of one file share it.

Opening a stdlib theorem means replaying its file up to the statement. A :class:`Worker`
remembers the state id after each prefix sentence it ran; opening another theorem of the same
file moves back (``BackTo``) to the longest common prefix and replays only the rest, so the
theorems of a file opened in order cost one replay of the file in all.
"""

from __future__ import annotations

from search_tree.protocol import EnvironmentFailure, Goal

from .context import CoqContext
from .coqtop import Coqtop, Reply
from .goals import (
    GoalParseError,
    ProofView,
    inherited_goals,
    parse_shown_goal,
    parse_view,
    with_hypotheses,
)

BATCH_BYTES = 16_384  # pipelined input per send_all: bounds the replies held at once (any size is safe to send)


class Worker:
    """One coqtop plus the prefix it has replayed (``sentence -> state id after it``)."""

    def __init__(self, memory_limit_mb: int | None, sentence_timeout: float) -> None:
        self.memory_limit_mb = memory_limit_mb
        self.sentence_timeout = sentence_timeout
        self.coqtop: Coqtop | None = None
        self.args: tuple[str, ...] | None = None
        self.key: str | None = None
        self.replayed: list[tuple[str, int]] = []

    def close(self) -> None:
        if self.coqtop is not None:
            self.coqtop.kill()
        self.coqtop, self.key, self.replayed = None, None, []

    def open(self, context: CoqContext) -> tuple[int, ProofView]:
        """Put coqtop just after ``context``'s statement; returns that state's id and goals.

        Raises :class:`CoqtopDied` if the process dies on the way, :class:`EnvironmentFailure`
        naming the sentence if the file's own text fails, ``ValueError`` if the statement does.
        """
        if self.coqtop is None or not self.coqtop.alive or self.args != context.coqtop_args:
            self._start(context.coqtop_args)
        assert self.coqtop is not None
        keep = self._common_prefix(context) if self.key == context.key else 0
        self.coqtop.back_to(self.replayed[keep - 1][1] if keep else self.coqtop.start_state, self.sentence_timeout)
        del self.replayed[keep:]
        self.key = context.key
        self._replay(context.prefix[keep:])
        reply = self.coqtop.send(context.statement, self.sentence_timeout)
        if not reply.ok:
            raise ValueError(f"coqtop rejected the statement of {context.name!r} ({context.key}): {reply.error}")
        state, view = reply.state_id, parse_view(reply.output)
        if view is None and reply.stale_printer:
            state, view = self.show()
        if view is None:
            raise ValueError(f"the statement of {context.name!r} opened no proof: {context.statement[:200]!r}")
        return self.complete(state, view)

    def show(self) -> tuple[int, ProofView]:
        """Ask for the current proof state (``Show.``); for when coqtop did not print it."""
        assert self.coqtop is not None
        reply = self.coqtop.send("Show.", self.sentence_timeout)
        view = parse_view(reply.output) if reply.ok else None
        if view is None:
            raise GoalParseError(f"Show. printed no proof state: {reply.output[:300]!r}")
        return reply.state_id, view

    def complete(self, state_id: int, view: ProofView, parent: ProofView | None = None) -> tuple[int, ProofView]:
        """:func:`complete_view` on this worker's coqtop."""
        assert self.coqtop is not None
        return complete_view(self.coqtop, state_id, view, parent, self.sentence_timeout)

    def _start(self, args: tuple[str, ...]) -> None:
        self.close()
        self.coqtop = Coqtop(args, memory_limit_mb=self.memory_limit_mb)
        self.coqtop.start(self.sentence_timeout)
        self.args = args

    def _common_prefix(self, context: CoqContext) -> int:
        n = 0
        for (done, _), wanted in zip(self.replayed, context.prefix):
            if done != wanted:
                break
            n += 1
        return n

    def _replay(self, sentences: tuple[str, ...]) -> None:
        """Run prefix sentences in batches of pipelined writes, recording the state after each."""
        assert self.coqtop is not None
        i = 0
        while i < len(sentences):
            batch: list[str] = []
            size = 0
            while i < len(sentences) and (not batch or size + len(sentences[i]) < BATCH_BYTES):
                batch.append(sentences[i])
                size += len(sentences[i]) + 1
                i += 1
            replies: list[Reply] = self.coqtop.send_all(batch, self.sentence_timeout)
            for sentence, reply in zip(batch, replies):
                if not reply.ok:
                    raise EnvironmentFailure(f"coqtop failed on the context sentence {sentence[:200]!r} "
                                             f"of {self.key}: {reply.error}")
                self.replayed.append((sentence, reply.state_id))


def complete_view(coqtop: Coqtop, state_id: int, view: ProofView, parent: ProofView | None = None,
                  timeout: float | None = None) -> tuple[int, ProofView]:
    """Fill in the hypotheses of goals 2..n; returns the id to use for the state, and the view.

    Goals inherited unchanged from ``parent`` (same evar number and target, no evar inside)
    are copied from it; the others are asked for with ``Show i.``. The ``Show`` queries leave
    the proof as it was but move the tip; the last one's id is a handle on the same proof
    state, and using it spares a ``BackTo`` on the next tactic. :class:`GoalParseError` if a
    ``Show`` fails or prints something else than a goal.
    """
    if view.complete_goals:
        return state_id, view
    known = inherited_goals(parent)
    reused: dict[int, Goal] = {}
    for i in range(2, len(view.goals) + 1):
        old = known.get(view.ids[i - 1])  # type: ignore[arg-type]
        if old is not None and old.target == view.goals[i - 1].target:
            reused[i] = old
    missing = [i for i in range(2, len(view.goals) + 1) if i not in reused]
    replies = coqtop.send_all([f"Show {i}." for i in missing], timeout)
    bad = next((r for r in replies if not r.ok), None)
    if bad is not None:
        raise GoalParseError(f"Show failed on a state with {len(view.goals)} goals: {bad.error}")
    shown = {i: parse_shown_goal(r.output) for i, r in zip(missing, replies)}
    goals = [reused[i] if i in reused else shown[i] for i in range(2, len(view.goals) + 1)]
    return (replies[-1].state_id if replies else state_id), with_hypotheses(view, goals)
