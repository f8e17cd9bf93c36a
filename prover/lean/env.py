"""The LeanDojo backend: the environment protocol over ``lean_dojo.Dojo`` (Lean 4).

A protocol :class:`~search_tree.protocol.Theorem` names a declaration by ``full_name`` and
``file_path``; the Lean repository it lives in (``url``, ``commit``) comes from its
:class:`LeanFields` or from the environment's configuration. LeanDojo traces the repository once
and caches it (``~/.cache/lean_dojo``); every :meth:`LeanDojoEnvironment.open` then starts a Lean
REPL on the theorem.

What this module adds to a bare ``Dojo``:

* results mapped onto the protocol (``LeanError`` -> ``TacticError``, ``ProofGivenUp``,
  ``ProofFinished``, ``TacticState`` with parsed goals and metavariable flags);
* the untrusted-tactic policy (:mod:`prover.lean.policy`) applied before Lean sees a tactic;
* recovery: after ``DojoTacticTimeoutError`` LeanDojo's pexpect channel is out of step with the
  REPL (the late answer would be read as the answer to the next request), and after
  ``DojoCrashError`` the process is gone. Either way the Dojo is re-entered and states are rebuilt
  by replaying their tactic paths (lazily, when a state is next used); the tactic that caused it
  answers ``TacticError(kind=TIMEOUT|CRASH)`` and the search carries on;
* a per-tactic time limit (``tactic_timeout``) separate from the time LeanDojo may take to start
  Lean and load the imports (``init_timeout``), and both separate from the search budget;
* clear failures: ``DojoInitError`` (theorem not found, unsupported file) and a missing Lean
  toolchain (``CalledProcessError`` from LeanDojo's ``lean``/``lake`` calls) become
  :class:`~search_tree.protocol.TheoremNotFound` / :class:`LeanNotInstalled` with what to do.

State ids are the session's own, issued in order from 0 (the initial state): a restarted REPL
numbers its states from 0 again, and a focused state shares its Lean state with the state it
focuses, so LeanDojo's ids cannot name protocol states. An id never changes meaning in a session.

Focusing (:class:`~search_tree.protocol.FocusingSession`, for AND-OR search). LeanDojo runs each
tactic on the whole goal list of a state, so a focused state is a Lean state plus ``hidden``, the
number of goals at the end of its list that belong to enclosing focuses and that the search must
not see. ``focus(state, i)`` sends ``rotate_left i`` (core Lean 4; no call at all for ``i = 0``)
and hides every goal but the first: ``hidden = len(goals) - 1``, which counts the goals the state
itself hid when focuses nest. A tactic on a focused state passes the policy as it is, then runs as
``focus`` with the tactic as its block while one goal is visible, which is exactly what that
tactic sees inside the ``·`` block the proof is rendered with (:mod:`prover.lean.script`). With
several visible goals (they share a metavariable, so the search did not split them) it runs as it
is, since core Lean has no tactic that hides the end of the goal list and ``focus`` would hide the
other visible goals too. Either way the hidden goals must come back unchanged at the end of the
list: any other answer (a hidden goal closed, changed or moved, the whole proof finished) is a
``TacticError``, never a state that mixes visible and hidden goals. The visible goals, the first
``len(goals) - hidden``, are the state's ``pp`` and ``key``; none visible is ``ProofFinished``.
Replay sends the recorded Lean text and compares LeanDojo's whole goal list, not the visible part.
"""

from __future__ import annotations

import subprocess
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterator

from search_tree.errors import UserError
from prover.defaults import LEAN_INIT_TIMEOUT, LEAN_TACTIC_TIMEOUT
from prover.lean.check import LeanCheck, check_proof
from prover.lean.language import LEAN
from prover.lean.syntax import TURNSTILE, GoalParseError, has_metavariable, parse_goals, split_goals
from prover.lean.policy import DEFAULT_MAX_LENGTH, check_tactic
from prover.lean.script import confinement_problem, focus_goal, render_by_block, render_declaration, under_focus
from search_tree.protocol import (
    Environment,
    EnvironmentFailure,
    ErrorKind,
    Goal,
    Proof,
    ProofFinished,
    ProofGivenUp,
    TacticError,
    TacticResult,
    TacticState,
    Theorem,
    TheoremFields,
    TheoremNotFound,
    Verification,
    proof_tactics,
)

