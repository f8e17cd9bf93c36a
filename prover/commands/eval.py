"""Evaluate a prover on a benchmark into a resumable run directory (config, results, action logs).

Run again with the same arguments to resume after an interruption: finished attempts are skipped.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from prover.defaults import RUN, add_limit_flags, is_positive
from prover.registry import ComponentSpec, ProverConfig, options_for_search, require_specs
from search_tree.errors import UserError, about


def parse_options(pairs: list[str] | None, flag: str = "option") -> dict[str, Any]:
    """``key=value`` pairs; values are parsed as JSON when they can be (numbers, lists, booleans)."""
    out: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UserError(f"{flag} {pair!r} is not KEY=VALUE")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


#: ``--search-opt value=learned:PATH``: the search's value from the value head of the policy-value
#: checkpoint at PATH (a :class:`generator.hf.ValueHead`)
LEARNED_VALUE = "learned:"


def parse_search_options(pairs: list[str] | None) -> dict[str, Any]:
    """``--search-opt`` pairs as :func:`parse_options` reads them, where ``value=learned:PATH``
    becomes a :class:`generator.hf.ValueHead`: the command line's spelling of it, read here only."""
    from generator.hf import ValueHead

    options = parse_options(pairs, "--search-opt")
    value = options.get("value")
    if isinstance(value, str) and value.startswith(LEARNED_VALUE):
        if value == LEARNED_VALUE:
            raise UserError("--search-opt value=learned:PATH needs PATH, a policy-value checkpoint "
                            "(the hf/ directory of a `dojo-prover train-policy` run)")
        options["value"] = ValueHead(value.removeprefix(LEARNED_VALUE))
    return options


def add_ray_address_argument(parser: argparse.ArgumentParser) -> None:
    """``--ray-address``, for every command that runs searches (docs/cluster.md)."""
    parser.add_argument("--ray-address", metavar="ADDRESS",
                        help="run the workers on this Ray cluster (HOST:PORT of `ray start --head`; default: "
                             "$RAY_ADDRESS, else a private local Ray); each node is checked first and one that "
                             "lacks something the run needs gets no tasks")


def add_trace_flag(parser: argparse.ArgumentParser, what: str) -> None:
    """``--no-trace``: the commands that run the default prover build what it learns from on first
    use (:func:`trace_first`); ``what`` says, for the help, what that is for this command."""
    parser.add_argument("--no-trace", action="store_true",
                        help=f"do not build what the default prover learns from when it is missing ({what}); "
                             "the prover then runs without it")


def trace_first(env: str, workers: int, theorems: list | None = None, progress: bool = True) -> int | None:
    """Build, before the default prover of backend ``env`` first runs, what it learns from and is
    not built yet (the backend's :attr:`~prover.backend.Feature.DEFAULT_TRACE`: for Coq the stdlib's
    trace without ``theorems``, the theorems' project's own proofs with them), saying so on stdout:
    how many files it traced now, or None when Ctrl-C stopped it (it said how far it got, and what
    it built stays for the next run), for the command to exit 130."""
    from prover.backend import Feature
    from prover.backends import backend as named
    from prover.views.safe_text import printable

    backend = named(env)  # an alias too; the command checked the name before
    if not backend.provides(Feature.DEFAULT_TRACE):
        return 0
    build = backend.load(Feature.DEFAULT_TRACE)
    try:
        return build(max(workers, 1), lambda line: print(printable(line), flush=True), progress=progress,
                     **({} if theorems is None else {"theorems": theorems}))
    except KeyboardInterrupt:
        return None


def trace_before_run(args: argparse.Namespace, theorems: list) -> bool:
    """:func:`trace_first` for the ``theorems`` a run directory ``args.out`` is about to prove
    (``eval``, ``fill-admitted``), unless ``--no-trace``, unless ``--generator`` names a prover
    other than the default, and unless the run directory is resumed (its ``config.json`` records
    the traces it started with, and it keeps them); False when Ctrl-C stopped the trace, for the
    command to exit 130. The caller refused a bad ``--out`` before (:func:`check_out_dir
    <prover.run.evaluation.check_out_dir>`), so that it does not fail after the trace."""
    if args.no_trace or args.generator is not None or (Path(args.out) / "config.json").exists():
        return True
    return trace_first(args.env, args.workers, theorems, progress=not args.no_progress) is not None


