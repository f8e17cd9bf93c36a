"""Tracing a user's Lean repository with LeanDojo and writing LeanDojo-format data.

``trace_repo(url, commit, out_dir)`` runs ``lean_dojo.trace`` (which builds the repository with
``lake`` and extracts ASTs, states and premises once, then serves it from LeanDojo's cache) and
writes, under ``out_dir``:

* ``theorems.json``: traced theorems in LeanDojo Benchmark format (what
  :func:`prover.benchmarks.datasets.load_traced_theorems` reads, as do the retrieval and generator trainers);
* ``corpus.jsonl``: the premise corpus, one line per file, imports first
  (``{path, imports, premises: [{full_name, code, start, end, kind}]}``);
* ``metadata.json``: url, commit, LeanDojo version and counts.

Tactics follow LeanDojo Benchmark's conventions: a tactic whose state before is ``no goals`` is
dropped (it does nothing), and so is a ``·`` focusing tactic (its state change is the sum of the
tactics inside it, which are recorded themselves).
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator

from prover.lean.env import INSTALL_HINT, LeanNotInstalled, import_lean_dojo
from search_tree.protocol import EnvironmentFailure


@dataclass(frozen=True)
class TraceSummary:
    """What a trace wrote: the files and how much is in them."""

    out_dir: str
    num_theorems: int
    num_theorems_with_tactics: int
    num_tactics: int
    num_files: int
    num_premises: int


def keep_tactic(tactic: str, state_before: str) -> bool:
    """LeanDojo Benchmark's filter (see the module doc)."""
    return state_before != "no goals" and "·" not in tactic


def theorem_record(url: str, commit: str, file_path: str, full_name: str, start: Iterable[int],
                   end: Iterable[int], tactics: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """One theorem in LeanDojo Benchmark format; ``tactics`` are already-filtered tactic records."""
    return {"url": url, "commit": commit, "file_path": file_path, "full_name": full_name,
            "start": list(start), "end": list(end), "traced_tactics": list(tactics)}


def _traced_theorem_records(traced_repo: Any, include_dependencies: bool) -> Iterator[dict[str, Any]]:
    for thm in traced_repo.get_traced_theorems():
        if not include_dependencies and thm.repo != traced_repo.repo:
            continue
        tactics = [
            {"tactic": t.tactic, "annotated_tactic": list(t.get_annotated_tactic()),
             "state_before": t.state_before, "state_after": t.state_after}
            for t in thm.get_traced_tactics()
            if keep_tactic(t.tactic, t.state_before)
        ]
        yield theorem_record(thm.repo.url, thm.repo.commit, str(thm.theorem.file_path), thm.theorem.full_name,
                             thm.start, thm.end, tactics)


def _corpus_records(traced_repo: Any) -> Iterator[dict[str, Any]]:
    """Files in dependency order (a file after everything it imports), as corpus.jsonl lists them."""
    import networkx as nx  # a dependency of lean_dojo

    graph = traced_repo.traced_files_graph
    if graph is None:
        raise ValueError(f"{traced_repo.repo.url} was traced without its dependency graph (build_deps=False)")
    for path in reversed(list(nx.topological_sort(graph))):
        traced_file = graph.nodes[path]["traced_file"]
        yield {"path": path, "imports": sorted(graph.successors(path)),
               "premises": traced_file.get_premise_definitions()}


def write_trace(out_dir: str | Path, theorems: Iterable[dict[str, Any]], corpus: Iterable[dict[str, Any]],
                metadata: dict[str, Any]) -> TraceSummary:
    """Write the three files of a trace and return their counts (``out_dir`` must not hold a trace)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if (out / "theorems.json").exists():
        raise FileExistsError(f"{out} already holds a trace (theorems.json); choose another --out")
    theorems = list(theorems)
    num_files = num_premises = 0
    with open(out / "corpus.jsonl", "w", encoding="utf-8") as f:
        for record in corpus:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
            num_files += 1
            num_premises += len(record["premises"])
    summary = TraceSummary(
        out_dir=str(out),
        num_theorems=len(theorems),
        num_theorems_with_tactics=sum(1 for t in theorems if t["traced_tactics"]),
        num_tactics=sum(len(t["traced_tactics"]) for t in theorems),
        num_files=num_files,
        num_premises=num_premises,
    )
    (out / "metadata.json").write_text(json.dumps({**metadata, **asdict(summary)}, indent=2), encoding="utf-8")
    # written last: its presence marks a complete trace
    (out / "theorems.json").write_text(json.dumps(theorems, ensure_ascii=False), encoding="utf-8")
    return summary


def trace_repo(url: str, commit: str, out_dir: str | Path, include_dependencies: bool = False,
               build_deps: bool = True) -> TraceSummary:
    """Trace ``url`` at ``commit`` with LeanDojo (needs a Lean toolchain; cached) and write the data."""
    ld = import_lean_dojo()
    try:
        repo = ld.LeanGitRepo(url, commit)
        traced = ld.trace(repo, build_deps=build_deps)
    except (subprocess.CalledProcessError, FileNotFoundError) as exc:
        raise LeanNotInstalled(f"tracing {url} at {commit} could not run Lean or git ({exc}). {INSTALL_HINT}") from exc
    except Exception as exc:  # noqa: BLE001 - GitHub, git and build errors of many types: report, don't crash
        raise EnvironmentFailure(f"LeanDojo could not trace {url} at {commit}: {type(exc).__name__}: {exc}") from exc
    metadata = {"url": repo.url, "commit": repo.commit, "leandojo_version": ld.__version__,
                "include_dependencies": include_dependencies}
    return write_trace(out_dir, _traced_theorem_records(traced, include_dependencies),
                       _corpus_records(traced), metadata)
