"""The result of one proof search, shared by every search algorithm."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from search_tree.nodes import Status
from search_tree.protocol import Proof, Theorem, proof_tactics


@dataclass
class SearchResult:
    """What a search found and what it cost.

    ``status`` is PROVED only for a proof that passed independent re-checking; OPEN means the
    budget ran out, FAILED that the search space was exhausted or the environment failed.
    ``stop_reason`` says which: ``proved``, ``exhausted``, ``timeout``, ``max_expansions``,
    ``max_env_calls``, ``max_simulations``, ``max_nodes``, ``environment_failure: ...`` or
    ``verification_failed: ...``.
    """

    theorem: Theorem
    status: Status
    proof: Proof | None
    stop_reason: str
    total_time: float
    env_time: float
    gen_time: float
    num_nodes: int
    num_expansions: int
    num_env_calls: int
    script: str = ""  # the proof rendered in the backend's language, as it was re-checked
    stats: dict = field(default_factory=dict)  # algorithm-specific figures (e.g. MCTS simulations)

    @classmethod
    def failed(cls, theorem: Theorem, reason: str, elapsed: float = 0.0) -> "SearchResult":
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
        return data
