"""Prove the Admitted lemmas of a Coq project and write the proofs found (LeanAgent's sorry proving, for Coq).

Every ``Admitted`` lemma of PROJECT (or those of ``--files``/``--theorems``) is searched, as
``eval`` would, by default with the default Coq prover (:func:`prover.coq.presets.default_config`,
its premises from the project's own corpus) (a resumable run directory ``--out``; run again to resume). Each proof found is
read back from the run directory and verified again (the directory is not trusted), written into
its file in a copy of the project, and kept only if the file and every file that requires it
still compile and declare the same types (:mod:`prover.coq.fill`). The result is a patch ``OUT.diff`` beside the
run directory, or, with ``--write``, the files themselves (originals backed up in ``OUT/backup``).
A Markdown table (``OUT/fill-admitted.md``, also printed) says for each lemma: proved, time, proof
or why not.
"""

from __future__ import annotations

import argparse
import shlex
import tempfile
from pathlib import Path

from prover.backend import Feature
from prover.backends import require
from search_tree.errors import UserError

from .eval import add_run_arguments, build_config


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("project", help="a project directory (with a _CoqProject, or --flags), or coq-lib:NAME")
    parser.add_argument("--flags", help="load-path flags when the project has no _CoqProject, e.g. '-Q theories Foo'")
    parser.add_argument("--files", nargs="+", metavar="GLOB",
                        help="only the lemmas of these files (globs over paths in the project)")
    parser.add_argument("--theorems", nargs="+", metavar="NAME", help="only these admitted lemmas")
    parser.add_argument("--out", required=True, help="run directory (created, or resumed); the patch is OUT.diff")
    parser.add_argument("--write", action="store_true", help="write the proofs into the files (after a backup in OUT/backup)")
    parser.add_argument("--jobs", type=int, default=2, help="coqc processes building the project (default: 2)")
    add_run_arguments(parser, benchmark=False)  # without --generator: the default Coq prover


def _targets(index, args: argparse.Namespace) -> list:
    """The admitted lemmas asked for; a name that is not one raises with close matches."""
    from prover.coq.records import CoqFields

    targets = index.admitted(index.matching(args.files))
    if args.theorems:
        chosen = []
        for name in args.theorems:
            found = [t for t in targets if name in (t.full_name, CoqFields.of(t).qualified_name)]
            if not found:
                other = index.theorem(name)  # raises TheoremNotFound with close matches for an unknown name
                raise UserError(f"--theorems {name}: {CoqFields.of(other).qualified_name} is proved already (not Admitted)")
            chosen.extend(found)
        targets = chosen
    return targets


def _offset(theorem) -> int:
    """Where an admitted lemma of the project's index starts in its file: the key of its edit."""
    from prover.coq.records import CoqFields

    offset = CoqFields.of(theorem).offset
    if offset is None:
        raise UserError(f"{theorem.full_name}: not a lemma of the project's index (no offset in its file)")
    return offset


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


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


def run(args: argparse.Namespace) -> int:
    from prover.coq.build import project_index
    from prover.coq.env import CoqEnvironment
    from prover.coq.fill import Edit, FillError, diff_text, fill_in_copy, recheck, write_back
    from prover.coq.project import load_project
    from prover.run.evaluation import run_evaluation, theorem_key
    from prover.views.safe_text import printable

    require(args.env, Feature.FILL, "fill-admitted")
    project = load_project(args.project, tuple(shlex.split(args.flags)) if args.flags else None)
    if args.jobs < 1:
        raise UserError(f"--jobs must be at least 1, got {args.jobs}")
    index = project_index(project, jobs=args.jobs, progress=not args.no_progress)
    for path, error in index.failed.items():
        print(printable(f"not compiled, its lemmas skipped: {path}: {error}"))
    targets = _targets(index, args)
    if not targets:
        print(f"no Admitted lemma to fill in {project.name}")
        return 0
    args.benchmark, args.limit = f"fill-admitted:{project.spec}", None
    config = build_config(args, None, {})
    out = Path(args.out)
    run_evaluation(config, targets, out, progress=not args.no_progress)
    results = _recorded(out / "results.jsonl")
    edits: list[Edit] = []
    not_written: dict[tuple[str, int], str | None] = {}
    with CoqEnvironment(index=index, **config.prover.env.options) as env:
        for t in targets:
            if results.get(theorem_key(t), {}).get("status") != "proved":
                continue
            checked = recheck(env, t, results[theorem_key(t)].get("script"))
            if checked.ok:
                edits.append(Edit(t.file_path, _offset(t), t.full_name, checked.script))
            else:
                not_written[(t.file_path, _offset(t))] = f"the recorded proof does not check again: {checked.message}"
    with tempfile.TemporaryDirectory(prefix="dojo-fill-") as tmp:
        copy, outcomes = fill_in_copy(project, index, edits, Path(tmp), progress=not args.no_progress)
        not_written |= {(o.edit.path, o.edit.offset): o.why for o in outcomes if not o.written}
        written_proofs = {(o.edit.path, o.edit.offset): o.edit.script for o in outcomes if o.written}
        patch = diff_text(project, copy)
        diff_path = out.with_name(out.name + ".diff")
        diff_path.write_text(patch)
        written: list[str] = []
        if args.write and patch:
            try:
                written = write_back(project, copy, out / "backup", progress=not args.no_progress)
            except FillError as exc:
                print(printable(f"not written: {exc}"))
    rows = ["| lemma | file | proved | time (s) | proof, or why not |", "|---|---|---|---|---|"]
    proved = 0
    for t in targets:
        r = results.get(theorem_key(t))
        why = not_written.get((t.file_path, _offset(t)))
        proof = written_proofs.get((t.file_path, _offset(t)))
        if r is None:
            ok, seconds, text = False, "", "not attempted"
        elif proof is not None:
            ok, seconds, text = True, f"{r['total_time']:.1f}", f"`{_cell(proof)}`"
        else:
            ok, seconds, text = False, f"{r['total_time']:.1f}", why or f"{r['status']} ({r['stop_reason']})"
        proved += ok
        rows.append(f"| {t.full_name} | {t.file_path} | {'yes' if ok else 'no'} | {seconds} | {_cell(text)} |")
    table = "\n".join(rows) + "\n"
    (out / "fill-admitted.md").write_text(f"# fill-admitted {project.name}\n\n{table}")
    print(printable(table), end="")
    print(f"{proved}/{len(targets)} admitted lemmas proved; patch: {diff_path}"
          + (f"; written: {', '.join(written)} (originals in {out / 'backup'})" if written else ""))
    return 0
