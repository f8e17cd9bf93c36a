"""The default Coq prover side by side with CoqHammer, on the same theorems, in one run.

    python benchmarks/coq_vs_hammer.py [--limit 200] [--timeout 60] [--workers 2] [--out DIR] [--write-results]
    python benchmarks/coq_vs_hammer.py --benchmark coq-lib:AAC_tactics --only hammer default ...
    python benchmarks/coq_vs_hammer.py --given-back 20 --only default hammer --timeout 20 --workers 1

On a stable sample (:func:`prover.benchmarks.registry.stable_sample`) of the Coq stdlib's test split
(or of any Coq benchmark, ``--benchmark``: a project, an installed library, a JSONL listing),
with the same wall-clock limit per theorem (``--timeout``) and the same workers for every system:

* ``hammer``: one call of CoqHammer's ``hammer`` (E and CVC4), ``--timeout`` seconds;
* ``sauto``: one call of ``sauto``, ``--timeout`` seconds;
* ``stock``: the stock tactics :data:`STOCK` on the theorem's first state, ``--timeout / 7``
  seconds each (a theorem counts when any of them proves it: the best stock tactic per theorem);
* ``template``: the old baseline, best-first over the ``template`` generator with BM25 premises;
* ``default``: the default Coq prover (:mod:`prover.coq.default_generator`), best-first;
* ``default-unlearned``: the default without a learned policy (the hand-tiered union), beside
  ``default`` where the package ships a checkpoint or ``--policy`` names one;
* ``default-no-namesakes``: the default without its namesake member (:mod:`generator.namesake`),
  the ablation that measures it; run only when named with ``--only``, best with ``--namesakes``;
* ``default-no-twins``: the default whose kNN and proof retrieval carry no tactic over to a twin
  goal (:mod:`generator.analogy`), the ablation that measures it; run only when named with
  ``--only``, best with ``--twins``;
* ``default-no-own-traces``: on a project's theorems, the default learning from the stdlib's and
  its required libraries' traces but not from the project's own proofs, as it ran before
  ``eval`` traced a project on first use; run only when named with ``--only``;
* ``default-mcts``: the same generator and environment under AND-OR MCTS; run only when named
  with ``--only``, to choose the default's search on the train or val split (``--split``),
  never on the test theorems it is compared on.

Before any ``default`` system runs on a project's theorems, the project's proofs they may learn from
are traced where they are not yet, as ``eval`` does on first use (:mod:`prover.coq.first_trace`).

Each system is an ``eval`` run directory under ``--out`` (:func:`prover.run.evaluation.run_evaluation`),
so an interrupted run resumes where it stopped when started again with the same arguments (a
larger ``--limit`` is a new directory; its ``config.json`` may say ``carried_over`` when it was
seeded with a finished smaller sample's results, which the stable sample contains, and the
report then says so). Prints
each pass rate, the union and the overlaps of ``default`` with each other system, the median time
to proof, and the leak check's two numbers: how many theorems it gives back to CoqHammer
(:func:`prover.coq.additions.reopened`: those whose module CoqHammer's imports load, which are
reopened under another module path, :mod:`prover.coq.reopened`) and how many proofs of each
system it refused (their term depended on the compiled copy of the theorem or of a later object
of its file, :mod:`prover.coq.dependencies`; read from the action logs, a refused step and a refused final
proof alike). The default is also compared with ``hammer`` on the given-back theorems alone.
Last, each system's proofs by the length of the library's own proof of the theorem (its proof
sentences, :func:`library_proof_lengths`), which shows where the proofs found lie.
Every proof is verified by coqc and coqchk as the search reports it; ``hammer`` proofs are
rewritten to their reconstruction tactics first, so the check needs no ATP.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from prover.benchmarks.results import add_results_flag, write_results  # noqa: E402
from prover.commands.eval import add_ray_address_argument  # noqa: E402
from prover.coq.presets import TUNED_ON  # noqa: E402
from prover.defaults import RUN  # noqa: E402
from search_tree.budget import LATE_GRACE  # noqa: E402

STOCK = ("auto.", "eauto.", "intuition.", "firstorder.", "congruence.", "lia.", "tauto.")
#: the systems run when ``--only`` does not name others
COMPARED = ("hammer", "sauto", "stock", "template", "default")


def systems(timeout: float, hammer_timeout: float | None = None, policy: Path | None = None) -> dict:
    """The systems by name, as prover configurations (module docstring); ``hammer_timeout``: the
    default's ``hammer`` calls (None: :attr:`prover.defaults.Limits.hammer`); ``policy``: the
    default's learned checkpoint (None: the one shipped in the package, if any)."""
    from prover.coq.presets import SHIPPED, alone_config, default_config
    from prover.registry import ComponentSpec, ProverConfig, options_for_search

    default = default_config(timeout, hammer_timeout=hammer_timeout, policy=SHIPPED if policy is None else policy)
    generator = default.generator
    assert isinstance(generator, ComponentSpec)  # default_config names its generator
    template = ProverConfig(env=ComponentSpec("coq", {}), prover=ComponentSpec("best_first", {"timeout": timeout}),
                            generator=ComponentSpec("template", {"templates": "coq"}), retriever=ComponentSpec("bm25"))
    return {
        "hammer": alone_config(["hammer."], timeout, ["hammer"]),
        "sauto": alone_config(["sauto."], timeout, ["hammer-tactics"]),
        "stock": alone_config(list(STOCK), timeout, ["lia"]),
        "template": template,
        "default": default,
        "default-unlearned": default_config(timeout, hammer_timeout=hammer_timeout, policy=None),
        "default-no-namesakes": dataclasses.replace(default, generator=ComponentSpec(
            generator.name, {**generator.options, "namesakes": False})),
        "default-no-twins": dataclasses.replace(default, generator=ComponentSpec(
            generator.name, {**generator.options, "twins": False})),
        "default-no-own-traces": default,  # its traces are the theorems' project's (without_own_traces)
        "default-mcts": dataclasses.replace(default, prover=ComponentSpec(
            "mcts", options_for_search("mcts", default.prover.options))),
    }




