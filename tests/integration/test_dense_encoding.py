"""The resumable PS-2 corpus encoding with the real bundled MiniLM and FAISS on a tiny corpus.

Chunks of 3 premises split the 12-premise corpus into 4 chunks, so that a kill, a resume and a
damaged cache file can each be exercised in seconds. Torch runs on one thread everywhere, so that a
chunk encoded in the killed subprocess and the same chunk encoded here are bit-identical.
"""

import json
import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import faiss  # noqa: E402,F401  required packages are imported plainly: a broken install fails
import sentence_transformers  # noqa: E402,F401

from retrieval.corpus import Corpus  # noqa: E402
from retrieval.dense import DenseRetriever  # noqa: E402
from retrieval.embedding_cache import length_sorted_chunks  # noqa: E402
from retrieval_fixtures import write_corpus  # noqa: E402

CHUNK = 3
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def one_thread():
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture
def corpus_file(tmp_path):
    return write_corpus(tmp_path)


def build(corpus_file: Path, cache: Path, **kw) -> DenseRetriever:
    return DenseRetriever(Corpus.from_jsonl(corpus_file), cache_dir=cache, chunk_size=CHUNK, show_progress=False, **kw)


def vectors(ps2: DenseRetriever) -> np.ndarray:
    return ps2.index.reconstruct_n(0, ps2.index.ntotal)


def count_encodes(monkeypatch) -> list[int]:
    """Record the size of every premise chunk the retriever encodes."""
    calls: list[int] = []
    original = DenseRetriever.encode

    def encode(self, texts, prefix, progress=False):
        if prefix == self.passage_prefix:
            calls.append(len(texts))
        return original(self, texts, prefix, progress)

    monkeypatch.setattr(DenseRetriever, "encode", encode)
    return calls


KILLED_RUN = """
import os, signal, sys
import torch
torch.set_num_threads(1)
from retrieval.corpus import Corpus
from retrieval.dense import DenseRetriever
from sentence_transformers import SentenceTransformer

calls = [0]
original = SentenceTransformer.encode
def encode(self, *args, **kwargs):
    if calls[0] == int(sys.argv[3]):
        os.kill(os.getpid(), signal.SIGKILL)  # no cleanup, no atexit: as a killed run
    calls[0] += 1
    return original(self, *args, **kwargs)
SentenceTransformer.encode = encode
DenseRetriever(Corpus.from_jsonl(sys.argv[1]), cache_dir=sys.argv[2], chunk_size={chunk}, show_progress=False)
"""


