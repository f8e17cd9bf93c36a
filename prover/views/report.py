"""Turn a run directory into ``report.md`` with plots and a tree view of one search.

Written files: ``report.md``; ``plots/pass_vs_time.png``, ``plots/pass_vs_env_calls.png``,
``plots/proof_length.png``; ``trees/<log>.html`` for the most instructive searches (see
:mod:`prover.views.tree_html`: self-contained, collapsible). The trees are rebuilt from the action
logs alone, so any search algorithm that emits events through :class:`search_tree.Meter` gets one.

The run directory is untrusted input: every file is put in place as a new file
(:func:`search_tree.safe_files.replace_file`), so a symlink named ``report.md`` or ``plots/x.png`` is
replaced rather than written through, and a ``plots`` or ``trees`` that is a symlink is refused.
Every value from it goes into ``report.md`` through :func:`prover.views.safe_text.md_text` (a
proof through :func:`~prover.views.safe_text.md_code_block`), so a benchmark name, theorem key or
stop reason cannot add a table cell, a link or live HTML, nor put a terminal escape in the file.
"""

from __future__ import annotations

import io
import warnings
from collections import defaultdict
from pathlib import Path
from typing import Any

from prover.run.analysis import (
    Run,
    benchmark_pass_at_k,
    load_run,
    pass_rate_by_budget,
    retries_line,
    search_statistics,
    stop_kind,
)
from search_tree.safe_files import make_dir, replace_file
from prover.views.safe_text import md_text
from prover.views.tree_html import write_instructive_trees
from search_tree.result import StopKind

#: the stop reasons listed as failures of the machinery rather than of the search
_FAILURES = {StopKind.WORKER_ERROR.value, StopKind.WORKER_DIED.value, StopKind.ENVIRONMENT_FAILURE.value}

_STAT_LABELS = {
    "searches": "searches (theorem × attempt)",
    "proved": "proved searches",
    "mean_proof_steps": "mean proof steps",
    "mean_nodes": "mean search-tree nodes",
    "mean_expansions": "mean expansions",
    "mean_env_calls": "mean environment calls",
    "mean_time_s": "mean search time (s)",
    "median_action_chars": "median action length (chars)",
    "mean_tactic_ids_per_action": "tactic identifiers per action",
    "compound_action_share": "share of compound actions",
    "median_env_latency_ms": "median environment latency (ms)",
    "mean_premises_retrieved": "mean premises retrieved per search",
    "mean_premises_used": "mean retrieved premises used per search",
    "retries": "retries after worker/environment failures",
}


