"""Premise retrieval: corpora and retrievers behind one interface.

``build_retriever(name, corpus, **options)`` with ``name`` in ``RETRIEVERS`` (``ps2``, ``mepo``,
``sine``, ``bm25``, ``knn``, ``fusion``); every retriever answers ``retrieve(state, context, k)``. Heavy
libraries (torch, FAISS, sentence-transformers, Lightning) load only with ``ps2`` and training.
"""

from retrieval.base import RETRIEVERS, Query, RetrievalContext, Retriever, build_retriever
from retrieval.corpus import Corpus, Premise

__all__ = ["RETRIEVERS", "Corpus", "Premise", "Query", "RetrievalContext", "Retriever", "build_retriever"]