def test_killed_encode_resumes_where_it_stopped_and_matches_an_uninterrupted_run(corpus_file, tmp_path, monkeypatch):
    """A subprocess SIGKILLed while encoding its third chunk leaves 2 chunks done; the resumed run
    encodes only the other 2 and its index equals an uninterrupted run's, bit for bit.

    Fails if chunks are not committed before the next one starts (nothing done after the kill),
    if a resume re-encodes done chunks, or if resumed rows land on the wrong premises."""
    cache = tmp_path / "cache"
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    proc = subprocess.run([sys.executable, "-c", KILLED_RUN.format(chunk=CHUNK), str(corpus_file), str(cache), "2"],
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    (entry,) = [p.parent for p in cache.glob("*/manifest.json")]
    assert json.loads((entry / "manifest.json").read_text())["done"] == [0, 1]
    assert not list(entry.glob("index-*.faiss"))

    calls = count_encodes(monkeypatch)
    resumed = build(corpus_file, cache)
    assert calls == [3, 3]  # chunks 2 and 3 only
    assert resumed.cache_path == entry
    assert json.loads((entry / "manifest.json").read_text())["done"] == [0, 1, 2, 3]
    calls.clear()
    fresh = build(corpus_file, tmp_path / "fresh")
    assert calls == [3, 3, 3, 3]
    assert np.array_equal(vectors(resumed), vectors(fresh))
    assert np.array_equal(np.load(entry / "vectors.npy"), vectors(fresh))


def test_truncated_vectors_file_is_detected_and_rebuilt(corpus_file, tmp_path, monkeypatch, caplog):
    """Fails if a truncated vectors.npy is read (np.load raises, or short rows are served)."""
    first = build(corpus_file, tmp_path / "cache")
    want = vectors(first)
    vec_file = first.cache_path / "vectors.npy"
    with vec_file.open("rb+") as f:
        f.truncate(vec_file.stat().st_size // 2)
    (first.cache_path / "index-flat.faiss").unlink()
    calls = count_encodes(monkeypatch)
    with caplog.at_level(logging.WARNING, logger="retrieval.embedding_cache"):
        again = build(corpus_file, tmp_path / "cache")
    assert "unreadable or truncated" in caplog.text and str(vec_file) in caplog.text
    assert calls == [3, 3, 3, 3]
    assert np.array_equal(vectors(again), want)


def test_done_chunk_with_lost_rows_is_encoded_again(corpus_file, tmp_path, monkeypatch, caplog):
    """Rows of a chunk marked done but never written (zeros, as after a lost write) are re-encoded.

    Fails if the manifest's done list is trusted without checking the rows it vouches for."""
    first = build(corpus_file, tmp_path / "cache")
    want = vectors(first)
    chunks = length_sorted_chunks([p.text for p in first.corpus.premises], CHUNK)
    arr = np.load(first.cache_path / "vectors.npy", mmap_mode="r+")
    arr[chunks[1]] = 0.0
    arr.flush()
    del arr
    (first.cache_path / "index-flat.faiss").unlink()
    calls = count_encodes(monkeypatch)
    with caplog.at_level(logging.WARNING, logger="retrieval.embedding_cache"):
        again = build(corpus_file, tmp_path / "cache")
    assert "chunks [1] were marked done but hold no unit vectors" in caplog.text
    assert calls == [3]
    assert np.array_equal(vectors(again), want)


def test_changed_corpus_invalidates_its_cache_with_a_message(corpus_file, tmp_path, caplog):
    """Editing a premise of the corpus file gives another cache entry and removes the stale one.

    Fails if the cache key ignores the corpus fingerprint (stale vectors served) or if the
    stale entry is left behind silently."""
    first = build(corpus_file, tmp_path / "cache")
    old_entry, old = first.cache_path, vectors(first)
    text = corpus_file.read_text(encoding="utf-8")
    corpus_file.write_text(text.replace("theorem mul_one' (n : ℕ) : n * 1 = n",
                                        "theorem mul_one' (n : ℕ) : 1 * n * 1 = n"), encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="retrieval.embedding_cache"):
        second = build(corpus_file, tmp_path / "cache")
    assert second.cache_path != old_entry and not old_entry.exists()
    assert f"corpus {corpus_file} changed since it was encoded" in caplog.text
    changed = second.corpus.index_of("mul_one'")
    new = vectors(second)
    assert not np.array_equal(new[changed], old[changed])
    same = [i for i in range(len(new)) if i != changed]
    assert np.allclose(new[same], old[same], atol=1e-5)


def test_unreadable_index_file_is_rebuilt_from_cached_vectors(corpus_file, tmp_path, monkeypatch, caplog):
    """Fails if a damaged index file is loaded (FAISS raises) or if rebuilding it re-encodes."""
    first = build(corpus_file, tmp_path / "cache", index="hnsw")
    index_file = first.cache_path / "index-hnsw32.faiss"
    index_file.write_bytes(index_file.read_bytes()[:100])
    calls = count_encodes(monkeypatch)
    with caplog.at_level(logging.WARNING, logger="retrieval.dense"):
        again = build(corpus_file, tmp_path / "cache", index="hnsw")
    assert f"{index_file} is unreadable" in caplog.text
    assert calls == [] and again.index.ntotal == len(again.corpus)


def test_chunks_run_longest_first_and_reject_a_bad_size():
    """Fails if chunks are not ordered by decreasing length or a zero chunk size is accepted."""
    texts = ["aa", "a", "aaaa", "aaa", "aaaa"]
    assert [c.tolist() for c in length_sorted_chunks(texts, 2)] == [[2, 4], [3, 0], [1]]
    with pytest.raises(ValueError, match="chunk_size must be at least 1, got 0"):
        length_sorted_chunks(texts, 0)


SHARING_RUN = """
import sys, time
import torch
torch.set_num_threads(1)
from retrieval.corpus import Corpus
from retrieval.dense import DenseRetriever
from sentence_transformers import SentenceTransformer

calls = [0]
original = SentenceTransformer.encode
def encode(self, *args, **kwargs):
    calls[0] += 1
    time.sleep(1.0)  # slow enough that the other worker arrives while this one encodes
    return original(self, *args, **kwargs)
SentenceTransformer.encode = encode
ps2 = DenseRetriever(Corpus.from_jsonl(sys.argv[1]), cache_dir=sys.argv[2], chunk_size={chunk}, show_progress=False)
print(calls[0], ps2.index.reconstruct_n(0, ps2.index.ntotal).sum())
"""


def test_two_workers_building_at_once_encode_the_corpus_once(corpus_file, tmp_path):
    """Two search workers start on one shared cache at the same moment (as ``eval --workers 2``
    does): fails if both encode the corpus (8 chunk encodes instead of 4: no lock around
    encoding) or if the waiting one reads vectors other than those the first wrote."""
    cache = tmp_path / "cache"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    script = SHARING_RUN.format(chunk=CHUNK)
    procs = [subprocess.Popen([sys.executable, "-c", script, str(corpus_file), str(cache)], env=env,
                              stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [p.communicate(timeout=600)[0].split() for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    chunks = len(length_sorted_chunks([p.text for p in Corpus.from_jsonl(corpus_file).premises], CHUNK))
    assert chunks == 4 and sorted(int(calls) for calls, _ in outputs) == [0, chunks]
    assert outputs[0][1] == outputs[1][1]
