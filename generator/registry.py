"""Generators by name, so that swapping the policy is a change of flags, not of code.

``build_generator(name, **options)`` imports the generator's module only when it is built (the
``hf`` one pulls in torch and transformers). Names:

=========  ==========================================================================
``fixed``     :class:`generator.fixed.FixedTacticGenerator` (``tactics=[...]``)
``template``  :class:`generator.template.TemplateGenerator` (``templates="coq"``, ``retriever=``)
``knn``       :meth:`generator.knn.KNNGenerator.from_traced` (``paths=`` traced JSON files,
              ``language=`` theirs)
``proofs``    :meth:`generator.proof_retrieval.ProofRetrievalGenerator.from_traced` (``paths=``,
              ``language=``)
``hf``        :class:`generator.hf.HFGenerator` (``model=`` a local checkpoint directory)
``openai``    :class:`generator.openai_compat.OpenAICompletionGenerator` (``base_url=``, ``model=``)
``fused``     :class:`generator.fused.FusedGenerator`; ``members=[{"name": ..., "weight": ...,
              **options}, ...]`` (or ``(generator, weight)`` pairs); a ``retriever`` or a
              ``language`` given to ``fused`` is passed on to the members that take one
=========  ==========================================================================

A backend's own generators (Coq's ``automation``, ``coq_hammer`` and ``coq_default``, the
synthetic backend's ``synthetic``) live in its folder above this package, and
:mod:`prover.backends` adds them to the table when :mod:`prover` is imported: this package names
no backend. A generator defined elsewhere is named by its import path
(``"mypkg.module:MyGenerator"``), which works wherever that module can be imported.
"""

from __future__ import annotations

from typing import Any

from generator.base import TacticGenerator
from search_tree.language import Language
from search_tree.registry import Registry, accepts, parameter

GENERATORS = Registry("generator", import_paths=True, targets={
    "fixed": "generator.fixed:FixedTacticGenerator",
    "template": "generator.template:TemplateGenerator",
    "knn": "generator.knn:KNNGenerator.from_traced",
    "proofs": "generator.proof_retrieval:ProofRetrievalGenerator.from_traced",
    "hf": "generator.hf:HFGenerator",
    "openai": "generator.openai_compat:OpenAICompletionGenerator",
    "fused": "generator.registry:_build_fused",
})


def build_generator(name: str, **options: Any) -> TacticGenerator:
    """The generator registered as ``name``, built with ``options`` (:class:`UnknownName` if none)."""
    return GENERATORS.load(name)(**options)


def _build_fused(members: list[Any], retriever: Any | None = None, language: Language | None = None) -> TacticGenerator:
    from generator.fused import FusedGenerator

    built = []
    for member in members:
        if isinstance(member, dict):
            spec = dict(member)
            member_name, weight = spec.pop("name"), float(spec.pop("weight", 1.0))
            if retriever is not None and accepts(GENERATORS.load(member_name), "retriever"):
                spec.setdefault("retriever", retriever)
            if language is not None and parameter(GENERATORS.load(member_name), "language") is not None:
                spec.setdefault("language", language)
            built.append((build_generator(member_name, **spec), weight))
        else:
            generator, weight = member
            built.append((generator, float(weight)))
    return FusedGenerator(built)
