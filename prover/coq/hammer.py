"""CoqHammer's ``hammer`` inside a search: its own time limit, once per state, rewritten for the proof.

``hammer`` asks external ATPs (E, CVC4) for the premises a goal needs and then reconstructs a
proof with CoqHammer's own tactics, printing e.g.::

    Replace the hammer tactic with:
        srun eauto use: rev_involutive.

The policy accepts ``hammer`` only as a step of its own (``hammer.``, or on one goal ``2: hammer.``;
:func:`prover.coq.reach.atp_step`): nested in a tactical it would escape everything below, and a
plain :class:`prover.coq.session.CoqSession` refuses it. :class:`HammerSession` runs it under
:attr:`hammer_timeout` instead of the tactic timeout, at most once per state (a second try on an
equal state is refused), and remembers the printed
reconstruction tactic as the step that led to the new state, so replaying that state never calls
an ATP. It logs every transition it made (:class:`RewriteLog`), and :meth:`RewriteLog.rewrite`
turns a found proof's ``hammer`` steps into their reconstruction tactics by walking the proof
along those transitions (state keys, so states the search merged are found too). The final check
(:func:`prover.coq.verify.verify_proof`) refuses any proof that still calls ``hammer`` anywhere
(:func:`prover.coq.reach.calls_atp` reads every word of a tactic): what coqc and coqchk check
needs no ATP.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from search_tree.protocol import ErrorKind, Proof, ProofStep, TacticError, TacticResult, TacticState, proof_tactics

from .coqtop import Reply
from .policy import CheckedTactic, RefusedTactic, check_tactic
from .reach import atp_step, calls_atp
from .sentences import SELECTOR
from .session import CoqSession
from .worker import Worker

# coqtop -emacs wraps the message in <infomsg> tags: the tactic ends at the first "." before a tag or a
# space, or at the end of its line; a tactic hammer found without the ATPs has no "." (``sfirstorder``)
_REPLACE = re.compile(r"Replace the hammer tactic with:[ \t]*\n?[ \t]*(?P<tactic>[^<\n]+?)(?:\.(?=\s|<|$)|(?=[ \t]*(?:<|\n|$)))")

# ``srun T use: ...`` as CoqHammer 1.3.2 prints it does not parse (``eauto use`` is read as one
# tactic: "Syntax error: [ltac_use_default] expected"); ``srun (T) use: ...`` is the same tactic
_SELECTOR = re.compile(SELECTOR + r"\s*")
_SRUN = re.compile(r"srun\s+(?P<tac>.+?)(?P<rest>\s+(?:use|unfold|inv|ctrs|cases):.*|\.)$")


def atp_limit(seconds: float) -> int:
    """CoqHammer's ``ATPLimit`` for a ``hammer`` call of ``seconds``: half of them, at least one,
    so that its reconstruction has the other half."""
    return max(1, int(seconds / 2))


def reconstruction(output: str) -> str | None:
    """The tactic that ``hammer``'s output says to replace it with (``srun``'s argument put in
    parentheses so that it parses), or None."""
    m = _REPLACE.search(output)
    if m is None:
        return None
    tactic = " ".join(m.group("tactic").split()) + "."
    srun = _SRUN.match(tactic)
    if srun is not None and not srun.group("tac").startswith("("):
        tactic = f"srun ({srun.group('tac')}){srun.group('rest')}"
    return tactic


def _hammer_step(tactic: str) -> bool:
    """Whether ``tactic`` is a hammer step the policy accepts (``hammer.``, ``- 2: hammer.``); any
    other tactic calling an ATP is left in the proof for the verification to refuse."""
    try:
        checked = check_tactic(tactic)
    except RefusedTactic:
        return False
    return checked.tactic is not None and atp_step(checked.tactic)


def _norm(tactic: str) -> str:
    return " ".join(tactic.split())


@dataclass(frozen=True)
class _Move:
    key: str  # the key of the state reached ("" when the step finished the proof or the focus)
    replacement: str | None = None  # the reconstruction tactic, for a hammer step


@dataclass
class RewriteLog:
    """The transitions of one session, to rewrite a proof's ``hammer`` steps afterwards."""

    root: str = ""
    moves: dict[tuple[str, str], _Move] = field(default_factory=dict)

    def rewrite(self, proof: Proof) -> Proof:
        """``proof`` with every ``hammer`` step replaced by the reconstruction tactic it printed;
        ValueError naming the step when the log has none (the proof was not found here)."""
        if not any(calls_atp(t) for t in proof_tactics(proof)):
            return proof
        return self._rewrite(proof, self.root)

    def _rewrite(self, proof: Proof, key: str | None) -> Proof:
        out: list[ProofStep] = []
        for step in proof:
            move = self.moves.get((key, _norm(step.tactic))) if key is not None else None
            tactic = step.tactic
            if _hammer_step(step.tactic):
                if move is None or move.replacement is None:
                    raise ValueError(f"{step.tactic!r} has no recorded reconstruction tactic at this point of the "
                                     f"proof (a hammer step is only kept when this environment's search ran it)")
                tactic = move.replacement
            key = None if move is None else move.key
            branches = tuple(self._rewrite(branch, self._focused(key, i)) for i, branch in enumerate(step.branches))
            out.append(ProofStep(tactic, branches))
        return tuple(out)

    def _focused(self, key: str | None, goal: int) -> str | None:
        move = self.moves.get((key, f"focus {goal}")) if key is not None else None
        return None if move is None else move.key


