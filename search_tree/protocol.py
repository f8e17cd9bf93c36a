"""The environment protocol shared by every backend and every search algorithm.

A backend (Coq, LeanDojo, a scripted test graph) opens a theorem and answers tactics:

    with env.open(theorem) as (session, init_state):
        result = session.run_tac(init_state, "intros.")

``result`` is exactly one of :class:`TacticState`, :class:`ProofFinished`, :class:`TacticError`
or :class:`ProofGivenUp`; names follow LeanDojo so that its users feel at home.

Failures of the underlying prover process are the backend's to absorb. The contract, in one place:

* a tactic that runs past its time limit answers ``TacticError(kind=ErrorKind.TIMEOUT)``;
* a prover process that crashes or hangs is restarted and the path replayed by the backend; the
  tactic that caused it answers ``TacticError(kind=ErrorKind.CRASH)`` and the session goes on;
* an untrusted tactic that the backend refuses (vernacular, several sentences, ``sorry``...) answers
  ``TacticError(kind=ErrorKind.REFUSED)`` without reaching the prover;
* only when recovery itself fails does a backend raise :class:`EnvironmentFailure` (or a
  subclass); a search then ends with that reason instead of crashing the caller.

Every proof a search reports is re-checked with :meth:`Environment.verify` in a fresh process.

Focusing (optional, for AND-OR search). A backend whose sessions implement
:class:`FocusingSession` lets a search prove the goals of a multi-goal state independently (Reap;
HTPS, Lample et al. 2022). The contract:

* ``session.focus(state, i)`` takes any state of the session with ``state.num_goals > 1`` and a
  0-based index ``i < state.num_goals``, and returns a new :class:`TacticState` whose ``goals`` is
  exactly ``(state.goals[i],)`` (the same goal, printed the same way) and whose ``key`` depends on
  that goal only, so that equal goals reached from different states merge. ``state`` itself is
  unchanged and stays usable. A search only focuses states without metavariables (``not
  state.has_metavariables``): goals that share an existential variable are not independent.
* ``run_tac`` on a focused state, or on any state reached from it, sees only the focused goal and
  the goals that tactics create from it; the other goals of ``state`` are invisible to it. Its
  ``goals`` list only those visible goals.
* When the visible goals are all closed, ``run_tac`` answers :class:`ProofFinished`, although the
  other goals of ``state`` are still open underneath. Focusing nests: a focused state with several
  visible goals can be focused again.
* ``focus`` may answer :class:`TacticError` if the backend cannot focus that goal; it raises
  :class:`EnvironmentFailure` only as ``run_tac`` does. It is not a tactic: searches count it
  separately from tactic calls.
* In a :class:`Proof`, the branches of a :class:`ProofStep` prove the goals that its tactic left,
  in the order of ``goals``: branch ``i`` is the proof found in ``focus(state, i)``. ``render`` and
  ``verify`` turn branches into focusing blocks of the backend's language (Coq: ``-``/``+``/``*``
  bullets or ``{ }``; Lean: ``·``), each focusing the first remaining goal, which is goal ``i``
  because branches ``0 .. i-1`` closed theirs.

How backends meet it (a proposal the backends own):

* Coq (coqtop): ``focus`` goes to ``state`` and runs ``n: {`` with ``n = i + 1`` (Coq 8.16's
  goal-selector brace; ``Focus`` is deprecated), giving a new state id. A tactic's reply "This
  subproof is complete, but there are some unfocused goals" while the innermost open block is one
  that ``focus`` opened is :class:`ProofFinished`. The backend refuses (``REFUSED``) a generated
  ``}`` that would close a block ``focus`` opened. Branches render as bullets or braces.
* LeanDojo (whose ``run_tac`` acts on the whole goal list; implemented in
  :mod:`prover.lean.env`): a focused state is a handle on a Dojo state plus ``hidden``, the
  number of goals at the end of the list that are not visible. ``focus(state, i)`` runs
  ``rotate_left i`` (core Lean 4; nothing for ``i = 0``) and sets ``hidden = len(all goals) - 1``;
  a tactic ``t`` on a focused state with one visible goal runs as ``focus`` with ``t`` as its
  nested block (core Lean 4's ``focus``: the main goal alone, then its new goals first and the
  others after), which is what ``t`` sees in the ``·`` block it is rendered in; with several
  visible goals (they share a metavariable) ``t`` runs as it is, and an answer that changed, moved
  or closed a hidden goal is a :class:`TacticError`. The visible goals are the first
  ``len(all goals) - hidden``, their printing is the state's ``pp`` and ``key``, and none visible
  is :class:`ProofFinished`. Branches render as ``·`` blocks.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar, Union, runtime_checkable

from search_tree.errors import UserError

if TYPE_CHECKING:
    from search_tree.language import Language


@dataclass(frozen=True)
class Hypothesis:
    """One local hypothesis ``name : type`` (``value`` holds the body of a let-binding)."""

    name: str
    type: str
    value: str | None = None


@dataclass(frozen=True)
class Goal:
    """One open goal: its hypotheses, its target and whether an unresolved metavariable (Coq's
    existential variable, Lean's ``?m``) occurs in it, as the backend's
    ``Language.has_metavariable`` reads it.

    ``has_metavariable`` matters to AND-OR search: goals that share a metavariable cannot be
    proved independently, so a state with such goals is never split.
    """

    hypotheses: tuple[Hypothesis, ...]
    target: str
    has_metavariable: bool = False
    name: str | None = None  # Lean case tag or Coq goal name, when the backend prints one


@dataclass(frozen=True)
class TacticState:
    """A proof state that is not finished.

    ``goals`` are the goals the next tactic works on. It is empty only in a backend with explicit
    focusing when the focused block is solved and other goals wait for the next focusing step
    (Coq's "This subproof is complete, but there are some unfocused goals": next comes a bullet or
    ``}``); ``pp`` then shows the waiting goals.

    ``pp`` is the pretty-printed state; ``id`` is the backend's handle for returning to it (a
    coqtop state number, a LeanDojo state id); ``key`` is the identity used to merge equal states
    during search (by default the printed goals).
    """

    pp: str
    id: int
    goals: tuple[Goal, ...] = ()
    key: str = ""

    def __post_init__(self) -> None:
        if not self.key:
            object.__setattr__(self, "key", self.pp)

    @property
    def num_goals(self) -> int:
        return len(self.goals)

    @property
    def has_metavariables(self) -> bool:
        return any(g.has_metavariable for g in self.goals)


@dataclass(frozen=True)
class ProofFinished:
    """No goal is left (and none is shelved or given up): the proof is complete.

    ``checked_seconds``: how long the environment spent checking the finished proof inside the
    step (a Coq section lemma's, a reopened theorem's): the final check's work done early, which
    the search's clock does not count, as it does not count the final check."""

    id: int = -1
    message: str = ""
    checked_seconds: float = 0.0