def proved_times(run, timeout: float) -> tuple[dict[str, float], int]:
    """``{theorem key: seconds to proof}`` of the theorems of a loaded run proved within ``timeout``
    (and the searches' own :data:`search_tree.budget.LATE_GRACE`), and how many proofs ended later
    and are not counted: runs recorded before the searches applied that rule themselves (a tactic
    that overran its limit, as CoqHammer waiting for its ATPs ignores Coq's ``Timeout``, must not
    buy one system more time than the others)."""
    times = {r["key"]: float(r["result"].get("total_time", 0.0)) for r in run.records if r["status"] == "proved"}
    in_time = {key: seconds for key, seconds in times.items() if seconds <= timeout + LATE_GRACE}
    return in_time, len(times) - len(in_time)


def leak_refusals(run) -> tuple[int, int]:
    """(proofs the leak check refused, theorems with at least one) in a loaded run's action logs:
    refused steps of the search and refused final verifications."""
    from prover.coq.verify import LEAK_REFUSED
    from search_tree.events import TacticRun, Verified, parse_events

    proofs, theorems = 0, 0
    for record in run.records:
        if not record.get("log"):
            continue
        path = Path(run.path) / record["log"]
        events, _ = parse_events(path.read_text().splitlines(), str(path))
        refused = sum(isinstance(e, (TacticRun, Verified)) and (e.message or "").startswith(LEAK_REFUSED)
                      for e in events)
        proofs += refused
        theorems += refused > 0
    return proofs, theorems


#: the buckets of :func:`by_length`: (label, fewest sentences, most)
LENGTHS = (("1", 1, 1), ("2-3", 2, 3), ("4-6", 4, 6), ("7-15", 7, 15), ("16+", 16, None))
#: a proof sentence that is no step: ``Proof.`` (``Proof using``/``with``), a bullet, a brace
_NO_STEP = re.compile(r"(?:[-+*]+|[{}]|Proof(?:\s+(?:using|with)\b.*)?)", re.S)  # ``Proof term.`` is one step