def _fmt(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        if value.is_integer() and abs(value) >= 1:
            return str(int(value))
        return f"{value:.3f}" if abs(value) < 100 else f"{value:.1f}"
    return str(value)


def pass_table(run: Run) -> list[tuple[int, float, int]]:
    """(k, pass@k, theorems counted) for k = 1, 2, 4, ... up to the number of attempts."""
    ks = sorted({1, run.attempts} | {2**i for i in range(1, 10) if 2**i < run.attempts})
    return [(k, *benchmark_pass_at_k(run, k)) for k in ks]


def _save(fig: Any, path: Path) -> None:
    """Save ``fig`` as a PNG at ``path`` through :func:`replace_file` (``savefig`` to a path would
    follow a symlink there)."""
    data = io.BytesIO()
    fig.savefig(data, format="png", dpi=110)
    replace_file(path, data.getvalue(), fsync=False)


def _plots(run: Run, out: Path) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    make_dir(out / "plots")
    written = []
    proved = [r for r in run.records if r["status"] == "proved"]
    for measure, label, name in (("total_time", "search time budget (s)", "pass_vs_time"),
                                 ("num_env_calls", "environment call budget", "pass_vs_env_calls")):
        top = max([r["result"][measure] for r in run.records] + [1e-3])
        budgets = [top * i / 100 for i in range(101)]
        fig, ax = plt.subplots(figsize=(5, 3.2))
        ax.plot(budgets, pass_rate_by_budget(run, measure, budgets), drawstyle="steps-post")
        ax.set_xlabel(label)
        ax.set_ylabel("pass@1")
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
        fig.tight_layout()
        _save(fig, out / "plots" / f"{name}.png")
        plt.close(fig)
        written.append(f"plots/{name}.png")
    lengths = [len(r["result"]["proof"] or []) for r in proved]
    fig, ax = plt.subplots(figsize=(5, 3.2))
    if lengths:
        ax.hist(lengths, bins=range(1, max(lengths) + 2), align="left", rwidth=0.8)
    ax.set_xlabel("proof length (tactics)")
    ax.set_ylabel("proofs")
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # lengths and counts are whole numbers
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    fig.tight_layout()
    _save(fig, out / "plots" / "proof_length.png")
    plt.close(fig)
    written.append("plots/proof_length.png")
    return written


def write_report(run_dir: str | Path) -> Path:
    """Write ``report.md`` (and its plots and tree) into the run directory; returns its path.
    Corrupt lines of ``results.jsonl`` are skipped with a warning each and counted in the report."""
    run = load_run(run_dir, skip_corrupt=True)
    for message in run.skipped:
        warnings.warn(f"skipped {message}", stacklevel=2)
    out = run.path
    spec = run.config["run"]
    comps = spec["components"]
    lines = [f"# Run report: {md_text(out.name)}", ""]
    lines += ["| setting | value |", "|---|---|", f"| benchmark | {md_text(spec['benchmark'])}"
              + (f" (limit {md_text(spec['limit'])})" if spec.get("limit") else "") + " |"]
    for part in ("env", "prover", "generator", "retriever"):
        opts = ", ".join(f"{k}={v}" for k, v in comps[part]["options"].items())
        lines.append(f"| {part} | {md_text(comps[part]['name'])}{f' ({md_text(opts)})' if opts else ''} |")
    total = len(run.config["theorems"]) * run.attempts
    lines += [f"| attempts per theorem | {run.attempts} |", f"| finished | {len(run.records)} / {total} |"]
    if run.skipped:
        lines.append(f"| corrupt result lines skipped | {len(run.skipped)} |")
    lines.append("")

    lines += ["## Pass rates", "", "| k | pass@k | theorems |", "|---|---|---|"]
    lines += [f"| {k} | {value:.3f} | {n} |" for k, value, n in pass_table(run)]
    statuses: dict[str, int] = defaultdict(int)
    for r in run.records:
        statuses[r["status"]] += 1
    lines += ["", "Searches by status: " + ", ".join(f"{md_text(s)} {n}" for s, n in sorted(statuses.items()))
              + (f"; attempts {retries_line(run.records)} after worker, node or environment failures"
                 if retries_line(run.records) else ""), ""]

    lines += ["## Search statistics", "", "| statistic | value |", "|---|---|"]
    lines += [f"| {_STAT_LABELS[k]} | {_fmt(v)} |" for k, v in search_statistics(run).items()]
    lines += ["", "Action figures are over the actions of found proofs; latency over every tactic in the logs.", ""]

    lines += ["## Plots", ""]
    lines += [f"![{p}]({p})" for p in _plots(run, out)]
    lines += write_instructive_trees(run, out)
    failures = [r for r in run.records if stop_kind(r["result"]["stop_reason"]) in _FAILURES]
    if failures:
        lines += ["", "## Failures of workers or environments", "", "| theorem | attempt | reason |", "|---|---|---|"]
        lines += [f"| {md_text(r['key'])} | {md_text(r['attempt'])} | {md_text(r['result']['stop_reason'][:120])} |"
                  for r in failures[:50]]
    path = out / "report.md"
    replace_file(path, ("\n".join(lines) + "\n").encode(), fsync=False)
    return path
