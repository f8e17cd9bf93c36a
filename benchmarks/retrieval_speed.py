"""Speed of the retrievers on the Mathlib corpus: index build time and memory, query latency, and
our BM25 against ``rank_bm25`` (speed-up and top-10 agreement) in the same run.

Queries are real proof states from LeanDojo-traced tactics, with accessibility filtering on (the
theorem's file and position), k = 10. Memory is the growth of the process's resident set while
building (coarse, but it includes what numpy, scipy and FAISS allocate outside Python).

PS-2 on a CPU: embedding the 131k premises takes about half an hour on 2 free cores, so corpus
encoding is timed on a ``--ps2-sample`` of real premises, twice each way, interleaved: the bare
``SentenceTransformer.encode`` and the resumable cached path that a real build takes (length-sorted
chunks into a memory-mapped file, fsynced, plus the flat index), with their ratio. Query encoding
is timed on Lean states and, when traced, Coq states (``--coq-data``), the retriever's one-thread
path beside the bare encoder at torch's thread setting. FAISS search latency at full size is
measured on a flat index and an HNSW index of 131,583 random unit vectors of the model's dimension
(search cost depends on size and dimension
only, not on the values); the encode+search latency adds the measured query encoding time to it.

Usage::

    python -m benchmarks.retrieval_speed
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import time
from pathlib import Path

import numpy as np
import psutil

from prover.benchmarks.results import add_results_flag, write_results
from retrieval.base import Query, build_retriever
from retrieval.bm25 import BM25Index, tokenize
from retrieval.corpus import Corpus
from retrieval.evaluation import theorem_of
from retrieval.traced_file import load_traced

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def rss_mb() -> float:
    gc.collect()
    return psutil.Process().memory_info().rss / 2**20


def percentiles(ms: list[float]) -> str:
    return f"median {statistics.median(ms):7.2f} ms, p95 {float(np.percentile(ms, 95)):7.2f} ms"


def timed(fn, *args, **kwargs):
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, 1000 * (time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=str(DATA / "mathlib4-b2540cf9" / "corpus.jsonl"))
    parser.add_argument("--data", default=str(DATA / "leandojo-b4-sample" / "val.json"))
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rank-bm25-queries", type=int, default=30)
    parser.add_argument("--coq-data", default=None,
                        help="traced Coq JSON for Coq query states (default: the traced val split, if traced)")
    parser.add_argument("--ps2-sample", type=int, default=500)
    parser.add_argument("--ps2-chunk", type=int, default=128,
                        help="chunk size of the cached path (small, so that the sample spans several chunks)")
    parser.add_argument("--retrievers", default="bm25,mepo,sine,ps2")
    parser.add_argument("--torch-threads", type=int, default=None,
                        help="torch intra-op threads for PS-2 (1 helps on an oversubscribed CPU)")
    parser.add_argument("--seed", type=int, default=0)
    add_results_flag(parser)
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    names = args.retrievers.split(",")

    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start")
    m0 = rss_mb()
    corpus, load_ms = timed(Corpus.from_jsonl, args.corpus)
    print(f"corpus: {len(corpus)} premises, {len(corpus.files)} files, loaded in {load_ms / 1000:.1f} s, "
          f"+{rss_mb() - m0:.0f} MB")
    if {"mepo", "sine"} & set(names):
        m0 = rss_mb()
        _, sym_ms = timed(lambda: corpus.symbols)
        print(f"symbol sets (shared by MePo and SInE): {sym_ms / 1000:.1f} s, +{rss_mb() - m0:.0f} MB")
    states = [(tac["state_before"], theorem_of(thm)) for thm in load_traced(args.data)
              for tac in thm.get("traced_tactics", [])]
    states = random.Random(args.seed).sample(states, min(args.queries, len(states)))
    print(f"{len(states)} query states from {args.data}, accessibility on, k = 10\n")

    for name in [n for n in names if n != "ps2"]:
        m0 = rss_mb()
        retriever, build_ms = timed(build_retriever, name, corpus)
        mem = rss_mb() - m0
        lat = [timed(retriever.retrieve, s, ctx, 10)[1] for s, ctx in states]
        print(f"{name:5s} build {build_ms / 1000:6.1f} s, +{mem:5.0f} MB | query {percentiles(lat)}")
        del retriever

    if "bm25" in names:
        compare_bm25(corpus, states, args.rank_bm25_queries)
    if "ps2" in names:
        if args.torch_threads:
            import torch

            torch.set_num_threads(args.torch_threads)
        measure_ps2(corpus, states, coq_query_states(args.coq_data), args.ps2_sample, args.ps2_chunk, args.seed)
    return 0


def coq_query_states(path: str | None) -> list[str]:
    """Proof states of traced Coq tactics: ``path``, else the traced val split when it exists."""
    if path is None:
        from prover.coq.tracer import traced_data_dir

        default = traced_data_dir() / "val.json"
        if not default.exists():
            return []
        path = str(default)
    return [tac["state_before"] for thm in load_traced(path) for tac in thm.get("traced_tactics", [])]


def compare_bm25(corpus: Corpus, states: list, num_queries: int) -> None:
    """Our BM25 against rank_bm25: same tokens, no accessibility filter (rank_bm25 has none)."""
    from rank_bm25 import BM25Okapi

    docs = [tokenize(p.text) for p in corpus.premises]
    ours, ours_ms = timed(BM25Index, docs)
    ref, ref_ms = timed(BM25Okapi, docs)
    agree = same_set = 0
    ours_lat, ref_lat = [], []
    for state, _ in states[:num_queries]:
        q = tokenize(Query.from_state(state).text)
        s_ours, t_ours = timed(ours.scores, q)
        top_ours = np.argsort(-s_ours, kind="stable")[:10]
        s_ref, t_ref = timed(ref.get_scores, q)
        top_ref = np.argsort(-np.asarray(s_ref), kind="stable")[:10]
        agree += list(top_ours) == list(top_ref)
        same_set += set(top_ours) == set(top_ref)
        ours_lat.append(t_ours)
        ref_lat.append(t_ref)
    n = len(ours_lat)
    print(f"\nBM25 vs rank_bm25 ({n} queries, scoring all {len(corpus)} premises):")
    print(f"  build: ours {ours_ms / 1000:.1f} s, rank_bm25 {ref_ms / 1000:.1f} s")
    print(f"  ours      {percentiles(ours_lat)}")
    print(f"  rank_bm25 {percentiles(ref_lat)}")
    print(f"  speed-up (median) {statistics.median(ref_lat) / statistics.median(ours_lat):.0f}x; "
          f"identical top-10 lists on {agree}/{n} queries, same top-10 sets on {same_set}/{n}")


def measure_ps2(corpus: Corpus, states: list, coq_states: list[str], sample_size: int, chunk_size: int,
                seed: int) -> None:
    """PS-2: corpus encoding throughput (bare encoder vs the resumable cached path, same texts, same
    run), query encoding on Lean and Coq states (one thread, as in search, beside the bare encoder
    at torch's setting), and FAISS search at full corpus size."""
    import tempfile

    import faiss
    import torch

    from retrieval.dense import (
        PASSAGE_PREFIX, QUERY_PREFIX, DenseRetriever, default_model_path, load_encoder, model_fingerprint,
    )

    sample = random.Random(seed).sample(range(len(corpus)), min(sample_size, len(corpus)))
    sub = corpus.restrict(sample)
    m0 = rss_mb()
    encoder, load_ms = timed(load_encoder, None, "cpu")
    print(f"\nPS-2 (all-MiniLM-L6-v2, CPU, {torch.get_num_threads()} torch threads): model loaded in "
          f"{load_ms / 1000:.1f} s (+{rss_mb() - m0:.0f} MB)")
    model_fingerprint(default_model_path())  # hashed once per process, as in a real build
    texts = [PASSAGE_PREFIX + p.text for p in sub.premises]
    encoder.encode(texts[:32], batch_size=128, show_progress_bar=False)  # warm-up, timed by neither
    bare_ms = cached_ms = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for rep in range(2):  # interleaved, so that a change of machine load hits both alike
            bare_ms += timed(encoder.encode, texts, batch_size=128, convert_to_numpy=True,
                             normalize_embeddings=True, show_progress_bar=False)[1]
            ps2, ms = timed(DenseRetriever, sub, encoder=encoder, use_cache=True, cache_dir=Path(tmp) / str(rep),
                            chunk_size=chunk_size, show_progress=False)
            cached_ms += ms
    n = 2 * len(sub)
    print(f"  corpus encoding, {len(sub)} sampled premises x 2 runs: bare SentenceTransformer.encode "
          f"{1000 * n / bare_ms:.1f} premises/s; cached path (chunks of {chunk_size}, memory-mapped, fsynced, "
          f"+ flat index) {1000 * n / cached_ms:.1f} premises/s; ratio {bare_ms / cached_ms:.3f}; "
          f"whole corpus ({len(corpus)}) projected {len(corpus) * cached_ms / n / 60000:.0f} min")
    query_ms: dict[str, list[float]] = {}
    for lang, queries in (("Lean", [Query.from_state(s).text for s, _ in states[:50]]),
                          ("Coq", [Query.from_state(s).text for s in coq_states[:50]])):
        if not queries:
            print(f"  {lang} query encoding: no states (see --coq-data)")
            continue
        bare = [timed(encoder.encode, [QUERY_PREFIX + q], convert_to_numpy=True, normalize_embeddings=True,
                      show_progress_bar=False)[1] for q in queries]
        ours = query_ms[lang] = [timed(ps2.encode_queries, [q])[1] for q in queries]
        print(f"  {lang} query encoding, {len(queries)} states: PS-2 ({ps2.query_threads} thread, as in search) "
              f"{percentiles(ours)} | bare encoder ({torch.get_num_threads()} threads) {percentiles(bare)}")
    enc = query_ms.get("Lean", [])
    dim = ps2.index.d
    rng = np.random.default_rng(seed)
    vecs = rng.standard_normal((len(corpus), dim)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    queries = ps2.encode_queries([Query.from_state(s).text for s, _ in states[:50]])
    for kind in ("flat", "hnsw"):
        t0 = time.perf_counter()
        index = faiss.IndexFlatIP(dim) if kind == "flat" else faiss.IndexHNSWFlat(dim, 32, faiss.METRIC_INNER_PRODUCT)
        index.add(vecs)
        build_s = time.perf_counter() - t0
        search = [timed(index.search, queries[i:i + 1], 10)[1] for i in range(len(queries))]
        sel_lat = []
        for i, (_, ctx) in enumerate(states[:len(queries)]):  # each query with its own theorem's mask
            mask = corpus.accessible_mask(ctx.file_path, ctx.position)
            if mask is None:
                continue
            bits = np.packbits(mask, bitorder="little")  # must outlive the search
            sel = faiss.IDSelectorBitmap(bits)
            params = (faiss.SearchParametersHNSW(sel=sel, efSearch=128) if kind == "hnsw"
                      else faiss.SearchParameters(sel=sel))
            sel_lat.append(timed(index.search, queries[i:i + 1], 10, params=params)[1])
        total = [e + s for e, s in zip(enc, search)]
        print(f"  FAISS {kind} over {len(corpus)} vectors (built in {build_s:.1f} s): search {percentiles(search)}"
              + (f"; with accessibility selector {percentiles(sel_lat)}" if sel_lat else ""))
        print(f"  PS-2 encode+search ({kind}): {percentiles(total)}")


if __name__ == "__main__":
    raise SystemExit(write_results(main()))