if TYPE_CHECKING:  # pragma: no cover - typing only; lean_dojo is imported lazily
    import lean_dojo

INSTALL_HINT = (
    "LeanDojo needs a Lean 4 toolchain: install elan "
    "(curl https://raw.githubusercontent.com/leanprover/elan/master/elan-init.sh -sSf | sh), "
    "put ~/.elan/bin on PATH so that `lean` and `lake` run, and make sure `git` is installed; "
    "see docs/lean.md"
)

# (lean_dojo.Theorem, timeout seconds) -> a context manager whose __enter__ gives (dojo, init_state)
DojoFactory = Callable[[Any, int], Any]
# (url, commit) -> lean_dojo.LeanGitRepo
RepoFactory = Callable[[str, str], Any]
# (lean_dojo.Theorem, "by ..." proof text) -> the verdict, the header Lean checked and the axioms used
ProofChecker = Callable[[Any, str], LeanCheck]


class LeanNotInstalled(EnvironmentFailure, UserError):
    """LeanDojo could not run ``lean``/``lake``/``git``: nothing can be proved on this machine.

    A search meeting it ends like on any :class:`EnvironmentFailure`; the command line reports it
    as bad input (a :class:`UserError`), since the fix (install, see the message) is the user's."""


def import_lean_dojo():
    """Import ``lean_dojo`` on first use (it runs ``git --version`` at import)."""
    try:
        import lean_dojo
    except (ImportError, OSError, subprocess.CalledProcessError, AssertionError) as exc:
        raise LeanNotInstalled(f"cannot import lean_dojo ({exc}); pip install lean-dojo. {INSTALL_HINT}") from exc
    return lean_dojo


def _default_dojo_factory(lean_theorem: Any, timeout: int) -> Any:
    return import_lean_dojo().Dojo(lean_theorem, timeout=timeout)


def _default_repo_factory(url: str, commit: str) -> Any:
    return import_lean_dojo().LeanGitRepo(url, commit)


@dataclass
class _Node:
    """How a state of the session was reached, and which part of it the search sees.

    ``sent`` is the Lean text run on ``parent``'s Lean state to reach it (None for the root and
    for a focus on goal 0, which reuses the parent's Lean state); ``lean_pp`` is LeanDojo's text
    of the whole goal list, which a replay must reproduce; ``pp`` is the protocol's text, the
    goals before the last ``hidden`` ones.
    """

    pp: str
    lean_pp: str
    parent: int | None
    sent: str | None
    hidden: int = 0


def goal_blocks(lean_pp: str) -> list[str] | None:
    """LeanDojo's goal list as one text per goal, or None when the blank-line split is not certain
    (LeanDojo counts goals by their ``⊢``; a focused state must not guess where hidden goals begin)."""
    blocks = split_goals(lean_pp)
    return blocks if len(blocks) == lean_pp.count(TURNSTILE) else None


