"""Environment-agnostic proof search: the environment protocol, search graphs and algorithms.

This package imports nothing else of dojo-prover and no heavy library, so it loads in milliseconds.
"""

from search_tree.best_first import BestFirstSearch
from search_tree.and_or import AndNode, OrNode, ProvedLeaf, TacticEdge, reconstruct_proof
from search_tree.budget import Budget, EventSink, Meter, Propose, Reserve
from search_tree.mcts import MCTSConfig, MCTSSearch, exploration_coefficient, puct_score
from search_tree.nodes import Edge, ErrorNode, InternalNode, ProofFinishedNode, Status, extract_proof
from search_tree.protocol import (
    Environment,
    EnvironmentFailure,
    ErrorKind,
    FocusingSession,
    Goal,
    Hypothesis,
    Proof,
    ProofFinished,
    ProofGivenUp,
    ProofStep,
    Session,
    TacticError,
    TacticResult,
    TacticState,
    Theorem,
    TheoremNotFound,
    TimedSession,
    Verification,
    linear_proof,
    proof_tactics,
)
from search_tree.language import Language
from search_tree.result import SearchResult, StopKind, StopReason
from search_tree.value import ConstantValue, GoalHeuristicValue, LearnedValue, ValueFunction, make_value

__all__ = [
    "AndNode", "BestFirstSearch", "Budget", "ConstantValue", "Edge", "Environment", "EnvironmentFailure", "ErrorKind",
    "ErrorNode", "EventSink", "FocusingSession", "Goal", "GoalHeuristicValue", "Hypothesis", "InternalNode", "Language",
    "LearnedValue", "MCTSConfig", "MCTSSearch", "Meter", "OrNode", "Proof", "ProofFinished", "ProofFinishedNode",
    "ProofGivenUp", "ProofStep", "Propose", "ProvedLeaf", "Reserve", "SearchResult", "Session", "Status", "StopKind",
    "StopReason",
    "TacticEdge",
    "TacticError", "TacticResult", "TacticState", "Theorem", "TheoremNotFound", "TimedSession", "ValueFunction",
    "Verification",
    "exploration_coefficient", "extract_proof", "linear_proof", "make_value", "proof_tactics", "puct_score",
    "reconstruct_proof"
]