def add_run_arguments(parser: argparse.ArgumentParser, benchmark: bool = True) -> None:
    """Arguments shared by ``eval``, ``ablate`` and (without ``--benchmark``/``--limit``, it picks its
    own theorems) ``fill-admitted``: what to prove, with what, under which budget."""
    parser.add_argument("--env", default="coq", help="environment registry name (coq, leandojo, synthetic)")
    parser.add_argument("--env-opt", action="append", metavar="KEY=VALUE", help="environment option (repeatable)")
    if benchmark:
        parser.add_argument("--benchmark", required=True,
                            help="family:split (coq-stdlib:test, coq-project:PATH:test, coq-lib:NAME, minif2f:valid) "
                                 "or a JSON/JSONL file of {project, file, name} objects")
        parser.add_argument("--limit", type=int, help="a stable sample of this many theorems")
    parser.add_argument("--search", default="best_first", help="search registry name (best_first, mcts)")
    parser.add_argument("--search-opt", action="append", metavar="KEY=VALUE",
                        help="search option (repeatable); value=learned:PATH takes the search's value from a "
                             "policy-value checkpoint (a train-policy run's hf/)")
    parser.add_argument("--generator", help="generator registry name (default with --env coq: the default Coq "
                                             "prover: coq_default, its context additions and its search)")
    parser.add_argument("--generator-opt", action="append", metavar="KEY=VALUE", help="generator option")
    add_limit_flags(parser, RUN, "timeout", "max_expansions")
    parser.add_argument("--max-env-calls", type=int, help="environment calls per search")
    parser.add_argument("--num-sampled-tactics", type=int, help="tactics asked for per expansion (default: the search's)")
    parser.add_argument("--attempts", type=int, default=1, help="attempts per theorem (for pass@k)")
    parser.add_argument("--seed", type=int, default=0, help="attempt a uses seed SEED+a")
    parser.add_argument("--temperatures", help="comma-separated temperatures, cycled over attempts")
    parser.add_argument("--workers", type=int, default=1,
                        help="parallel workers (1 without a Ray cluster: in-process, no Ray)")
    add_ray_address_argument(parser)
    parser.add_argument("--task-timeout", type=float,
                        help="kill and retry a worker whose task runs longer (default: 2 x timeout + 600 s)")
    parser.add_argument("--no-logs", action="store_true", help="do not write per-search action logs")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def check_budget(args: argparse.Namespace) -> None:
    """The search budget flags are positive and finite (a zero budget would "run" and prove
    nothing; an infinite one is no budget, and ``--task-timeout inf`` no watchdog)."""
    for name in ("timeout", "max_expansions", "max_env_calls", "num_sampled_tactics", "task_timeout"):
        value = getattr(args, name, None)
        if value is not None and not is_positive(value):
            raise UserError(f"--{name.replace('_', '-')} {value}: must be positive and finite")


def _preset(args: argparse.Namespace) -> ProverConfig | None:
    """The backend's default prover (its :attr:`~prover.backend.Feature.PRESET`; Coq's is
    :func:`prover.coq.presets.default_config`) when no ``--generator`` is named and the backend has
    one; its options yield to the flags given."""
    from prover.backend import Feature
    from prover.backends import BACKENDS

    backend = BACKENDS.get(args.env)
    if args.generator is not None or backend is None or not backend.provides(Feature.PRESET):
        return None
    return backend.load(Feature.PRESET)(args.timeout, RUN.tactic_timeout, RUN.hammer_timeout, args.max_expansions,
                                        None)