class ErrorKind(str, enum.Enum):
    ERROR = "error"  # the prover rejected the tactic
    TIMEOUT = "timeout"  # the tactic ran past its per-tactic limit
    CRASH = "crash"  # the prover process died or hung; the backend restarted it
    REFUSED = "refused"  # untrusted input refused before reaching the prover


@dataclass(frozen=True)
class TacticError:
    message: str
    kind: ErrorKind = ErrorKind.ERROR
    #: a ``REFUSED`` finished proof: how long its check took (as :attr:`ProofFinished.checked_seconds`)
    checked_seconds: float = 0.0


@dataclass(frozen=True)
class ProofGivenUp:
    """The tactic closed goals by giving up (``sorry``, ``admit``, ``Admitted``): never a proof."""

    message: str = ""


TacticResult = Union[TacticState, ProofFinished, TacticError, ProofGivenUp]


@dataclass(frozen=True)
class Theorem:
    """A theorem to prove, independent of the backend.

    ``file_path`` and ``position`` (line, column of the declaration) let retrievers restrict
    premises to those accessible from the theorem; ``statement`` is the declaration's text when
    the backend needs it to open the theorem.
    """

    full_name: str
    file_path: str = ""
    position: tuple[int, int] | None = None
    statement: str = ""
    extra: dict = field(default_factory=dict, compare=False, hash=False)  # a backend's: see TheoremFields


