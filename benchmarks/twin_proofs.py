"""How often a traced proof is an earlier lemma's proof carried over by analogy (:mod:`generator.analogy`).

    python -m benchmarks.twin_proofs [--traces DIR] [--splits train val] [--listing FILE.jsonl] [--write-results]

For each traced theorem of the splits (the stdlib's, from ``dojo-prover trace --env coq``, by
default), in file order: whether its proof, as written, is already an earlier lemma's proof of its
own file (proof retrieval proposes that one as it is), else whether an earlier lemma of its file
whose first state is a twin of its own (:func:`generator.analogy.analogy`) has a proof that
:func:`generator.analogy.carried_over` turns into it, token for token. Printed per split: the
theorems, how many have a twin at all, how many proofs are an earlier one as written, how many are
a twin's carried over. A lower bound of what the analogy can prove: a carried-over proof may work
where the human wrote another one. ``--listing`` writes the theorems that have a twin (of the last
split named) as a benchmark listing, for ``benchmarks/coq_vs_hammer.py --benchmark FILE``.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from prover.benchmarks.results import add_results_flag, write_results


def _script(theorem: dict) -> str:
    return " ".join(" ".join(step["tactic"].split()) for step in theorem["traced_tactics"])


def _first_state(theorem: dict) -> str:
    return str(theorem["traced_tactics"][0]["state_before"])


def count(theorems: list[dict]) -> tuple[dict[str, int], list[dict]]:
    """The split's figures (module docstring) and the theorems that have a twin."""
    from generator.analogy import analogy, carried_over
    from generator.state_parsing import hypotheses_of
    from prover.coq.language import COQ

    by_file: dict[str, list[dict]] = defaultdict(list)
    for t in theorems:
        if t.get("traced_tactics"):
            by_file[t["file_path"]].append(t)
    figures = {"theorems": 0, "with a twin": 0, "an earlier proof as written": 0, "a twin's proof carried over": 0}
    twins: list[dict] = []
    for group in by_file.values():
        group.sort(key=lambda t: tuple(t["start"]) if not isinstance(t["start"], str) else tuple(json.loads(t["start"])))
        for k, t in enumerate(group):
            figures["theorems"] += 1
            state, script = _first_state(t), _script(t)
            names = {h.name for h in hypotheses_of(state)}
            earlier = group[:k][::-1]
            found = [(s, m) for s in earlier
                     if (m := analogy(_first_state(s), state, COQ, names | {h.name for h in hypotheses_of(_first_state(s))}))]
            if found:
                figures["with a twin"] += 1
                twins.append(t)
            if any(_script(s) == script for s in earlier):
                figures["an earlier proof as written"] += 1
            elif any(script in carried_over(_script(s), m, COQ) for s, m in found):
                figures["a twin's proof carried over"] += 1
    return figures, twins


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=Path, default=None, help="the tracer's output directory (default: the stdlib's)")
    parser.add_argument("--splits", nargs="+", default=["train", "val"], choices=["train", "val", "test"])
    parser.add_argument("--listing", type=Path, default=None, help="write the last split's theorems with a twin here")
    add_results_flag(parser)
    args = parser.parse_args(argv)
    if args.traces is None:
        from prover.coq.tracer import traced_data_dir

        args.traces = traced_data_dir()
    from generator.traced import load_theorems

    twins: list[dict] = []
    for split in args.splits:
        path = args.traces / f"{split}.json"
        if not path.is_file():
            parser.error(f"no traced split at {path}: run `dojo-prover trace --env coq`")
        figures, twins = count(load_theorems([path]))
        print(f"{split}: " + ", ".join(f"{name} {n}" for name, n in figures.items()))
    if args.listing is not None:
        args.listing.write_text("".join(json.dumps({"project": "coq-stdlib", "file": t["file_path"], "name": t["full_name"]})
                                        + "\n" for t in twins))
        print(f"wrote {len(twins)} theorems with a twin to {args.listing}")
    return 0


if __name__ == "__main__":
    raise SystemExit(write_results(main()))
