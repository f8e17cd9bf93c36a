"""The LeanDojo backend: the environment protocol over ``lean_dojo.Dojo`` (Lean 4).

A protocol :class:`~search_tree.protocol.Theorem` names a declaration by ``full_name`` and
``file_path``; the Lean repository it lives in (``url``, ``commit``) comes from
``theorem.extra`` or from the environment's configuration. LeanDojo traces the repository once
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

State ids are LeanDojo's state ids while the first Lean process lives; a restarted REPL numbers
its states from 0 again, so states first reached after a restart get fresh ids above every id
issued before (an id never changes meaning within a session).
"""

from __future__ import annotations

import subprocess
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterator

from prover.lean.goals import GoalParseError, has_metavariable, parse_goals
from prover.lean.policy import DEFAULT_MAX_LENGTH, check_tactic
from prover.lean.script import render_by_block, render_declaration
from search_tree.protocol import (
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
    "see the README section 'Lean users'"
)

# (lean_dojo.Theorem, timeout seconds) -> a context manager whose __enter__ gives (dojo, init_state)
DojoFactory = Callable[[Any, int], Any]
# (url, commit) -> lean_dojo.LeanGitRepo
RepoFactory = Callable[[str, str], Any]
# (lean_dojo.Theorem, "by ..." proof text) -> whether Lean accepts it without sorry
ProofChecker = Callable[[Any, str], bool]


class LeanNotInstalled(EnvironmentFailure):
    """LeanDojo could not run ``lean``/``lake``/``git``: nothing can be proved on this machine."""


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


def _default_proof_checker(lean_theorem: Any, proof: str) -> bool:
    return bool(import_lean_dojo().check_proof(lean_theorem, proof))


@dataclass
class _Node:
    """How a state of the session was reached: from ``parent`` by ``tactic`` (the root has none)."""

    pp: str
    parent: int | None
    tactic: str | None


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
        self._fresh_ids = False  # True once a restart has happened
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
        self._root = init.id
        self._next_id = init.id + 1
        self._nodes = {init.id: _Node(init.pp, None, None)}
        self._live = {init.id: init}
        return self._protocol_state(init.id, init.pp)

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
        if init.pp != self._nodes[self._root].pp:
            self.close()
            raise EnvironmentFailure(f"{self.theorem.full_name}: the initial state changed after a restart")
        self._live = {self._root: init}
        self._fresh_ids = True

    # -- states ---------------------------------------------------------------------------------

    def _protocol_state(self, state_id: int, pp: str) -> TacticState:
        """The protocol state; a layout the parser does not know must not end the search, so it
        becomes one opaque goal (never split by AND-OR search, metavariables still detected)."""
        try:
            goals = parse_goals(pp)
        except GoalParseError:
            goals = (Goal((), pp, has_evar=has_metavariable(pp)),)
        return TacticState(pp=pp, id=state_id, goals=goals)

    def _record(self, lean_state: Any, parent: int, tactic: str) -> int:
        """A protocol id for a state LeanDojo just returned (see the module doc on ids)."""
        state_id = self._next_id if self._fresh_ids else lean_state.id
        self._next_id = max(self._next_id, state_id + 1)
        self._nodes[state_id] = _Node(lean_state.pp, parent, tactic)
        self._live[state_id] = lean_state
        return state_id

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
            try:
                result = self._dojo.run_tac(parent_state, node.tactic)
            except (ld.DojoTacticTimeoutError, ld.DojoCrashError) as exc:
                self.close()  # the process is out of step or gone: no further tactic may use it
                raise EnvironmentFailure(
                    f"replaying {node.tactic!r} on {self.theorem.full_name} after a restart failed: "
                    f"{type(exc).__name__} {exc}") from exc
            if not isinstance(result, ld.TacticState) or result.pp != node.pp:
                self.close()
                raise EnvironmentFailure(
                    f"replaying {node.tactic!r} on {self.theorem.full_name} after a restart gave a different "
                    f"result: {result!r}")
            self._live[node_id] = result
        return self._live[state_id]

    # -- the protocol ---------------------------------------------------------------------------

    def run_tac(self, state: TacticState, tactic: str) -> TacticResult:
        """Run one untrusted tactic on ``state``; timeouts and crashes are absorbed (module doc)."""
        refused = check_tactic(tactic, self.env.max_tactic_length)
        if refused is not None:
            return refused
        node = self._nodes.get(state.id)
        if node is None or node.pp != state.pp:
            raise ValueError(f"state {state.id} does not belong to this session of {self.theorem.full_name}")
        if self._dojo is None:
            raise EnvironmentFailure(f"the session of {self.theorem.full_name} is closed")
        ld = import_lean_dojo()
        lean_state = self._live_state(state.id)
        try:
            result = self._dojo.run_tac(lean_state, tactic)
        except ld.DojoTacticTimeoutError:
            self._restart(f"tactic {tactic!r} timed out")
            return TacticError(
                f"tactic {tactic!r} ran past the {self.env.tactic_timeout}s limit; Lean was restarted",
                ErrorKind.TIMEOUT)
        except ld.DojoCrashError as exc:
            cause = "out of memory" if exc.is_out_of_memory else (str(exc) or "no message")
            self._restart(f"Lean crashed on {tactic!r}: {cause}")
            return TacticError(f"Lean crashed on tactic {tactic!r} ({cause}); Lean was restarted", ErrorKind.CRASH)
        return self._map_result(result, state.id, tactic)

    def _map_result(self, result: Any, parent: int, tactic: str) -> TacticResult:
        ld = import_lean_dojo()
        if isinstance(result, ld.TacticState):
            state_id = self._record(result, parent, tactic)
            return self._protocol_state(state_id, result.pp)
        if isinstance(result, ld.ProofFinished):
            return ProofFinished(id=result.tactic_state_id, message=result.message or "")
        if isinstance(result, ld.LeanError):
            return TacticError(result.error, ErrorKind.ERROR)
        if isinstance(result, ld.ProofGivenUp):
            return ProofGivenUp(f"tactic {tactic!r} left the proof with `sorry`")
        raise TypeError(f"unexpected LeanDojo result for {tactic!r}: {result!r}")


