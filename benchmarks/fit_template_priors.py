"""Fit the Coq template generator's log-priors on traced training proofs and write them as JSON.

    python -m benchmarks.fit_template_priors [--traces TRAIN_JSON] [--out prover/coq/data/coq_template_priors.json]

``--traces`` defaults to the training split the Coq tracer wrote
(:func:`prover.coq.tracer.traced_data_dir` ``/train.json``). Every traced tactic is matched against
every template (:meth:`generator.template.TemplateSet.fit_priors`: a slot matches one name, the
rest must match in full, so ``intros n m.`` does not count for ``intros.``); the priors are the
smoothed log-frequencies. The JSON maps each template's text to its fitted log-prior, plus the
counts behind it; ``templates="coq:FITTED"`` loads it (:mod:`prover.coq.templates`).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from prover.benchmarks.results import add_results_flag, write_results
from prover.coq.templates import PRIORS_PATH, TEMPLATES
from generator.traced import load_theorems


def traced_tactics(path: Path) -> list[str]:
    return [t["tactic"] for thm in load_theorems(path) for t in thm.get("traced_tactics", []) if t.get("tactic")]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--traces", type=Path, default=None, help="traced JSON (default: the Coq tracer's train.json)")
    parser.add_argument("--out", type=Path, default=PRIORS_PATH)
    parser.add_argument("--smoothing", type=float, default=1.0)
    add_results_flag(parser, markdown=True)
    args = parser.parse_args(argv)
    if args.traces is None:
        from prover.coq.tracer import traced_data_dir

        args.traces = traced_data_dir() / "train.json"
    tactics = traced_tactics(args.traces)
    fitted = TEMPLATES.fit_priors(tactics, args.smoothing)
    patterns = [t.pattern() for t in TEMPLATES.templates]
    counts = Counter(i for tac in tactics for i, p in enumerate(patterns) if p.fullmatch(tac))
    matched = sum(any(p.fullmatch(tac) for p in patterns) for tac in tactics)
    out = {
        "source": str(args.traces), "tactics": len(tactics), "matched_by_some_template": matched,
        "smoothing": args.smoothing,
        "log_priors": {t.text: round(t.log_prior, 4) for t in fitted.templates},
        "counts": {t.text: counts[i] for i, t in enumerate(TEMPLATES.templates)},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    print(f"{len(tactics)} traced tactics, {matched} ({matched / max(len(tactics), 1):.1%}) matched by a template; "
          f"wrote {args.out}")
    print("| template | count | hand prior | fitted prior |\n|---|---|---|---|")
    for hand, fit in sorted(zip(TEMPLATES.templates, fitted.templates), key=lambda p: -p[1].log_prior):
        print(f"| `{hand.text}` | {out['counts'][hand.text]} | {hand.log_prior:.2f} | {fit.log_prior:.2f} |")


if __name__ == "__main__":
    main()
    write_results()
