"""Tactic generators behind one interface (:class:`generator.base.TacticGenerator`)."""

from generator.base import Suggestion, TacticGenerator
from generator.fixed import FixedTacticGenerator

__all__ = ["FixedTacticGenerator", "Suggestion", "TacticGenerator"]