class HammerSession(CoqSession):
    """A :class:`CoqSession` where ``hammer`` has its own time limit (which :meth:`run_tac_within` may
    raise as well as lower, unless ``at_most``), runs once per state and is
    recorded as its reconstruction tactic (module docstring)."""

    runs_atp = True

    def __init__(self, worker: Worker, context, tactic_timeout: float, max_restarts: int,
                 hammer_timeout: float, tactic_limits: Mapping[str, float] | None = None,
                 strategies: int | None = None) -> None:
        super().__init__(worker, context, tactic_timeout, max_restarts, tactic_limits)
        self.hammer_timeout = hammer_timeout
        self.strategies = strategies  # CoqHammer's GSMode (None: its own)
        self.log = RewriteLog()
        self._hammered: set[str] = set()  # keys of the states hammer was tried on
        self._replacement: str | None = None

    def start(self) -> TacticState:
        state = super().start()
        self.log.root = state.key
        return state

    def run_tac(self, state: TacticState, tactic: str) -> TacticResult:
        hammer = _hammer_step(tactic)  # a refused one is answered by the session without counting as a try
        if hammer:
            if state.key in self._hammered:
                return TacticError("hammer was already tried on this state (it runs at most once per state)",
                                   ErrorKind.REFUSED)
            self._hammered.add(state.key)
        self._replacement = None
        result = super().run_tac(state, tactic)
        if hammer and isinstance(result, TacticError) and "Control.Timeout" in result.message:
            # Coq's Timeout reaches hammer as an exception it reports as "CoqHammer bug: ... Control.Timeout"
            result = TacticError(f"hammer ran past its time limit ({self._hammer_limit():g}s)", ErrorKind.TIMEOUT)
        self._log(state, _norm(tactic), result, self._replacement if hammer else None)
        return result

    def focus(self, state: TacticState, goal_index: int) -> TacticState | TacticError:
        result = super().focus(state, goal_index)
        self._log(state, f"focus {goal_index}", result, None)
        return result

    def _log(self, state: TacticState, what: str, result: TacticResult, replacement: str | None) -> None:
        if isinstance(result, TacticError):
            return
        key = result.key if isinstance(result, TacticState) else ""
        self.log.moves[(state.key, what)] = _Move(key, replacement)

    def _hammer_limit(self) -> float:
        """The time limit of a ``hammer`` step run now (see :meth:`run_tac_within`)."""
        if self._within is None:
            return self.hammer_timeout
        seconds, at_most = self._within
        return min(seconds, self.hammer_timeout) if at_most else seconds

    def _time_limit(self, step: CheckedTactic) -> float:
        if step.tactic is not None and calls_atp(step.tactic):
            return self._hammer_limit()
        return super()._time_limit(step)

    def _sentences(self, step: CheckedTactic, limit: float) -> list[str]:
        """Every ``hammer`` step is preceded by the ATP limit of its time limit. The option
        belongs to the proof state (Coq's ``Set`` is global to the state, not to one tactic): the
        states below a step keep the value it set, so a limit set once for a longer call would
        stay in force for every later call below it, and one set only in the context would be
        overridden there. Setting it on every call makes each call run under exactly its limit. The
        number of ATP strategies run at once (:attr:`strategies`), where given, is set the same way."""
        out = super()._sentences(step, limit)
        if step.tactic is not None and calls_atp(step.tactic):
            options = [f"Set Hammer ATPLimit {atp_limit(limit)}."]
            if self.strategies is not None:
                options.append(f"Set Hammer GSMode {self.strategies}.")
            out[len(step.focusing):len(step.focusing)] = options
        return out

    def _recorded(self, step: CheckedTactic, replies: list[Reply]) -> CheckedTactic | TacticError:
        if step.tactic is None or not calls_atp(step.tactic):
            return step
        found = reconstruction("\n".join(r.output for r in replies))
        if found is None:
            return TacticError("hammer succeeded but printed no reconstruction tactic", ErrorKind.ERROR)
        head = _SELECTOR.match(step.tactic)  # the one-goal selector of "2: hammer.", kept for its replacement
        selector = head.group() if head is not None else ""
        try:
            checked = check_tactic(selector + found)
        except RefusedTactic as exc:
            return TacticError(f"hammer's reconstruction tactic is refused: {exc}", ErrorKind.REFUSED)
        if checked.focusing or checked.tactic is None or calls_atp(checked.tactic):
            return TacticError(f"hammer's reconstruction tactic {found!r} is not one tactic free of ATP calls",
                               ErrorKind.REFUSED)
        recorded = CheckedTactic(step.focusing, checked.tactic)
        self._replacement = recorded.text
        return recorded