_Fields = TypeVar("_Fields", bound="TheoremFields")


class TheoremFields:
    """A backend's typed view of what it keeps in :attr:`Theorem.extra`, its fields stored under
    their own names (so a theorem's serialized form is a plain dict, whatever the backend).

    A subclass is a frozen dataclass whose every field has a default; the backend reads a theorem's
    fields with :meth:`of` and sets them with :meth:`on`, and never names a key itself. Keys of other
    backends or loaders in ``extra`` are left alone.
    """

    @classmethod
    def of(cls: type[_Fields], theorem: Theorem) -> _Fields:
        """The fields ``theorem`` carries (defaults for those it lacks); a value of the wrong type
        (from a hand-written benchmark file) is a :class:`UserError` naming the theorem and the key."""
        hints = typing.get_type_hints(cls)
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            if f.name not in theorem.extra:
                continue
            value = theorem.extra[f.name]
            hint = hints[f.name]
            if not _conforms(value, hint):
                raise UserError(f"theorem {theorem.full_name!r}: its {f.name!r} is {type(value).__name__} "
                                f"{repr(value)[:40]}, not {hint.__name__ if isinstance(hint, type) else hint}")
            values[f.name] = tuple(value) if isinstance(value, list) else value
        return cls(**values)

    def on(self, theorem: Theorem) -> Theorem:
        """``theorem`` with these fields set (those at their defaults are not written)."""
        return dataclasses.replace(theorem, extra={**theorem.extra, **self.stored()})

    def stored(self) -> dict[str, Any]:
        """The fields as ``extra`` keeps them: those not at their defaults."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)  # type: ignore[arg-type]
                if getattr(self, f.name) != f.default}


def _conforms(value: Any, hint: Any) -> bool:
    """Whether ``value`` is of type ``hint`` (the annotations :class:`TheoremFields` use: plain
    types, ``X | None``, ``tuple[X, ...]``, ``dict``, ``Any``; a JSON list stands for a tuple)."""
    origin = typing.get_origin(hint)
    if hint is Any:
        return True
    if origin in (Union, types.UnionType):
        return any(_conforms(value, arg) for arg in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if origin is tuple:
        args = typing.get_args(hint)
        if not isinstance(value, (tuple, list)):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_conforms(v, args[0]) for v in value)
        return len(value) == len(args) and all(_conforms(v, a) for v, a in zip(value, args))
    if origin is not None:
        return isinstance(value, origin)
    return isinstance(value, hint) and not (isinstance(value, bool) and hint is not bool)


@dataclass(frozen=True)
class ProofStep:
    """One tactic of a proof, optionally followed by one sub-proof per goal it produced.

    With empty ``branches`` the next step of the enclosing proof continues on the whole state; with
    branches, the backend renders focusing (Coq bullets, Lean ``·``) around each sub-proof.
    """

    tactic: str
    branches: tuple[tuple["ProofStep", ...], ...] = ()


Proof = tuple[ProofStep, ...]


def linear_proof(tactics: list[str] | tuple[str, ...]) -> Proof:
    """A proof made of tactics run one after the other on the whole state."""
    return tuple(ProofStep(t) for t in tactics)


def proof_tactics(proof: Proof) -> list[str]:
    """All tactics of a proof in the order they are run (depth first through branches)."""
    out: list[str] = []
    for step in proof:
        out.append(step.tactic)
        for branch in step.branches:
            out.extend(proof_tactics(branch))
    return out


@dataclass(frozen=True)
class Verification:
    """The verdict of an independent re-check of a proof."""

    ok: bool
    message: str = ""
    script: str = ""  # the checked source text, as the backend rendered it
    axioms: tuple[str, ...] = ()


class EnvironmentFailure(RuntimeError):
    """A backend could not recover its prover process; the search that met it ends."""


class TheoremNotFound(UserError, LookupError):
    """The theorem named does not exist in the backend's sources (bad input: a wrong name)."""


