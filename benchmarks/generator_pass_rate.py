"""Pass rate of proof search with each generator, same environment, search and budget.

    python -m benchmarks.generator_pass_rate --env coq --benchmark coq-stdlib:test --limit 100 \
        --train-traces TRAIN_TRACES --checkpoint runs/policy/tiny/hf \
        --generators template,knn,hf,fused --search best_first --timeout 60
    # MCTS guided by the policy's value head:  --search mcts --value learned

``--env`` is an environment name of :mod:`prover.registry` (``coq``, ``leandojo``, ``synthetic``)
or a factory ``module:callable``, called with the ``--env-option key=value`` pairs (values parsed
as JSON when they can be); nothing of a backend is imported until then. Theorems come from
``--benchmark family:split`` (:mod:`prover.benchmarks.registry`, a stable sample with ``--limit``) or
from ``--theorems``, traced data in LeanDojo's format. Generators by registry name:

* ``template``: the ``--templates`` set (default ``coq``), premises from ``--retriever`` if given;
* ``template-fitted``: the same with the priors fitted on traced Coq proofs (``coq:FITTED``,
  ``benchmarks/fit_template_priors.py``);
* ``knn``: BM25 over ``--train-traces`` (default: the Coq tracer's ``train.json``,
  :func:`prover.coq.tracer.traced_data_dir`);
* ``automation``: the Coq backend's baseline list (:func:`prover.coq.templates.automation_generator`), for reference;
* ``hf``: the ``--checkpoint`` policy (beam search);
* ``fused``: ``template`` and ``hf`` mixed with weights ``--fuse-weights`` (default 1,1).

``--retriever NAME --corpus PATH`` builds a retriever through :mod:`prover.registry` (the
retrieval package's registry) for ``template``, ``hf`` and ``fused``. ``--search`` is
``best_first`` or ``mcts``; MCTS's ``--value`` is ``constant``, ``heuristic`` or ``learned`` (the
``--checkpoint``'s value head). Prints one Markdown row per generator (proved / attempted, mean
time); ``--out FILE`` also writes every result as JSON Lines.
"""

from __future__ import annotations

import argparse
import importlib
import json
import time
from pathlib import Path
from collections.abc import Callable
from typing import IO, Any

from prover.benchmarks.results import add_results_flag, write_results
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
    """An environment by registry name, or from a ``module:callable`` factory."""
    if ":" in spec:
        module, _, attr = spec.partition(":")
        return getattr(importlib.import_module(module), attr)(**options)
    from prover.registry import ComponentSpec, build_env

    return build_env(ComponentSpec(spec, options))


def theorems_of(args: argparse.Namespace) -> list[Theorem]:
    if args.benchmark:
        from prover.benchmarks.registry import load_benchmark

        return load_benchmark(args.benchmark, args.limit)
    out = [Theorem(t["full_name"], file_path=t.get("file_path", ""), position=tuple(t["start"]) if t.get("start") else None)
           for t in load_theorems(args.theorems)]
    return out[: args.limit] if args.limit else out


def default_train_traces() -> Path | None:
    """The Coq tracer's training split, when it has been traced on this machine."""
    from prover.coq.tracer import traced_data_dir

    path = traced_data_dir() / "train.json"
    return path if path.exists() else None


def make_generator(name: str, args: argparse.Namespace, retriever: Any | None, language: Any | None) -> Any:
    """Generator ``name`` for a run whose environment's language is ``language`` (kNN's traces')."""
    if name == "template-fitted":
        return build_generator("template", templates=f"{args.templates.partition(':')[0]}:FITTED", retriever=retriever)
    return build_generator(name, **generator_options(name, args, retriever, language))


