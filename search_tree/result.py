"""The result of one proof search, shared by every search algorithm."""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field

from search_tree.errors import UserError
from search_tree.nodes import Status
from search_tree.protocol import Proof, Theorem, proof_tactics


class StopKind(str, enum.Enum):
    """Why a search ended: the proof found, the search space exhausted, a budget spent (one kind per
    :class:`~search_tree.budget.Budget` limit), or a failure of the prover, the re-check or the worker."""

    PROVED = "proved"
    EXHAUSTED = "exhausted"
    TIMEOUT = "timeout"
    MAX_EXPANSIONS = "max_expansions"
    MAX_ENV_CALLS = "max_env_calls"
    MAX_SIMULATIONS = "max_simulations"
    MAX_NODES = "max_nodes"
    ENVIRONMENT_FAILURE = "environment_failure"  # the backend could not recover its prover process
    VERIFICATION_FAILED = "verification_failed"  # the proof found did not pass the independent re-check
    WORKER_ERROR = "worker_error"  # the worker raised (a bug, or a component that failed)
    WORKER_DIED = "worker_died"  # the worker process was lost (killed, crashed, past its task timeout)
    NODE_LOST = "node_lost"  # the cluster node of the worker left


@dataclass(frozen=True)
class StopReason:
    """A :class:`StopKind` and what the failure said (empty for the kinds that need no words).

    Stored as text, ``kind`` or ``kind: detail`` (:meth:`__str__`, :meth:`parse`), the form result
    files have always had."""

    kind: StopKind
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.kind.value}: {self.detail}" if self.detail else self.kind.value

    def first_line(self, limit: int = 200) -> "StopReason":
        """The reason with only the first line of its detail, at most ``limit`` characters of it."""
        return StopReason(self.kind, self.detail.splitlines()[0][:limit] if self.detail else "")

    @classmethod
    def parse(cls, text: str) -> "StopReason":
        """The reason stored as ``text``; a :class:`~search_tree.errors.UserError` when it names no kind."""
        name, _, detail = text.partition(":")
        try:
            kind = StopKind(name.strip())
        except ValueError:
            raise UserError(f"stop reason {text[:60]!r} names no kind ({', '.join(k.value for k in StopKind)})") from None
        return cls(kind, detail.strip())


@dataclass
class SearchResult:
    """What a search found and what it cost.

    ``status`` is PROVED only for a proof that passed independent re-checking; OPEN means the
    budget ran out, FAILED that the search space was exhausted or the environment failed.
    ``stop_reason`` says which (a :class:`StopKind`, with the failure's message as its detail).
    """

    theorem: Theorem
    status: Status
    proof: Proof | None
    stop_reason: StopReason
    total_time: float
    env_time: float
    gen_time: float
    num_nodes: int
    num_expansions: int
    num_env_calls: int
    script: str = ""  # the proof rendered in the backend's language, as it was re-checked
    stats: dict = field(default_factory=dict)  # algorithm-specific figures (e.g. MCTS simulations)

    @classmethod
    def failed(cls, theorem: Theorem, reason: StopReason, elapsed: float = 0.0) -> "SearchResult":
        """A FAILED result for a search that could not run to an answer (broken backend, dead worker)."""
        return cls(theorem, Status.FAILED, None, reason, elapsed, 0.0, 0.0, 0, 0, 0)

    @property
    def tactics(self) -> list[str] | None:
        return None if self.proof is None else proof_tactics(self.proof)

    def to_json(self) -> dict:
        data = asdict(self)
        data["theorem"] = {k: v for k, v in data["theorem"].items() if k != "extra"}
        data["status"] = self.status.value
        data["proof"] = self.tactics
        data["stop_reason"] = str(self.stop_reason)
        return data