class LeanDojoEnvironment:
    """The protocol's :class:`~search_tree.protocol.Environment` over LeanDojo (Lean 4).

    ``url``/``commit`` name the default repository (a theorem's ``extra["url"]`` and
    ``extra["commit"]`` take precedence, as the loaders in :mod:`benchmarks.datasets` set them).
    ``tactic_timeout`` bounds one tactic, ``init_timeout`` starting Lean on a theorem,
    ``max_restarts`` the recoveries per opened theorem. The factories exist so that tests can put a
    stand-in in place of ``lean_dojo.Dojo``; by default they are LeanDojo's own classes.
    """

    name = "lean"

    def __init__(
        self,
        url: str | None = None,
        commit: str | None = None,
        *,
        tactic_timeout: int = 60,
        init_timeout: int = 600,
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
        self.proof_checker = proof_checker or _default_proof_checker
        self._repos: dict[tuple[str, str], Any] = {}

    def repository(self, theorem: Theorem) -> tuple[str, str]:
        """The (url, commit) of the repository ``theorem`` belongs to."""
        url = theorem.extra.get("url") or self.url
        commit = theorem.extra.get("commit") or self.commit
        if not url or not commit:
            raise ValueError(
                f"theorem {theorem.full_name!r} names no Lean repository: set extra['url'] and "
                "extra['commit'], or LeanDojoEnvironment(url=..., commit=...)")
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
        """Re-check ``proof`` with LeanDojo's ``check_proof``: the theorem's file is compiled afresh
        with the rendered ``by`` block in place of the original proof, and a ``sorry`` warning or
        any error rejects it. Every tactic is first checked against the policy, so no ``sorry``,
        ``native_decide`` or command can reach the file."""
        script = render_declaration(theorem, proof)
        for tactic in proof_tactics(proof):
            refused = check_tactic(tactic, self.max_tactic_length)
            if refused is not None:
                return Verification(False, refused.message, script)
        ld = import_lean_dojo()
        try:
            ok = self.proof_checker(self.lean_theorem(theorem), render_by_block(proof))
        except (subprocess.CalledProcessError, FileNotFoundError) as exc:
            return Verification(False, f"Lean could not run ({exc}). {INSTALL_HINT}", script)
        except (ld.DojoInitError, EnvironmentFailure, AssertionError) as exc:
            return Verification(False, f"could not check {theorem.full_name}: {exc}", script)
        if not ok:
            return Verification(False, "Lean rejected the proof (an error or a `sorry` warning)", script)
        return Verification(True, "accepted by Lean (compiled in the theorem's file, no sorry)", script)