def library_proof_lengths(theorems: list) -> dict[str, int]:
    """``{theorem key: sentences of its library proof}``: the proof's sentences between the statement
    and its terminator, less ``Proof.``, bullets and braces (a ``;``-chain counts as one), read from
    each theorem's project index; a theorem not found there is left out."""
    from prover.coq.index import CoqIndex, load_index
    from prover.coq.project import load_project_ref, read_source
    from prover.coq.records import CoqFields
    from prover.run.evaluation import theorem_key

    indexes: dict[str, CoqIndex] = {}
    texts: dict[tuple[str, str], str] = {}  # (project, file): a file's theorems share one read
    lengths: dict[str, int] = {}
    for theorem in theorems:
        fields = CoqFields.of(theorem)
        ref = repr(sorted((fields.project or {}).items()))
        if ref not in indexes:
            indexes[ref] = load_index(load_project_ref(fields.project), progress=False)
        index = indexes[ref]
        source = index.files.get(theorem.file_path)
        entry = next((t for t in source.theorems if t.offset == fields.offset), None) if source else None
        if entry is None:
            continue
        if (ref, theorem.file_path) not in texts:
            texts[ref, theorem.file_path] = read_source(index.root, theorem.file_path)
        text = texts[ref, theorem.file_path]
        lengths[theorem_key(theorem)] = sum(not _NO_STEP.fullmatch(text[start:end].strip().rstrip("."))
                                            for start, end in entry.proof)
    return lengths


def by_length(proved: dict[str, dict[str, float]], lengths: dict[str, int], n: int) -> None:
    """Prints each system's proofs per bucket of :data:`LENGTHS` of the library's own proofs of the
    ``n`` theorems, and how many are in none."""
    print("Proved by the length of the library's own proof (its sentences less `Proof.`, bullets and braces):\n")
    print("| system | " + " | ".join(label for label, _, _ in LENGTHS) + " |")
    print("|---|" + "---|" * len(LENGTHS))
    buckets = [{key for key, n in lengths.items() if low <= n and (high is None or n <= high)}
               for _, low, high in LENGTHS]
    print("| theorems | " + " | ".join(str(len(keys)) for keys in buckets) + " |")
    for name, times in proved.items():
        print(f"| {name} | " + " | ".join(f"{len(keys & set(times))}" for keys in buckets) + " |")
    left_out = n - sum(len(keys) for keys in buckets)
    print(f"\n{left_out} of the {n} theorems are in no column (not in their project's index, or no tactic sentence)\n"
          if left_out else "")