@runtime_checkable
class Session(Protocol):
    def run_tac(self, state: TacticState, tactic: str) -> TacticResult:
        """Run one untrusted tactic on ``state`` (any state of this session, not only the last)."""
        ...


@runtime_checkable
class FocusingSession(Session, Protocol):
    """A session that can focus one goal of a multi-goal state (see the module docstring)."""

    def focus(self, state: TacticState, goal_index: int) -> TacticState | TacticError:
        """A state in which only ``state.goals[goal_index]`` is to be proved."""
        ...


@runtime_checkable
class TimedSession(Session, Protocol):
    """A session that runs one tactic under a time limit the search chooses: best-first's
    :class:`search_tree.budget.Reserve` gives an expensive tactic the time the theorem has left,
    and :meth:`search_tree.budget.Meter.run_tac` keeps every tactic within the time the search has
    left."""

    def run_tac_within(self, state: TacticState, tactic: str, seconds: float,
                       at_most: bool = False) -> TacticResult:
        """:meth:`run_tac` with ``seconds`` as the tactic's time limit instead of the session's own
        (a session may let only its expensive tactics run longer than their own limit); with
        ``at_most``, ``seconds`` only lowers the tactic's own limit, never raises it."""
        ...


@runtime_checkable
class Environment(Protocol):
    """A backend's environment. A class subclasses this protocol to inherit the defaults of its
    optional members: ``language`` (None: the backend's goals are not read as text), the run hooks
    :meth:`default_corpus_path`, :meth:`default_traces`, :meth:`missing_traces`, :meth:`run_notes`
    (nothing to supply or report), :meth:`refused_proof` (no finishing step checked at once) and
    :meth:`close` (no process kept)."""

    name: str
    #: the backend's :class:`search_tree.language.Language`: MCTS drops its give-ups, retrieval reads its symbols
    language: ClassVar[Language | None] = None

    @staticmethod
    def default_corpus_path(options: dict[str, Any], theorems: Sequence[Theorem]) -> Any | None:
        """The premise corpus (a path) a retriever given none uses in a run of these environment
        ``options`` on ``theorems``; None: the run must name one."""
        return None

    @staticmethod
    def default_traces(options: dict[str, Any], theorems: Sequence[Theorem]) -> list[str] | None:
        """The traced proofs a learned generator given none learns from in such a run; None: none."""
        return None

    @staticmethod
    def missing_traces(options: dict[str, Any], theorems: Sequence[Theorem]) -> list[str]:
        """What :meth:`default_traces` leaves out of such a run because it is not built on this
        machine, one line each for the user (how to build it included); empty: nothing."""
        return []

    @staticmethod
    def run_notes(options: dict[str, Any]) -> dict[str, Any]:
        """What the environment reports about ``options`` on this machine, recorded with a run
        (e.g. a context addition left out because its library is not installed)."""
        return {}

    def open(self, theorem: Theorem) -> AbstractContextManager[tuple[Session, TacticState]]:
        """Open ``theorem``; the context yields a session and the initial state."""
        ...

    def verify(self, theorem: Theorem, proof: Proof) -> Verification:
        """Re-check ``proof`` from scratch in a fresh process, refusing axioms and give-ups."""
        ...

    def render(self, theorem: Theorem, proof: Proof) -> str:
        """The proof as source text of the backend's language (with focusing for branches)."""
        ...

    def refused_proof(self, theorem: Theorem) -> str | None:
        """Why the final check refused the last proof that ``theorem``'s search, the one opened last,
        finished and then went on from (a backend may check a finishing step at once); None when
        it refused none. Said with a search that ends unproved, so that a user learns why (a proof
        through an admitted lemma), not only that its time ran out."""
        return None

    def close(self) -> None:
        """Stop the prover processes the environment keeps (a worker calls it before it goes away,
        or to replace an environment that failed). An environment that subclasses this protocol
        and keeps no process inherits this no-op."""
        return None