class LeanDojoSession:
    """One theorem opened in a Dojo; answers tactics on any of its states (see the module doc)."""

    def __init__(self, env: "LeanDojoEnvironment", theorem: Theorem, lean_theorem: Any) -> None:
        self.env = env
        self.theorem = theorem
        self.lean_theorem = lean_theorem
        self.restarts = 0
        self._cm: Any = None  # the entered Dojo (a context manager)
        self._dojo: Any = None
        self._root: int = 0
        self._nodes: dict[int, _Node] = {}
        self._live: dict[int, Any] = {}  # protocol id -> lean_dojo.TacticState of the current process
        self._next_id = 0

    # -- process lifetime ---------------------------------------------------------------------

    def _enter(self) -> Any:
        """Start a Dojo on the theorem; returns LeanDojo's initial state."""
        ld = import_lean_dojo()
        import pexpect  # a dependency of lean_dojo: it raises this when `lake` cannot be spawned

        name = self.theorem.full_name
        try:
            cm = self.env.dojo_factory(self.lean_theorem, self.env.init_timeout)
            dojo, init_state = cm.__enter__()
        except ld.DojoInitError as exc:
            text = str(exc)
            if "Failed to locate the theorem" in text or "Cannot find the *.ast.json" in text:
                raise TheoremNotFound(f"{name} in {self.theorem.file_path}: {text}") from exc
            raise EnvironmentFailure(f"LeanDojo could not open {name}: {text}") from exc
        except (subprocess.CalledProcessError, FileNotFoundError, pexpect.ExceptionPexpect) as exc:
            raise LeanNotInstalled(f"LeanDojo could not run Lean to open {name} ({exc}). {INSTALL_HINT}") from exc
        except (ld.DojoCrashError, ld.DojoTacticTimeoutError, AssertionError, EOFError) as exc:
            raise EnvironmentFailure(f"LeanDojo failed to start Lean on {name}: {type(exc).__name__} {exc}") from exc
        if not isinstance(init_state, ld.TacticState):
            cm.__exit__(None, None, None)
            raise EnvironmentFailure(f"LeanDojo opened {name} without a tactic state: {init_state!r}")
        # Dojo(timeout=) also bounds reading the first state (imports can take minutes); from here
        # on each tactic gets `tactic_timeout`. `proc` is LeanDojo's pexpect child.
        proc = getattr(dojo, "proc", None)
        if proc is not None:
            proc.timeout = self.env.tactic_timeout
        self._cm, self._dojo = cm, dojo
        return init_state

    def start(self) -> TacticState:
        init = self._enter()
        self._root, self._next_id = 0, 1
        self._nodes = {0: _Node(init.pp, init.pp, None, None)}
        self._live = {0: init}
        return self._protocol_state(0, init.pp)

    def close(self) -> None:
        if self._cm is not None:
            cm, self._cm, self._dojo = self._cm, None, None
            cm.__exit__(None, None, None)

    def _restart(self, reason: str) -> None:
        """Re-enter the Dojo after a timeout or crash; states are replayed lazily."""
        self.restarts += 1
        try:
            self.close()
        except Exception:  # noqa: BLE001 - the old process is being discarded whatever went wrong
            pass
        if self.restarts > self.env.max_restarts:
            raise EnvironmentFailure(
                f"Lean restarted {self.restarts - 1} times on {self.theorem.full_name}; giving up after: {reason}")
        init = self._enter()
        if init.pp != self._nodes[self._root].lean_pp:
            self.close()
            raise EnvironmentFailure(f"{self.theorem.full_name}: the initial state changed after a restart")
        self._live = {self._root: init}

    # -- states ---------------------------------------------------------------------------------

    def _protocol_state(self, state_id: int, pp: str) -> TacticState:
        """The protocol state; a layout the parser does not know must not end the search, so it
        becomes one opaque goal (never split by AND-OR search, metavariables still detected)."""
        try:
            goals = parse_goals(pp)
        except GoalParseError:
            goals = (Goal((), pp, has_metavariable=has_metavariable(pp)),)
        return TacticState(pp=pp, id=state_id, goals=goals)

    def _record(self, node: _Node, lean_state: Any | None) -> TacticState:
        """Register a new state (``lean_state`` None: the parent's Lean state, reused)."""
        state_id, self._next_id = self._next_id, self._next_id + 1
        self._nodes[state_id] = node
        if lean_state is not None:
            self._live[state_id] = lean_state
        return self._protocol_state(state_id, node.pp)

    def _node(self, state: TacticState) -> _Node:
        """The record of ``state``, which must be a state of this open session."""
        node = self._nodes.get(state.id)
        if node is None or node.pp != state.pp:
            raise ValueError(f"state {state.id} does not belong to this session of {self.theorem.full_name}")
        if self._dojo is None:
            raise EnvironmentFailure(f"the session of {self.theorem.full_name} is closed")
        return node

    def _live_state(self, state_id: int) -> Any:
        """LeanDojo's handle for ``state_id`` in the current process, replaying its path if needed."""
        ld = import_lean_dojo()
        path: list[int] = []
        cursor: int | None = state_id
        while cursor is not None and cursor not in self._live:
            path.append(cursor)
            cursor = self._nodes[cursor].parent
        for node_id in reversed(path):
            node = self._nodes[node_id]
            parent_state = self._live[node.parent]  # type: ignore[index]
            if node.sent is None:  # a focus on goal 0: the same Lean state
                self._live[node_id] = parent_state
                continue
            try:
                result = self._dojo.run_tac(parent_state, node.sent)
            except (ld.DojoTacticTimeoutError, ld.DojoCrashError) as exc:
                self.close()  # the process is out of step or gone: no further tactic may use it
                raise EnvironmentFailure(
                    f"replaying {node.sent!r} on {self.theorem.full_name} after a restart failed: "
                    f"{type(exc).__name__} {exc}") from exc
            if not isinstance(result, ld.TacticState) or result.pp != node.lean_pp:
                self.close()
                raise EnvironmentFailure(
                    f"replaying {node.sent!r} on {self.theorem.full_name} after a restart gave a different "
                    f"result: {result!r}")
            self._live[node_id] = result
        return self._live[state_id]

    # -- the protocol ---------------------------------------------------------------------------

    def run_tac(self, state: TacticState, tactic: str) -> TacticResult:
        """Run one untrusted tactic on ``state``; timeouts and crashes are absorbed, and on a
        focused state the tactic only reaches the visible goals (module doc)."""
        refused = check_tactic(tactic, self.env.max_tactic_length)
        if refused is not None:
            return refused
        node = self._node(state)
        blocks = goal_blocks(node.lean_pp) if node.hidden else None  # a focused node's text splits
        sent = under_focus(tactic) if blocks is not None and len(blocks) - node.hidden == 1 else tactic
        result = self._send(self._live_state(state.id), sent, f"tactic {tactic!r}")
        if isinstance(result, TacticError):
            return result
        ld = import_lean_dojo()
        if isinstance(result, ld.TacticState):
            return self._next_state(state.id, node, result, sent, tactic)
        if isinstance(result, ld.ProofFinished):
            if node.hidden:  # the goals of enclosing focuses were closed as well
                return TacticError(f"tactic {tactic!r} closed goals outside the focus", ErrorKind.ERROR)
            return ProofFinished(message=result.message or "")  # LeanDojo's id is not a session id
        if isinstance(result, ld.LeanError):
            return TacticError(result.error, ErrorKind.ERROR)
        if isinstance(result, ld.ProofGivenUp):
            return ProofGivenUp(f"tactic {tactic!r} left the proof with `sorry`")
        raise TypeError(f"unexpected LeanDojo result for {tactic!r}: {result!r}")

    def focus(self, state: TacticState, goal_index: int) -> TacticState | TacticError:
        """``state`` with only its goal ``goal_index`` visible (module doc: ``rotate_left``)."""
        node = self._node(state)
        blocks = goal_blocks(node.lean_pp)
        visible = 0 if blocks is None else len(blocks) - node.hidden
        if blocks is None or not 0 <= goal_index < visible:
            return TacticError(f"cannot focus goal {goal_index} of state {state.id}: {visible} goals are visible "
                               "(0 when Lean's goal list cannot be split reliably)", ErrorKind.REFUSED)
        hidden = len(blocks) - 1
        if goal_index == 0:
            return self._record(_Node(blocks[0], node.lean_pp, state.id, None, hidden), None)
        sent = focus_goal(goal_index)
        result = self._send(self._live_state(state.id), sent, f"focusing goal {goal_index} ({sent!r})")
        if isinstance(result, TacticError):
            return result
        ld = import_lean_dojo()
        moved = goal_blocks(result.pp) if isinstance(result, ld.TacticState) else None
        if moved is None or len(moved) != len(blocks) or moved[0] != blocks[goal_index]:
            return TacticError(f"{sent!r} did not bring goal {goal_index} to the front: {result!r}", ErrorKind.ERROR)
        return self._record(_Node(moved[0], result.pp, state.id, sent, hidden), result)

    def _send(self, lean_state: Any, text: str, what: str) -> Any:
        """LeanDojo's answer to ``text``, or a TIMEOUT/CRASH ``TacticError`` once Lean is restarted."""
        ld = import_lean_dojo()
        try:
            return self._dojo.run_tac(lean_state, text)
        except ld.DojoTacticTimeoutError:
            self._restart(f"{what} timed out")
            return TacticError(f"{what} ran past the {self.env.tactic_timeout}s limit; Lean was restarted",
                               ErrorKind.TIMEOUT)
        except ld.DojoCrashError as exc:
            cause = "out of memory" if exc.is_out_of_memory else (str(exc) or "no message")
            self._restart(f"Lean crashed on {what}: {cause}")
            return TacticError(f"Lean crashed on {what} ({cause}); Lean was restarted", ErrorKind.CRASH)

    def _next_state(self, parent: int, node: _Node, result: Any, sent: str, tactic: str) -> TacticResult:
        """The protocol's answer for a Lean state reached from ``node``: its visible goals, after
        checking that the goals ``node`` hides came back unchanged at the end of the list."""
        if not node.hidden:
            return self._record(_Node(result.pp, result.pp, parent, sent), result)
        before, after = goal_blocks(node.lean_pp), goal_blocks(result.pp)
        tail = before[-node.hidden:]  # type: ignore[index]  # a focused node's text always splits
        if after is None or after[len(after) - node.hidden:] != tail:
            return TacticError(f"tactic {tactic!r} changed goals outside the focus (or Lean's goal list "
                               "could not be split)", ErrorKind.ERROR)
        if len(after) == node.hidden:
            return ProofFinished(message=result.message or "")
        pp = "\n\n".join(after[:-node.hidden])
        return self._record(_Node(pp, result.pp, parent, sent, node.hidden), result)