def _ratio(what: str, mine: set[str], other: set[str], n: int) -> None:
    ratio = f"{len(mine) / len(other):.2f}" if other else "undefined (hammer proved none)"
    print(f"{what} = {len(mine)}/{n} : {len(other)}/{n} = {ratio} (target: at least 1.3)\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=200, help="theorems of the split (stable sample)")
    parser.add_argument("--split", choices=("train", "val", "test"), default="test",
                        help="stdlib split (default: test; choose settings on train or val)")
    parser.add_argument("--benchmark", nargs="+", help="any Coq benchmark names or listings instead of the stdlib "
                                                       "split (coq-lib:NAME[:split], coq-project:PATH[:split], "
                                                       "FILE.jsonl); several are compared one by one, then pooled")
    parser.add_argument("--timeout", type=float, default=RUN.timeout,
                        help=f"wall-clock seconds per theorem and system (default: {RUN.timeout:g}, the run default)")
    parser.add_argument("--hammer-timeout", type=float, metavar="S",
                        help="seconds for the default's hammer calls, to choose them on the train or val split "
                             f"(default: {RUN.hammer:g} at the run default's timeout: a share of --timeout, capped)")
    parser.add_argument("--policy", type=Path, metavar="CHECKPOINT",
                        help="the default's learned policy (default: the one shipped in the package, if any), "
                             "to choose one on the train or val split before it is shipped")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("runs/coq_vs_hammer"), help="run directories, one per system")
    parser.add_argument("--given-back", type=int, metavar="N",
                        help="prove only the first N theorems of the --limit sample that the leak check gives "
                             "back to CoqHammer (their module is among those its imports load)")
    parser.add_argument("--namesakes", action="store_true",
                        help="prove only the theorems of the sample that have an accessible namesake, where the "
                             "default's namesake member proposes anything (elsewhere it changes nothing)")
    parser.add_argument("--twins", action="store_true",
                        help="prove only the stdlib theorems of the sample that have a twin, an earlier lemma of "
                             "their file whose statement differs from theirs in a few names alone "
                             "(benchmarks/twin_proofs.py), where the default carries tactics over by analogy")
    parser.add_argument("--only", nargs="+", metavar="SYSTEM", help="run only these systems (default: all)")
    parser.add_argument("--report", action="store_true",
                        help="prove nothing: print the tables from the run directories as they are (each must hold "
                             "every theorem), e.g. after the code changed under a finished run")
    add_ray_address_argument(parser)
    add_results_flag(parser, markdown=True)
    args = parser.parse_args(argv)
    if args.limit < 1 or args.timeout <= 0 or args.workers < 1 or (args.given_back is not None and args.given_back < 1) \
            or (args.hammer_timeout is not None and args.hammer_timeout <= 0):
        parser.error("--limit, --timeout, --workers, --given-back and --hammer-timeout must be positive")

    names = args.only or list(COMPARED)
    unknown = sorted(set(names) - set(systems(args.timeout)))
    if unknown:
        parser.error(f"--only {' '.join(unknown)}: unknown system (known: {', '.join(systems(args.timeout))})")
    if args.hammer_timeout is not None and not {n for n in names if n.startswith("default")}:
        parser.error("--hammer-timeout: it sets the default's hammer calls, and --only runs no default")
    if args.policy is not None:
        from generator.learned_policy import CheckpointError, LearnedPolicy
        try:
            LearnedPolicy.load(args.policy)
        except CheckpointError as exc:
            parser.error(f"--policy: {exc}")
    pooled = {name: 0 for name in names}
    total = 0
    for benchmark in args.benchmark or [f"coq-stdlib:{args.split}"]:
        proved, n = compare(args, parser, benchmark, names)
        total += n
        for name, times in proved.items():
            pooled[name] += len(times)
    if args.benchmark and len(args.benchmark) > 1:
        print(f"## Pooled over {len(args.benchmark)} benchmarks: {', '.join(f'`{b}`' for b in args.benchmark)}\n")
        print("| system | proved | pass rate |\n|---|---|---|")
        for name, count in pooled.items():
            print(f"| {name} | {count}/{total} | {count / total:.3f} |")
        if "default" in pooled and "hammer" in pooled:
            ratio = f"{pooled['default'] / pooled['hammer']:.2f}" if pooled["hammer"] else "undefined (hammer proved none)"
            print(f"\npooled default / hammer = {pooled['default']}/{total} : {pooled['hammer']}/{total} = {ratio} "
                  "(target: at least 1.3)")
    return 0


def tuned_source(benchmark: str, theorems: list) -> str | None:
    """The benchmark of ``TUNED_ON`` that ``benchmark`` is, or, for a listing of theorems, the
    stdlib split of ``TUNED_ON`` that holds every one of them (a listing drawn from a split choices
    were made on is tuning data too); None for evaluation data."""
    from prover.benchmarks.registry import is_theorem_list, load_benchmark
    from prover.run.evaluation import theorem_key

    if benchmark in TUNED_ON or benchmark.rsplit(":", 1)[0] in TUNED_ON:
        return benchmark
    if not is_theorem_list(benchmark):
        return None
    keys = {theorem_key(t) for t in theorems}
    return next((split for split in TUNED_ON if split.startswith("coq-stdlib:")
                 and keys <= {theorem_key(t) for t in load_benchmark(split)}), None)


def without_own_traces(default, theorems: list, parser: argparse.ArgumentParser):
    """``default`` learning from what it would learn from on ``theorems``' project but the project's
    own traced proofs (``default-no-own-traces``): the traces are given explicitly, so the run's
    ``config.json`` records them."""
    import warnings

    from prover.coq.env import CoqEnvironment, run_project
    from prover.coq.tracer import traced_data_dir
    from prover.registry import ComponentSpec

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        project = run_project({}, theorems)
        traces = CoqEnvironment.default_traces({}, theorems)
    if project.is_stdlib or traces is None:
        parser.error("default-no-own-traces: the theorems are not one project's (the stdlib's have no own traces)")
    generator = default.generator
    return dataclasses.replace(default, generator=ComponentSpec(generator.name, {
        **generator.options, "traces": [t for t in traces if t != str(traced_data_dir(project))]}))


