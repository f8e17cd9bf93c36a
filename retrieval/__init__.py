"""Premise retrieval: corpora and retrievers behind one interface."""
