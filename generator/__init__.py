"""Tactic generators behind one interface (:class:`generator.base.TacticGenerator`).

Build one by name with :func:`build_generator` (``template``, ``knn``, ``hf``, ``openai``,
``fused``, ``fixed``); the policy-value model and its training live in
:mod:`generator.policy_value`, :mod:`generator.data` and :mod:`generator.train` (these import
torch and Lightning, so they are not imported here).
"""

from generator.base import Suggestion, TacticGenerator
from generator.fixed import FixedTacticGenerator
from generator.registry import GENERATORS, build_generator

__all__ = ["GENERATORS", "FixedTacticGenerator", "Suggestion", "TacticGenerator", "build_generator"]