def build_config(args: argparse.Namespace, retriever: str | None, retriever_opts: dict[str, Any]):
    """The run's configuration; without ``--generator``, :func:`_preset` (``--retriever`` then
    defaults to the preset's), else ``--generator`` (``fixed`` if none) with ``--retriever``."""
    from prover.run.evaluation import EvalConfig

    check_budget(args)
    preset = _preset(args)
    search_opts = {"timeout": args.timeout, "max_expansions": args.max_expansions,
                   "max_env_calls": args.max_env_calls, "num_sampled_tactics": args.num_sampled_tactics}
    search_opts = {k: v for k, v in search_opts.items() if v is not None} | parse_search_options(args.search_opt)
    env_opts = parse_options(args.env_opt, "--env-opt")
    generator = ComponentSpec(args.generator or "fixed", parse_options(args.generator_opt, "--generator-opt"))
    if preset is not None:
        require_specs(preset, "the backend's preset")
        preset_generator = preset.generator
        assert isinstance(preset_generator, ComponentSpec)  # require_specs refused any object
        search_opts = options_for_search(args.search, preset.prover.options) | search_opts
        env_opts = preset.env.options | env_opts
        generator = ComponentSpec(preset_generator.name, preset_generator.options | generator.options)
        if retriever is None:
            retriever, retriever_opts = preset.retriever.name, preset.retriever.options | retriever_opts
    components = ProverConfig(
        env=ComponentSpec(args.env, env_opts),
        prover=ComponentSpec(args.search, search_opts),
        generator=generator,
        retriever=ComponentSpec(retriever or "none", retriever_opts),
    )
    with about(f"--temperatures {args.temperatures}"):
        temps = tuple(float(t) for t in args.temperatures.split(",")) if args.temperatures else ()
    return EvalConfig(components, args.benchmark, args.limit, args.attempts, args.seed, temps,
                      args.workers, not args.no_logs, args.task_timeout, args.ray_address)


def configure(parser: argparse.ArgumentParser) -> None:
    add_run_arguments(parser)
    parser.add_argument("--retriever", help="retriever registry name (none, bm25, mepo, ...) or module:factory "
                                             "(default: none; prover.coq.default_generator:coq_premises gives the "
                                             "default Coq prover kNN premises for sauto use:)")
    parser.add_argument("--retriever-opt", action="append", metavar="KEY=VALUE", help="retriever option")
    parser.add_argument("--out", required=True, help="run directory (created, or resumed)")
    parser.add_argument("--report", action="store_true", help="write report.md when the run is complete")
    add_trace_flag(parser, "coq: a project's own proofs, the files its theorems may learn from, traced once into "
                           "the cache; the stdlib's trace is built by `demo` or `trace`")


def load_theorems(args: argparse.Namespace) -> list:
    """The benchmark ``--benchmark`` names (bad names and splits are blamed on it)."""
    from prover.benchmarks.registry import load_benchmark

    with about(f"--benchmark {args.benchmark}"):
        return load_benchmark(args.benchmark, args.limit)


def run(args: argparse.Namespace) -> int:
    from prover.run.analysis import benchmark_pass_at_k, load_run
    from prover.run.evaluation import check_out_dir, run_evaluation

    from prover.backends import check_benchmark
    from prover.registry import check_names

    config = build_config(args, args.retriever, parse_options(args.retriever_opt, "--retriever-opt"))
    check_names(config.prover)  # names first, then whether the benchmark suits the backend
    check_benchmark(args.env, args.benchmark)
    theorems = load_theorems(args)
    check_out_dir(Path(args.out), theorems)  # a bad --out fails now, not after the trace
    if not trace_before_run(args, theorems):
        return 130
    progress = run_evaluation(config, theorems, args.out, progress=not args.no_progress)
    loaded = load_run(args.out)
    retried = ", ".join(f"{kind} {n}" for kind, n in sorted(progress.retried.items()))
    print(f"{args.out}: {len(loaded.records)}/{progress.total} attempts finished "
          f"({progress.finished_now} now in {progress.seconds:.1f}s, {progress.done_before} before)"
          + (f"; retried now: {retried}" if retried else ""))
    for k in sorted({1, config.attempts}):
        value, n = benchmark_pass_at_k(loaded, k)
        print(f"pass@{k} = {value:.3f} over {n} theorems")
    if args.report and len(loaded.records) == progress.total:
        from prover.views.report import write_report

        print(f"report: {write_report(args.out)}")
    return 0