@dataclass(frozen=True)
class LeanFields(TheoremFields):
    """What the LeanDojo backend reads with a theorem (in :attr:`Theorem.extra`, see
    :class:`~search_tree.protocol.TheoremFields`): the repository it lives in, as the dataset
    loaders set it, and the ``LeanGitRepo`` a ReProver caller hands over (``repo``); a traced
    benchmark's theorem also says where its declaration ends (``end``, line and column) and how
    many tactics its traced proof has (``num_traced_tactics``)."""

    url: str | None = None
    commit: str | None = None
    repo: Any = None
    end: tuple[int, int] | None = None
    num_traced_tactics: int | None = None


class LeanDojoEnvironment(Environment):
    """The protocol's :class:`~search_tree.protocol.Environment` over LeanDojo (Lean 4).

    ``url``/``commit`` name the default repository (a theorem's :class:`LeanFields` take
    precedence, as the loaders in :mod:`prover.benchmarks.datasets` set them).
    ``tactic_timeout`` bounds one tactic, ``init_timeout`` starting Lean on a theorem,
    ``max_restarts`` the recoveries per opened theorem. The factories exist so that tests can put a
    stand-in in place of ``lean_dojo.Dojo``; by default they are LeanDojo's own classes.
    """

    name = "lean"
    language = LEAN

    def __init__(
        self,
        url: str | None = None,
        commit: str | None = None,
        *,
        tactic_timeout: int = LEAN_TACTIC_TIMEOUT,
        init_timeout: int = LEAN_INIT_TIMEOUT,
        max_restarts: int = 8,
        max_tactic_length: int = DEFAULT_MAX_LENGTH,
        dojo_factory: DojoFactory | None = None,
        repo_factory: RepoFactory | None = None,
        proof_checker: ProofChecker | None = None,
    ) -> None:
        if tactic_timeout <= 0 or init_timeout <= 0:
            raise ValueError(f"timeouts must be positive (tactic {tactic_timeout}, init {init_timeout})")
        self.url = url
        self.commit = commit
        self.tactic_timeout = int(tactic_timeout)
        self.init_timeout = int(init_timeout)
        self.max_restarts = max_restarts
        self.max_tactic_length = max_tactic_length
        self.dojo_factory = dojo_factory or _default_dojo_factory
        self.repo_factory = repo_factory or _default_repo_factory
        self.proof_checker = proof_checker or check_proof
        self._repos: dict[tuple[str, str], Any] = {}

    def repository(self, theorem: Theorem) -> tuple[str, str]:
        """The (url, commit) of the repository ``theorem`` belongs to."""
        fields = LeanFields.of(theorem)
        url = fields.url or self.url
        commit = fields.commit or self.commit
        if not url or not commit:
            raise ValueError(
                f"theorem {theorem.full_name!r} names no Lean repository: set its LeanFields url and "
                "commit, or LeanDojoEnvironment(url=..., commit=...)")
        return url, commit

    def lean_theorem(self, theorem: Theorem) -> "lean_dojo.Theorem":
        """``theorem`` as a ``lean_dojo.Theorem`` of a ``LeanGitRepo`` (one repo object per commit)."""
        if not theorem.file_path.endswith(".lean"):
            raise ValueError(
                f"theorem {theorem.full_name!r} needs the .lean file it is declared in, got file_path "
                f"{theorem.file_path!r}")
        url, commit = self.repository(theorem)
        repo = self._repos.get((url, commit))
        if repo is None:
            try:
                repo = self.repo_factory(url, commit)
            except (subprocess.CalledProcessError, FileNotFoundError) as exc:
                raise LeanNotInstalled(f"cannot fetch {url} at {commit} ({exc}). {INSTALL_HINT}") from exc
            except Exception as exc:  # noqa: BLE001 - GitHub/git errors of many types: report, don't crash
                raise EnvironmentFailure(f"cannot resolve the Lean repository {url} at {commit}: {exc}") from exc
            self._repos[(url, commit)] = repo
        return import_lean_dojo().Theorem(repo, theorem.file_path, theorem.full_name)

    @contextmanager
    def open(self, theorem: Theorem) -> Iterator[tuple[LeanDojoSession, TacticState]]:
        session = LeanDojoSession(self, theorem, self.lean_theorem(theorem))
        init_state = session.start()
        try:
            yield session, init_state
        finally:
            session.close()

    def render(self, theorem: Theorem, proof: Proof) -> str:
        return render_declaration(theorem, proof)

    def verify(self, theorem: Theorem, proof: Proof) -> Verification:
        """Re-check ``proof`` with the checker (:func:`prover.lean.check.check_proof`): the theorem is
        compiled afresh in its file with the rendered ``by`` block as its proof, and accepted only if
        Lean reports no error, no ``sorry`` and no axiom but the standard three. Every tactic is first
        checked against the policy, and the rendered block as a whole must be confined to the
        declaration (:func:`confinement_problem`), so no ``sorry``, ``native_decide``, comment or
        command can reach the file. The script reported once Lean ran is the header Lean checked (the
        repository's, which may differ from ``theorem.statement``) with the block. It fails closed: a
        proof that cannot be rendered, a checker that raises anything, or that answers anything but a
        :class:`LeanCheck` whose ``ok`` is ``True``, means not proved."""
        try:
            script = render_declaration(theorem, proof)
            block = render_by_block(proof)
        except ValueError as exc:  # an empty proof or branch
            return Verification(False, f"cannot render the proof: {exc}", "")
        for tactic in proof_tactics(proof):
            refused = check_tactic(tactic, self.max_tactic_length)
            if refused is not None:
                return Verification(False, refused.message, script)
        escape = confinement_problem(block)
        if escape is not None:
            return Verification(False, f"the rendered proof is not confined to its declaration: {escape}", script)
        try:
            verdict = self.proof_checker(self.lean_theorem(theorem), block)
        except (subprocess.CalledProcessError, FileNotFoundError) as exc:
            return Verification(False, f"Lean could not run ({exc}). {INSTALL_HINT}", script)
        except Exception as exc:  # noqa: BLE001 - fail closed: whatever went wrong, nothing was proved
            return Verification(False, f"could not check {theorem.full_name}: {type(exc).__name__}: {exc}", script)
        if not isinstance(verdict, LeanCheck):
            return Verification(False, f"the checker gave no verdict (it said {verdict!r})", script)
        if not verdict.header:  # what was proved is the header Lean checked: unknown, nothing is
            return Verification(False, f"the checker did not say which statement it checked ({verdict.message})", script)
        return Verification(verdict.ok is True, verdict.message, f"{verdict.header} {block}", tuple(verdict.axioms))
