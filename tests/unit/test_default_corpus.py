"""The retrievers' default corpus follows the run: the registry hands an environment's
``default_corpus_path`` the environment's options and the theorems to prove (a Coq
project's corpus, not always the stdlib's)."""

from __future__ import annotations

import pytest

import prover.registry as registry
from prover.registry import ComponentSpec, ProverConfig, with_defaults
from search_tree import Theorem
from search_tree.registry import Registry


class CorpusPerProject:
    """An environment whose default corpus names the project of its options or of the theorems."""

    def __init__(self, project: str = "") -> None:
        self.project = project

    @staticmethod
    def default_corpus_path(options: dict, theorems: list[Theorem]) -> str:
        project = options.get("project") or "+".join(sorted({t.extra["project"] for t in theorems})) or "none"
        return f"corpus-of-{project}.jsonl"


@pytest.fixture
def stub_env(monkeypatch):
    monkeypatch.setattr(registry, "ENVIRONMENTS", Registry("environment", {"stub": f"{__name__}:CorpusPerProject"}))


def _config(env_options: dict, retriever: ComponentSpec | None = None) -> ProverConfig:
    return ProverConfig(ComponentSpec("stub", env_options), ComponentSpec("best_first"), ComponentSpec("fixed"),
                        retriever or ComponentSpec("bm25"))


def test_default_corpus_gets_the_env_options_and_the_theorems(stub_env):
    """Fails if :func:`prover.registry.with_defaults` asks the environment for its default corpus
    without its options or without the run's theorems (every project would get one corpus), or if
    an explicit corpus or no retriever stops winning over the default."""
    theorems = [Theorem("t", "theories/A.v", (1, 1), "t : True", extra={"project": "proj"})]
    assert with_defaults(_config({}), theorems).retriever.options["corpus"] == "corpus-of-proj.jsonl"
    assert with_defaults(_config({"project": "other"}), theorems).retriever.options["corpus"] == "corpus-of-other.jsonl"
    assert with_defaults(_config({})).retriever.options["corpus"] == "corpus-of-none.jsonl"
    mine = _config({}, ComponentSpec("bm25", {"corpus": "x.jsonl"}))
    assert with_defaults(mine, theorems).retriever.options["corpus"] == "x.jsonl"
    assert "corpus" not in with_defaults(_config({}, ComponentSpec("none")), theorems).retriever.options