def with_namesakes(theorems: list) -> list:
    """The theorems for which the default's namesake member finds an accessible namesake in the
    traced stdlib's corpus: a property of the generator, not of the theorems' proofs."""
    from generator.namesake import NamesakeGenerator
    from prover.coq.tracer import trace_files

    files = trace_files()
    generator = NamesakeGenerator.from_traced(files) if files else None
    if generator is None:
        raise SystemExit("--namesakes: the stdlib is not traced here; run `dojo-prover trace --env coq` first")
    return [t for t in theorems if generator.namesakes(t)]


def with_twins(theorems: list) -> list:
    """The theorems that have a twin in the traced stdlib (:func:`benchmarks.twin_proofs.count`):
    an earlier lemma of their file whose first state differs from theirs in a few names alone."""
    from benchmarks.twin_proofs import count
    from generator.traced import load_theorems
    from prover.coq.tracer import trace_files
    from prover.run.evaluation import theorem_key

    files = trace_files()
    if not files:
        raise SystemExit("--twins: the stdlib is not traced here; run `dojo-prover trace --env coq` first")
    twins = {f"{t['file_path']}::{t['full_name']}" for t in count(load_theorems(files))[1]}
    return [t for t in theorems if theorem_key(t) in twins]


def compare(args: argparse.Namespace, parser: argparse.ArgumentParser, benchmark: str,
            names: list[str]) -> tuple[dict[str, dict[str, float]], int]:
    """Runs (or with ``--report`` reads) every system of ``names`` on ``benchmark`` and prints its
    tables; the proofs found per system (theorem key: seconds) and the number of theorems."""
    from prover.benchmarks.registry import load_benchmark
    from prover.run.analysis import load_run
    from prover.coq.additions import reopened
    from prover.run.evaluation import EvalConfig, run_evaluation, theorem_key

    if len(args.benchmark or ()) > 1:
        print(f"## `{benchmark}`\n")
    theorems = load_benchmark(benchmark, args.limit)
    if not theorems:
        parser.error(f"--benchmark {benchmark}: no theorems")
    if args.given_back is not None:
        theorems = reopened(("hammer",), theorems)[:args.given_back]
        if not theorems:
            parser.error(f"--given-back: none of the {args.limit} theorems is given back to CoqHammer")
    if args.namesakes:
        theorems = with_namesakes(theorems)
        if not theorems:
            parser.error(f"--namesakes: none of the {args.limit} theorems has an accessible namesake")
    if args.twins:
        theorems = with_twins(theorems)
        if not theorems:
            parser.error(f"--twins: none of the {args.limit} theorems has a twin")
    table = systems(args.timeout, args.hammer_timeout, args.policy)
    if not args.report and any(name.startswith("default") for name in names):
        from prover.coq.first_trace import trace_untraced

        try:
            trace_untraced(args.workers, lambda line: print(line, file=sys.stderr, flush=True), theorems=theorems)
        except KeyboardInterrupt:  # it said how far it got, in one line: exit as the CLI does, nothing else said
            raise SystemExit(130) from None
    if "default-no-own-traces" in names:
        table["default-no-own-traces"] = without_own_traces(table["default"], theorems, parser)
    label = args.split if args.benchmark is None else re.sub(r"[^\w.-]+", "_", benchmark)
    run_dir = args.out / (f"{label}-n{args.limit}-t{args.timeout:g}"
                          + (f"-given-back{args.given_back}" if args.given_back is not None else "")
                          + ("-namesakes" if args.namesakes else "") + ("-twins" if args.twins else "")
                          + (f"-hammer{args.hammer_timeout:g}" if args.hammer_timeout is not None else "")
                          + (f"-policy-{args.policy.stem}" if args.policy is not None else ""))
    proved: dict[str, dict[str, float]] = {}
    refusals: dict[str, tuple[int, int]] = {}
    late: dict[str, int] = {}
    commits: dict[str, str] = {}
    for name in names:
        if not args.report:
            print(f"## {name}", file=sys.stderr, flush=True)
            config = EvalConfig(table[name], benchmark, args.limit, workers=args.workers, ray_address=args.ray_address)
            run_evaluation(config, theorems, run_dir / name, progress=True)
        run = load_run(run_dir / name)
        missing = {theorem_key(t) for t in theorems} - {r["key"] for r in run.records}
        if missing:
            parser.error(f"{run_dir / name}: {len(missing)} of the {len(theorems)} theorems have no result yet "
                         "(run without --report to prove them)")
        proved[name], late[name] = proved_times(run, args.timeout)
        refusals[name] = leak_refusals(run)
        last = max((str(r.get("finished_at", "")) for r in run.records), default="")
        commits[name] = (f"{str(run.config.get('git_commit') or '?')[:10]} "
                         f"({str(run.config.get('created', '?'))[11:16]}-{last[11:16]} UTC)")
        carried = run.config.get("carried_over")  # a larger sample seeded with a finished smaller one
        if carried:
            commits[name] += (f", its first {carried['theorems']} results carried over from {carried['from']} "
                              "(the same system on the smaller stable sample, a subset of this one)")

    n = len(theorems)
    given_back = {theorem_key(t) for t in reopened(("hammer",), theorems)}
    what = f"the Coq stdlib's {args.split} split" if args.benchmark is None else f"`{benchmark}`"
    if args.namesakes:
        what += ", those with an accessible namesake (the default's namesake member proposes nothing elsewhere)"
    if args.twins:
        what += ", those with a twin, an earlier lemma of their file stated alike but for a few names"
    if args.given_back is not None:
        what += f", the first {n} that the leak check gives back to CoqHammer in a sample of {args.limit}"
    print(f"{n} theorems of {what} (stable sample), {args.timeout:g} s wall-clock each, "
          f"{args.workers} workers; run directories: {run_dir}\n")
    print("Commits the run directories were started at (a resumed run keeps its first), and when they ran: "
          + ", ".join(f"{name} {commit}" for name, commit in commits.items()) + "\n")
    tuned = tuned_source(benchmark, theorems)
    among = "among them" if tuned == benchmark else f"drawn from {tuned}, among them" if tuned else None
    print(f"The default's choices were made on {', '.join(TUNED_ON)} only; `{benchmark}` is "
          f"{among or 'evaluation data: no choice was made on it'}.\n")
    print(f"Leak check: CoqHammer runs on every theorem. It gives back {len(given_back)} of the {n} theorems to "
          f"CoqHammer (their module is among those its imports load: they are reopened under another module path, "
          f"and a proof whose term depends on the compiled copy of the theorem or of a later object of its file "
          f"is refused).\n")
    print(f"A proof counts when its search ended within {args.timeout:g} s (+{LATE_GRACE:g} s to read the clock); "
          "one that ended later is in the last column, not counted.\n")
    print("| system | proved | pass rate | median s to proof | proved of the given back | refused by the leak check "
          "(proofs, theorems) | proved too late |\n|---|---|---|---|---|---|---|")
    for name in names:
        times = proved[name]
        median = f"{statistics.median(times.values()):.1f}" if times else "-"
        refused, refused_theorems = refusals[name]
        print(f"| {name} | {len(times)}/{n} | {len(times) / n:.3f} | {median} | "
              f"{len(set(times) & given_back)}/{len(given_back)} | {refused}, {refused_theorems} | {late[name]} |")
    union = set().union(*(set(t) for t in proved.values()))
    print(f"| union of all | {len(union)}/{n} | {len(union) / n:.3f} | | {len(union & given_back)}/{len(given_back)} "
          f"| | |\n")
    if "default" in proved and len(proved) > 1:
        mine = set(proved["default"])
        print("| default vs | both | only default | only other |\n|---|---|---|---|")
        for name in names:
            if name != "default":
                other = set(proved[name])
                print(f"| {name} | {len(mine & other)} | {len(mine - other)} | {len(other - mine)} |")
        if "hammer" in proved:
            print()
            _ratio("default / hammer", mine, set(proved["hammer"]), n)
            if given_back:
                _ratio("on the theorems the leak check gives back to CoqHammer, default / hammer",
                       mine & given_back, set(proved["hammer"]) & given_back, len(given_back))
    by_length(proved, library_proof_lengths(theorems), n)
    return proved, n


def interruptible(argv: list[str] | None = None) -> int:
    """:func:`main`, with Ctrl-C answered in one line (exit 130): what was proved stays in the run
    directories, which the same command resumes."""
    try:
        return main(argv)
    except KeyboardInterrupt:
        print("interrupted: the results so far stay in the run directories under --out; "
              "the same command resumes them", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(write_results(interruptible()))
