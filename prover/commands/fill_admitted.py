"""Prove the Admitted lemmas of a project and write the proofs found (LeanAgent's sorry proving).

Every admitted lemma of PROJECT (or those of ``--files``/``--theorems``) is searched, as ``eval``
would, by default with the backend's default prover (its ``Feature.PRESET``; Coq's takes its
premises from the project's own corpus), in a resumable run directory ``--out`` (run again to
resume). As for ``eval`` and ``prove``, the default prover's kNN and proof retrieval learn from the
project's own proofs, so before its first search the files the lemmas may learn from are traced
once into the cache (``--no-trace`` skips it; Ctrl-C exits 130 and the next run goes on). Opening
the project and writing the proofs is the backend's ``Feature.FILL``, a
:class:`prover.backend.Filler` (Coq's: :mod:`prover.coq.fill_command`): each proof found is read
back from the run directory and verified again (the directory is not trusted), written into its
file in a copy of the project, and kept only if the project still builds with the same meaning. The
result is a patch ``OUT.diff`` beside the run directory, or, with ``--write``, the files themselves
(originals backed up in ``OUT/backup``). A Markdown table (``OUT/fill-admitted.md``, also printed)
says for each lemma: proved, time, proof or why not.

``OUT``, ``OUT.diff``, ``OUT/backup`` and ``OUT/fill-admitted.md`` may hold anything a user or a
copied directory left there: each file is put in place as a new file and a symlinked ``backup`` is
refused (:mod:`search_tree.safe_files`), so nothing outside them is written.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from prover.backend import Feature
from prover.backends import require
from search_tree.errors import UserError
from search_tree.safe_files import refuse_links, replace_file

from .eval import add_run_arguments, add_trace_flag, build_config, trace_before_run


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("project", help="the project, as the backend names one (coq: a directory with a _CoqProject, "
                                         "a dune-project or --flags, or coq-lib:NAME)")
    parser.add_argument("--flags", help="load-path flags when the project does not say its own "
                                          "(coq: when it has no _CoqProject, e.g. '-Q theories Foo')")
    parser.add_argument("--files", nargs="+", metavar="GLOB",
                        help="only the lemmas of these files (globs over paths in the project)")
    parser.add_argument("--theorems", nargs="+", metavar="NAME", help="only these admitted lemmas")
    parser.add_argument("--out", required=True, help="run directory (created, or resumed); the patch is OUT.diff")
    parser.add_argument("--write", action="store_true", help="write the proofs into the files (after a backup in OUT/backup)")
    parser.add_argument("--jobs", type=int, default=2, help="processes building the project (coq: coqc; default: 2)")
    add_run_arguments(parser, benchmark=False)  # without --generator: the backend's default prover
    add_trace_flag(parser, "coq: the project's own proofs that its admitted lemmas may learn from, traced once "
                           "into the cache, as eval and prove do")


def _cell(text: str) -> str:
    """``text`` as one cell of ``fill-admitted.md``: on one line (a proof's layout folded to spaces),
    and through :func:`md_text`, since a lemma, path, proof or reason comes from the project: a ``|``
    would add a cell, a backtick or ``<img`` start a code span or live HTML."""
    from prover.views.safe_text import md_text

    return md_text(" ".join(text.split()))


def _recorded(path: Path) -> dict[str, dict]:
    """The result recorded for each theorem key, a proved attempt first when there are several."""
    from prover.run.evaluation import ResultsFile

    results: dict[str, dict] = {}
    for n, record in enumerate(ResultsFile(path).load(), 1):
        key, result = (record.get("key"), record.get("result")) if isinstance(record, dict) else (None, None)
        if not (isinstance(key, str) and isinstance(result, dict)):
            raise UserError(f"{path}: record {n} has no theorem key or no result object; "
                            "it was not written by a run (delete the line, or the run directory)")
        if key not in results or (result.get("status") == "proved" and results[key].get("status") != "proved"):
            results[key] = result
    return results


def out_dir(text: str) -> Path:
    """``--out`` as an absolute path, links not followed (``.`` or ``runs/..`` name a directory
    whose own name the patch ``OUT.diff`` beside it needs; resolving a link would put it elsewhere)."""
    out = Path(os.path.abspath(text))
    if not out.name:
        raise UserError(f"--out {text}: the patch is written beside the run directory, so it cannot be the root")
    return out


def run(args: argparse.Namespace) -> int:
    from prover.run.evaluation import check_out_dir, run_evaluation, theorem_key
    from prover.views.safe_text import printable

    out = out_dir(args.out)
    check_out_dir(out)  # before the project is built and traced, not after
    if args.write and out.is_dir():
        refuse_links(out, ["backup"])  # before the search, not after it (write_back refuses it too)
    filler = require(args.env, Feature.FILL, "fill-admitted").load(Feature.FILL)
    project = filler.open(args.project, args.flags, args.jobs, not args.no_progress)
    for path, error in project.failed.items():
        print(printable(f"not compiled, its lemmas skipped: {path}: {error}"))
    targets = project.admitted(args.files, args.theorems)
    if not targets:
        print(f"no Admitted lemma to fill in {project.name}")
        return 0
    args.benchmark, args.limit = f"fill-admitted:{project.spec}", None
    config = build_config(args, None, {})
    if not trace_before_run(args, targets):
        return 130
    run_evaluation(config, targets, out, progress=not args.no_progress)
    results = _recorded(out / "results.jsonl")
    proofs = {t: results[theorem_key(t)].get("script") for t in targets
              if results.get(theorem_key(t), {}).get("status") == "proved"}
    filled = project.fill(proofs, config.prover.env.options, out / "backup" if args.write else None,
                          not args.no_progress)
    diff_path = out.with_name(out.name + ".diff")
    replace_file(diff_path, filled.patch.encode())
    if filled.problem:
        print(printable(filled.problem))
    rows = ["| lemma | file | proved | time (s) | proof, or why not |", "|---|---|---|---|---|"]
    proved = 0
    for t in targets:
        r = results.get(theorem_key(t))
        proof = filled.written.get(t)
        if r is None:
            ok, seconds, text = False, "", "not attempted"
        elif proof is not None:
            ok, seconds, text = True, f"{r['total_time']:.1f}", proof
        else:
            ok, seconds, text = False, f"{r['total_time']:.1f}", filled.refused.get(t) or f"{r['status']} ({r['stop_reason']})"
        proved += ok
        rows.append(f"| {_cell(t.full_name)} | {_cell(t.file_path)} | {'yes' if ok else 'no'} | {seconds} | {_cell(text)} |")
    table = "\n".join(rows) + "\n"
    replace_file(out / "fill-admitted.md", f"# fill-admitted {project.name}\n\n{table}".encode())
    print(printable(table), end="")
    print(f"{proved}/{len(targets)} admitted lemmas proved; patch: {diff_path}"
          + (f"; written: {', '.join(filled.files)} (originals in {out / 'backup'})" if filled.files else ""))
    return 0