def generator_options(name: str, args: argparse.Namespace, retriever: Any | None, language: Any | None) -> dict[str, Any]:
    template = {"templates": args.templates, "retriever": retriever}
    hf = {"model": str(args.checkpoint), "retriever": retriever} if args.checkpoint else {}
    if name == "template":
        return template
    if name == "automation":  # the Coq baseline: its own fixed set, no premises
        return {}
    if name == "knn":
        args.train_traces = args.train_traces or default_train_traces()
        if not args.train_traces:
            raise SystemExit("knn needs --train-traces (no Coq traces on this machine)")
        if language is None:  # an environment that reads no goals (a scripted one): the traces' own language
            from generator.traced import load_theorems
            from prover.backends import language_of

            language = language_of({t.get("file_path", "") for t in load_theorems(args.train_traces)})
        if language is None:
            raise SystemExit(f"knn: neither --env {args.env} nor the files of {args.train_traces} have a language")
        return {"paths": str(args.train_traces), "language": language}
    if name in ("hf", "fused") and not hf:
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
    parser.add_argument("--env", required=True, help="environment name (prover.registry) or module:factory")
    parser.add_argument("--env-option", action="append", default=[], type=parse_option, metavar="KEY=VALUE")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--benchmark", help="family:split of prover.benchmarks.registry, e.g. coq-stdlib:test")
    source.add_argument("--theorems", type=Path, help="traced JSON of the theorems to prove")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--generators", default="template,knn,hf,fused")
    parser.add_argument("--templates", default="coq")
    parser.add_argument("--train-traces", type=Path, default=None)
    parser.add_argument("--checkpoint", type=Path, default=None)
    parser.add_argument("--fuse-weights", type=lambda s: tuple(float(x) for x in s.split(",")), default=(1.0, 1.0))
    parser.add_argument("--retriever", default=None)
    parser.add_argument("--corpus", type=Path, default=None)
    parser.add_argument("--search", choices=("best_first", "mcts"), default="best_first")
    parser.add_argument("--value", choices=("constant", "heuristic", "learned"), default="constant",
                        help="MCTS value; learned: the --checkpoint's value head")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per theorem")
    parser.add_argument("--max-expansions", type=int, default=None)
    parser.add_argument("--num-sampled-tactics", type=int, default=16)
    parser.add_argument("--out", type=Path, default=None, help="write every result as JSON Lines")
    parser.add_argument("--verbose", action="store_true", help="one line per theorem")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (for hf and fused)")
    add_results_flag(parser, markdown=True)
    args = parser.parse_args(argv)
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)

    from prover.proof_search import make_prover

    env = make_env(args.env, dict(args.env_option))
    theorems = theorems_of(args)
    retriever = None
    if args.retriever:
        from prover.registry import ComponentSpec, build_retriever

        retriever = build_retriever(ComponentSpec(args.retriever, {"corpus": str(args.corpus)}))
    search_options: dict[str, Any] = {"timeout": args.timeout, "max_expansions": args.max_expansions,
                                      "num_sampled_tactics": args.num_sampled_tactics}
    if args.search == "mcts":
        if args.value == "learned":
            if args.checkpoint is None:
                raise SystemExit("--value learned needs --checkpoint")
            from generator.hf import ValueHead

            search_options["value"] = ValueHead(str(args.checkpoint)).load()  # once, not per generator
        else:
            search_options["value"] = args.value
    provers = {name: (lambda name=name: make_prover(args.search, make_generator(name, args, retriever, env.language),
                                                                **search_options))
               for name in args.generators.split(",")}
    out = args.out.open("w") if args.out else None
    try:
        rows = pass_rates(env, provers, theorems, args.verbose, out)
    finally:
        if out:
            out.close()
    print(f"\n{len(theorems)} theorems from {args.benchmark or args.theorems}; {args.search}"
          f"{f' (value: {args.value})' if args.search == 'mcts' else ''}; budget {args.timeout:g} s"
          f"{'' if args.max_expansions is None else f', {args.max_expansions} expansions'} per theorem\n")
    print_pass_rates(rows, len(theorems))


def pass_rates(env, provers: dict[str, Callable[..., Any]], theorems: list, verbose: bool = False,
               out: IO[str] | None = None) -> list[tuple[str, int, float]]:
    """``(name, proved, mean seconds per theorem)`` of each prover (built by its factory, one at a
    time) on ``theorems`` in ``env``; each result is written to ``out`` as a JSON line if given."""
    rows = []
    for name, make in provers.items():
        prover = make()
        proved, start = 0, time.perf_counter()
        for theorem in theorems:
            result = prover.search(env, theorem)
            proved += result.status.value == "proved"
            if verbose:
                print(f"{name} {theorem.file_path} {theorem.full_name}: {result.status.value}", flush=True)
            if out:
                out.write(json.dumps({"generator": name, **result.to_json()}) + "\n")
                out.flush()
        rows.append((name, proved, (time.perf_counter() - start) / max(len(theorems), 1)))
    return rows


def print_pass_rates(rows: list[tuple[str, int, float]], total: int) -> None:
    """The Markdown table of :func:`pass_rates`' rows."""
    print("| generator | proved | pass rate | mean s/theorem |\n|---|---|---|---|")
    for name, proved, secs in rows:
        print(f"| {name} | {proved}/{total} | {proved / max(total, 1):.3f} | {secs:.1f} |")


if __name__ == "__main__":
    main()
    write_results()
