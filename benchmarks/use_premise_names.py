"""How often the premises of ``sauto use:`` / ``hauto use:`` name nothing Coq can find, and how many
of those the theorem's file can write (:meth:`retrieval.corpus.Premise.name_from`).

    python benchmarks/use_premise_names.py --runs RUN_DIR [RUN_DIR ...] [--theorems 80]

``--runs``: finished Coq run directories (``results.jsonl`` and the action logs under ``logs/``, as
``dojo-prover eval``, ``learn`` and ``benchmarks/coq_vs_hammer.py`` write them), searched with the
stdlib's traced corpus. Printed: the ``use:`` calls of their logs and how many failed with "The
reference X was not found"; then, for the first ``--theorems`` theorems with such a failure, each
theorem is opened in coqtop (with CoqHammer, as the default opens it) and every name not found is
tried two ways with ``pose proof @NAME``: as the corpus declares it (the baseline, which must fail
again) and as ``name_from`` writes it for the theorem's file. A name the corpus declares in several
files stands for the last one accessible from the theorem, as Coq's shadowing would choose.
``--write-results`` writes ``benchmarks/results/use_premise_names.md``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

from prover.benchmarks.results import add_results_flag, write_results

_NOT_FOUND = re.compile(r"The reference (\S+) was not found")


def not_found(runs: list[Path]) -> tuple[int, int, dict[str, set[str]]]:
    """``(use: calls, those not found, {theorem key: names not found})`` over the runs' logs."""
    calls = failed = 0
    names: dict[str, set[str]] = defaultdict(set)
    for run in runs:
        for line in (run / "results.jsonl").read_text().splitlines():
            record = json.loads(line)
            if not record.get("log"):
                continue
            for event in map(json.loads, (run / record["log"]).read_text().splitlines()):
                if event.get("event") != "tactic" or " use: " not in event.get("tactic", ""):
                    continue
                calls += 1
                m = _NOT_FOUND.search(event.get("message", "")) if event.get("outcome") == "error" else None
                if m is not None:
                    failed += 1
                    names[record["key"]].add(m.group(1))
    return calls, failed, names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=Path, nargs="+", required=True)
    parser.add_argument("--theorems", type=int, default=80)
    add_results_flag(parser)
    args = parser.parse_args(argv)
    for run in args.runs:
        if not (run / "results.jsonl").is_file():
            raise SystemExit(f"{run}: not a run directory (no results.jsonl)")

    from prover.coq.env import CoqEnvironment
    from prover.coq.stdlib import load_index
    from prover.coq.tracer import traced_data_dir
    from retrieval.corpus import Corpus
    from search_tree import TacticState

    calls, failed, names = not_found(args.runs)
    print(f"{calls} use: calls in the logs of {', '.join(map(str, args.runs))}; {failed} ({100 * failed / max(calls, 1):.0f}%) "
          f"failed with 'The reference ... was not found', in {len(names)} theorems")
    corpus = Corpus.from_jsonl(traced_data_dir() / "corpus.jsonl")
    if not any(p.module for p in corpus.premises[:1]):
        raise SystemExit("the traced corpus has no modules (an older scanner wrote it): run `dojo-prover trace --env coq`")
    by_name: dict[str, list[int]] = defaultdict(list)
    for i, p in enumerate(corpus.premises):
        by_name[p.full_name].append(i)
    index = load_index(progress=False)
    tried = resolved_declared = resolved_written = 0
    rows: list[str] = []
    with CoqEnvironment(index=index, additions=("hammer",)) as env:
        for key in sorted(names)[: args.theorems]:
            path, name = key.split("::", 1)
            theorem = index.theorem(f"{index.file(path).module}.{name}")
            position = (theorem.position[0], theorem.position[1]) if theorem.position is not None else None
            with env.open(theorem) as (session, state):
                for ref in sorted(names[key]):
                    found = [corpus.premises[i] for i in by_name.get(ref, [])]
                    if not found:
                        continue
                    usable = [p for p in found if corpus.is_accessible(p, path, position)]
                    premise = (usable or found)[-1]
                    written = premise.name_from(path)
                    ok = [isinstance(session.run_tac(state, f"pose proof @{n} as dojo_premise."), TacticState)
                          for n in (ref, written)]
                    tried += 1
                    resolved_declared += ok[0]
                    resolved_written += ok[1]
                    if not ok[1]:
                        rows.append(f"  still not found: {key}: {ref} written {written}")
            print(f"{tried} names tried so far, {resolved_written} resolve as written", file=sys.stderr, flush=True)
    print(*rows, sep="\n")
    print(f"{tried} names not found in {min(len(names), args.theorems)} theorems: as the corpus declares them "
          f"{resolved_declared} resolve (baseline), as the theorem's file writes them {resolved_written} "
          f"({100 * resolved_written / max(tried, 1):.0f}%)")
    return 0


if __name__ == "__main__":
    raise SystemExit(write_results(main()))
