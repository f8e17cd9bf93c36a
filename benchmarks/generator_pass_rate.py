"""Pass rate of best-first search with each generator, same environment and budget.

    python -m benchmarks.generator_pass_rate --env prover.coq:CoqEnvironment \\
        --theorems traces/coq/test.json --train-traces traces/coq/train.json \\
        --checkpoint runs/policy/tiny/hf --generators template,knn,hf,fused --timeout 60

``--env`` names a factory ``module:callable`` returning an environment of the protocol
(search_tree/protocol.py), called with the ``--env-option key=value`` pairs (values parsed as JSON
when they can be); nothing of a backend is imported until then. ``--theorems`` is traced data in
LeanDojo's format: each theorem becomes a ``Theorem(full_name, file_path, start)`` (its traced
proof is not used). Generators by registry name:

* ``template``: the ``--templates`` set (default ``coq``), premises from ``--retriever`` if given;
* ``knn``: BM25 over ``--train-traces``;
* ``hf``: the ``--checkpoint`` policy (beam search);
* ``fused``: ``template`` and ``hf`` mixed with weights ``--fuse-weights`` (default 1,1).

``--retriever NAME --corpus PATH`` builds a retriever with ``retrieval.build_retriever`` (the
retrieval package's registry) for ``template``, ``hf`` and ``fused``. Prints one Markdown row per
generator (proved / attempted, mean time); ``--out FILE`` also writes every result as JSON Lines.
"""

from __future__ import annotations

import argparse
import importlib
import json
import time
from pathlib import Path
from typing import Any

from generator.registry import build_generator
from generator.traced import load_theorems
from search_tree.protocol import Theorem


def parse_option(text: str) -> tuple[str, Any]:
    key, _, value = text.partition("=")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def make_env(spec: str, options: dict[str, Any]) -> Any:
    module, _, attr = spec.partition(":")
    return getattr(importlib.import_module(module), attr)(**options)


def theorems_of(path: Path, limit: int | None) -> list[Theorem]:
    out = [Theorem(t["full_name"], file_path=t.get("file_path", ""), position=tuple(t["start"]) if t.get("start") else None)
           for t in load_theorems(path)]
    return out[:limit] if limit else out


def generator_options(name: str, args: argparse.Namespace, retriever: Any | None) -> dict[str, Any]:
    template = {"templates": args.templates, "retriever": retriever}
    hf = {"model": str(args.checkpoint), "retriever": retriever} if args.checkpoint else None
    if name == "template":
        return template
    if name == "knn":
        if not args.train_traces:
            raise SystemExit("knn needs --train-traces")
        return {"paths": str(args.train_traces)}
    if name in ("hf", "fused") and hf is None:
        raise SystemExit(f"{name} needs --checkpoint")
    if name == "hf":
        return hf
    if name == "fused":
        w_template, w_model = args.fuse_weights
        return {"members": [{"name": "template", "weight": w_template, **template},
                            {"name": "hf", "weight": w_model, **hf}]}
    raise SystemExit(f"unknown generator {name!r}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", required=True, help="module:factory of an environment")
    parser.add_argument("--env-option", action="append", default=[], type=parse_option, metavar="KEY=VALUE")
    parser.add_argument("--theorems", type=Path, required=True, help="traced JSON of the theorems to prove")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--generators", default="template,knn,hf,fused")
    parser.add_argument("--templates", default="coq")
    parser.add_argument("--train-traces", type=Path, default=None)
    parser.add_argument("--checkpoint", type=Path, default=None)
    parser.add_argument("--fuse-weights", type=lambda s: tuple(float(x) for x in s.split(",")), default=(1.0, 1.0))
    parser.add_argument("--retriever", default=None)
    parser.add_argument("--corpus", type=Path, default=None)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per theorem")
    parser.add_argument("--max-expansions", type=int, default=None)
    parser.add_argument("--num-sampled-tactics", type=int, default=16)
    parser.add_argument("--out", type=Path, default=None, help="write every result as JSON Lines")
    args = parser.parse_args(argv)

    from prover.proof_search import BestFirstSearchProver

    env = make_env(args.env, dict(args.env_option))
    theorems = theorems_of(args.theorems, args.limit)
    retriever = None
    if args.retriever:
        retrieval = importlib.import_module("retrieval")
        retriever = retrieval.build_retriever(args.retriever, args.corpus)
    rows = []
    out = args.out.open("w") if args.out else None
    try:
        for name in args.generators.split(","):
            prover = BestFirstSearchProver(build_generator(name, **generator_options(name, args, retriever)),
                                           timeout=args.timeout, max_expansions=args.max_expansions,
                                           num_sampled_tactics=args.num_sampled_tactics)
            proved, start = 0, time.perf_counter()
            for theorem in theorems:
                result = prover.search(env, theorem)
                proved += result.status.value == "proved"
                if out:
                    out.write(json.dumps({"generator": name, **result.to_json()}) + "\n")
                    out.flush()
            rows.append((name, proved, (time.perf_counter() - start) / max(len(theorems), 1)))
    finally:
        if out:
            out.close()
    print(f"\n{len(theorems)} theorems from {args.theorems}; budget {args.timeout:g} s"
          f"{'' if args.max_expansions is None else f', {args.max_expansions} expansions'} per theorem\n")
    print("| generator | proved | pass rate | mean s/theorem |\n|---|---|---|---|")
    for name, proved, secs in rows:
        print(f"| {name} | {proved}/{len(theorems)} | {proved / max(len(theorems), 1):.3f} | {secs:.1f} |")


if __name__ == "__main__":
    main()
