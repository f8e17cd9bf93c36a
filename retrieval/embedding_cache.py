"""Corpus embeddings encoded once, resumably, into a memory-mapped array on disk.

Encoding a whole library on a CPU is a half-hour job (Mathlib: 131,583 premises at ~75 per second
on 2 cores), so it must survive being killed and must not hold every vector twice. An entry is a
directory holding

* ``vectors.npy``: one float32 row per premise, in corpus order, memory-mapped and filled chunk by
  chunk (so RAM holds one chunk of vectors, never a list of all of them);
* ``manifest.json``: the key (corpus fingerprint and source, model fingerprint, prefix,
  ``max_seq_length``), the shape, the chunk size and the chunks done; rewritten atomically after
  each chunk, only once that chunk's rows are flushed and fsynced;
* ``lock``: an ``flock`` held while encoding, so that search workers sharing the cache wait for
  the first one to finish and then read its vectors instead of encoding the corpus again.

Chunks are runs of the premises sorted by decreasing text length: each ``encode`` call then pads
its batches to similar lengths, and the longest (slowest) texts come first, so the ETA errs on the
pessimistic side. A resumed run encodes the remaining chunks only, with the same texts per chunk,
hence the same vectors as an uninterrupted run.

What is read back is checked, never trusted: a ``vectors.npy`` of the wrong size (truncated) is
rebuilt, a done chunk whose rows are not unit vectors (lost writes) is encoded again, and when the
corpus file behind a cached entry has changed (same source, other fingerprint), the stale entry is
removed with a warning (the new fingerprint has its own key, so stale vectors are never served).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, Sequence

import numpy as np

from search_tree.safe_files import read_json, replace_file

log = logging.getLogger(__name__)

Encode = Callable[[list[str]], np.ndarray]

DEFAULT_CHUNK_SIZE = 2048  # ~30 s of MiniLM on 2 CPU cores: the most a kill can lose


def length_sorted_chunks(texts: Sequence[str], chunk_size: int) -> list[np.ndarray]:
    """Corpus indices in chunks of ``chunk_size``, by decreasing text length (ties: corpus order)."""
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be at least 1, got {chunk_size}")
    order = np.argsort(-np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts)), kind="stable")
    return [order[i:i + chunk_size] for i in range(0, len(order), chunk_size)]


def encode_into(out: np.ndarray, texts: Sequence[str], encode: Encode, chunks: Sequence[np.ndarray],
                todo: Sequence[int], progress: bool = False,
                on_chunk: Callable[[int], None] | None = None) -> None:
    """Encode the chunks numbered ``todo`` into the rows of ``out``; ``on_chunk(c)`` after each.

    The progress bar counts characters (a proxy for encoding cost, far better than premises when
    lengths vary tenfold) and shows premises done beside them.
    """
    from tqdm.auto import tqdm

    n_todo = sum(len(chunks[c]) for c in todo)
    bar = tqdm(total=sum(len(texts[i]) for c in todo for i in chunks[c]), unit="char", unit_scale=True,
               desc="encoding premises", disable=not progress)
    done = 0
    with bar:
        for c in todo:
            idx = chunks[c]
            out[idx] = encode([texts[i] for i in idx])
            if on_chunk is not None:
                on_chunk(c)
            done += len(idx)
            bar.update(sum(len(texts[i]) for i in idx))
            bar.set_postfix_str(f"{done}/{n_todo} premises")


def read_manifest(path: Path) -> dict | None:
    """The manifest at ``path`` (None: none there), or a ``ValueError`` saying what is wrong with
    it: a cache file may be damaged (a crash, a full disk, an edit), and a damaged one is rebuilt,
    so its fields are checked here rather than met as a TypeError while encoding. Read as a
    regular file only (a FIFO would block, a link lead outside the cache)."""
    try:
        manifest = read_json(path)  # a damaged one: ValueError
    except OSError as e:  # a link, a FIFO, a directory: UnsafePath, which is an OSError
        raise ValueError(f"is unreadable ({e})") from None
    if manifest is None:
        return None
    done = manifest.get("done") if isinstance(manifest, dict) else None
    if not (isinstance(manifest, dict) and isinstance(manifest.get("key"), dict) and isinstance(done, list)
            and all(type(c) is int for c in done)):
        raise ValueError("is not a manifest (an object with a key and a list of done chunks)")
    return manifest


class EmbeddingCache:
    """One cache entry: the vectors of one corpus under one encoder configuration."""

    def __init__(self, root: str | Path, key: dict[str, object]) -> None:
        self.key = dict(key)
        digest = hashlib.sha256(json.dumps(self.key, sort_keys=True).encode()).hexdigest()[:20]
        self.root = Path(root)
        self.path = self.root / digest
        self.vectors_file = self.path / "vectors.npy"
        self.manifest_file = self.path / "manifest.json"

    def vectors(self, texts: Sequence[str], encode: Encode, dim: int, chunk_size: int = DEFAULT_CHUNK_SIZE,
                progress: bool = False) -> np.ndarray:
        """The (read-only, memory-mapped) vectors of ``texts``, encoding whatever is not cached yet."""
        self.path.mkdir(parents=True, exist_ok=True)
        with self._locked():
            shape = (len(texts), dim)
            manifest = self._read_manifest(shape, chunk_size)
            if manifest is None:
                self._discard_stale_siblings()
                manifest = {"key": self.key, "shape": list(shape), "chunk_size": chunk_size, "done": []}
                self._write_manifest(manifest)
                np.lib.format.open_memmap(self.vectors_file, mode="w+", dtype=np.float32, shape=shape).flush()
            array = self._open(shape)
            chunks = length_sorted_chunks(texts, chunk_size)
            done = set(manifest["done"]) & set(range(len(chunks)))
            bad = sorted(c for c in done if not np.allclose(np.linalg.norm(array[chunks[c]], axis=1), 1.0, atol=1e-3))
            if bad:
                log.warning("%s: chunks %s were marked done but hold no unit vectors: encoding them again",
                            self.vectors_file, bad)
                done -= set(bad)
            todo = [c for c in range(len(chunks)) if c not in done]
            if todo:
                log.info("encoding %d of %d chunks into %s", len(todo), len(chunks), self.vectors_file)

            def commit(c: int) -> None:
                array.flush()
                with self.vectors_file.open("rb+") as f:
                    os.fsync(f.fileno())
                done.add(c)
                self._write_manifest({**manifest, "done": sorted(done)})

            encode_into(array, texts, encode, chunks, todo, progress, commit)
        return np.load(self.vectors_file, mmap_mode="r")

    @contextmanager
    def _locked(self) -> Iterator[None]:
        with (self.path / "lock").open("a") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def _read_manifest(self, shape: tuple[int, int], chunk_size: int) -> dict | None:
        """The manifest when it and ``vectors.npy`` match this key and shape; None (logged) when not."""
        try:
            manifest = read_manifest(self.manifest_file)
        except ValueError as e:
            log.warning("%s %s: rebuilding the embeddings", self.manifest_file, e)
            return None
        if manifest is None:
            return None
        if (manifest.get("key"), manifest.get("shape"), manifest.get("chunk_size")) != (self.key, list(shape), chunk_size):
            log.warning("%s was written for another key, shape or chunk size: rebuilding the embeddings",
                        self.manifest_file)
            return None
        try:
            self._open(shape)
        except (OSError, ValueError) as e:
            log.warning("%s is unreadable or truncated (%s): rebuilding the embeddings", self.vectors_file, e)
            return None
        return manifest

    def _open(self, shape: tuple[int, int]) -> np.memmap:
        # read-only first: mode "r" raises on a short file, where "r+" would zero-extend it silently
        array = np.load(self.vectors_file, mmap_mode="r")
        if array.shape != shape or array.dtype != np.float32:
            raise ValueError(f"holds {array.dtype} {array.shape}, expected float32 {shape}")
        del array
        return np.load(self.vectors_file, mmap_mode="r+")

    def _write_manifest(self, manifest: dict) -> None:
        replace_file(self.manifest_file, json.dumps(manifest, indent=1).encode())

    def _discard_stale_siblings(self) -> None:
        """Remove entries for the same corpus file and encoder whose corpus fingerprint differs."""
        source = self.key.get("corpus_source")
        if not isinstance(source, str) or not Path(source).is_file():
            return  # an in-memory corpus or a sub-corpus: no file whose edits could go stale
        same = {k: v for k, v in self.key.items() if k != "corpus_fingerprint"}
        for other in self.root.glob("*/manifest.json"):
            if other.parent == self.path:
                continue
            try:
                manifest = read_manifest(other)
            except ValueError:  # damaged: its own reader warns (once) and rebuilds it when it is asked for
                continue
            key = {} if manifest is None else manifest["key"]
            if key and {k: v for k, v in key.items() if k != "corpus_fingerprint"} == same:
                log.warning("corpus %s changed since it was encoded (fingerprint %s, now %s): "
                            "discarding the stale embeddings in %s", source, key.get("corpus_fingerprint"),
                            self.key.get("corpus_fingerprint"), other.parent)
                shutil.rmtree(other.parent, ignore_errors=True)
