"""What a run directory says: pass@k, pass rate versus budget, and search statistics.

pass@k uses the unbiased estimator of Chen et al. (2021): with ``n`` attempts of which ``c``
succeeded, ``1 - C(n-c, k) / C(n, k)``; averaged over theorems. It needs ``n >= k``.

The search statistics follow Reap's analysis of its searches: mean proof steps, mean search-tree
nodes, median action length in characters, tactic identifiers per action, the share of compound
actions (several tactics glued by ``;``, ``<;>``, ``by``, focusing, or tacticals such as ``try``)
and the median environment latency per tactic (from the action logs).
"""

from __future__ import annotations

import re
import statistics
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prover.run.evaluation import ResultsFile, read_config
from search_tree.safe_files import UnsafePath, read_regular, record_log
from search_tree.errors import UserError
from search_tree.events import SearchEvent, TacticRun, parse_events
from search_tree.result import StopReason


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of ``k`` attempts drawn from ``n`` (``c`` correct) succeeds."""
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got n={n}, c={c}")
    if not 1 <= k <= n:
        raise ValueError(f"pass@{k} needs at least {k} attempts per theorem, got {n}")
    if n - c < k:
        return 1.0
    # 1 - C(n-c, k)/C(n, k) = 1 - prod_{i=n-c+1}^{n} (1 - k/i), stable for large n
    failure = 1.0
    for i in range(n - c + 1, n + 1):
        failure *= 1.0 - k / i
    return 1.0 - failure


@dataclass
class Run:
    """A run directory, loaded: its config and the latest complete record of every attempt;
    ``skipped`` has one message per corrupt line of ``results.jsonl`` left out (``skip_corrupt``)."""

    path: Path
    config: dict[str, Any]
    records: list[dict[str, Any]]
    skipped: list[str] = field(default_factory=list)

    @property
    def attempts(self) -> int:
        return int(self.config["run"]["attempts"])

    def by_theorem(self) -> dict[str, list[dict[str, Any]]]:
        out: dict[str, list[dict[str, Any]]] = {key: [] for key in self.config["theorems"]}
        for r in self.records:
            out.setdefault(r["key"], []).append(r)
        return out

    def events(self, record: dict[str, Any]) -> list[SearchEvent]:
        """The action log of ``record``; a corrupt line is left out with a warning (see :func:`read_events`)."""
        events, problems = self.read_events(record)
        for problem in problems:
            warnings.warn(problem, stacklevel=2)
        return events

    def read_events(self, record: dict[str, Any]) -> tuple[list[SearchEvent], list[str]]:
        """The action log of ``record`` and one message per line that is not a search event (left
        out, so that a damaged log still shows the rest of its search; see
        :func:`search_tree.events.parse_events`).

        The record is untrusted: its ``log`` is read only if it names ``logs/<name>`` and that is a
        regular file directly in the run's own ``logs`` directory (no symlink, FIFO or device, which
        would have the report copy out, or wait on, what the record names); otherwise the log is
        left out with one message saying why."""
        log = record.get("log")
        if not log:
            return [], []
        try:
            path = record_log(self.path, log)
            data = read_regular(path)
        except UnsafePath as exc:
            return [], [f"{exc}; its action log is left out"]
        if data is None:
            return [], []
        return parse_events(data.decode(errors="replace").splitlines(), str(path))


def load_run(path: str | Path, skip_corrupt: bool = False) -> Run:
    """The run in directory ``path``. A corrupt line of its results raises
    :class:`prover.run.evaluation.CorruptResults`, or with ``skip_corrupt`` is left out and counted in
    ``Run.skipped`` (a report can still describe the rest; a resume must not guess)."""
    p = Path(path)
    cfg_path = p / "config.json"
    if not cfg_path.is_file():
        raise UserError(f"{p} is not a run directory of `dojo-prover eval` (no config.json)")
    config = read_config(cfg_path)
    results = ResultsFile(p / "results.jsonl")
    if skip_corrupt:
        loaded, skipped = results.read()
    else:
        loaded, skipped = results.load(), []
    seen: set[tuple[str, int]] = set()
    records = []
    for r in loaded:
        ident = (r["key"], r["attempt"])
        if ident not in seen:
            seen.add(ident)
            records.append(r)
    return Run(p, config, records, skipped)


def retries_by_kind(records: list[dict[str, Any]]) -> dict[str, int]:
    """How many retries the attempts of ``records`` needed, by :class:`~search_tree.StopKind`
    (``node_lost``, ``worker_died``, ``environment_failure``, ...; ``unknown`` for records written
    before reasons were kept, and for a reason that names no kind)."""
    counts: dict[str, int] = {}
    for r in records:
        reasons = r.get("retry_reasons")
        for reason in reasons if reasons is not None else [None] * int(r.get("retries", 0)):
            kind = stop_kind(reason)
            counts[kind] = counts.get(kind, 0) + 1
    return dict(sorted(counts.items()))


def stop_kind(reason: Any) -> str:
    """The kind of a stop reason as a results file stores it, or ``unknown``."""
    try:
        return StopReason.parse(reason).kind.value if isinstance(reason, str) else "unknown"
    except UserError:
        return "unknown"


def retries_line(records: list[dict[str, Any]]) -> str:
    """``retried 3 (node_lost 2, worker_died 1)``, or "" when nothing was retried."""
    counts = retries_by_kind(records)
    if not counts:
        return ""
    return f"retried {sum(counts.values())} ({', '.join(f'{kind} {n}' for kind, n in counts.items())})"


def benchmark_pass_at_k(run: Run, k: int) -> tuple[float, int]:
    """Mean pass@k over the theorems with at least ``k`` finished attempts, and their number."""
    values = []
    for recs in run.by_theorem().values():
        if len(recs) >= k:
            values.append(pass_at_k(len(recs), sum(r["status"] == "proved" for r in recs), k))
    return (sum(values) / len(values) if values else 0.0), len(values)


def pass_rate_by_budget(run: Run, measure: str, budgets: list[float]) -> list[float]:
    """pass@1 if every search had been stopped at each budget (``measure``: ``total_time`` or
    ``num_env_calls``). A search stops when it proves its root, so what a proved search spent is
    the budget at which it was proved; unproved searches count as failures at every budget."""
    theorems = run.by_theorem()
    rates = []
    for budget in budgets:
        per_theorem = []
        for recs in theorems.values():
            if recs:
                solved = sum(r["status"] == "proved" and r["result"][measure] <= budget for r in recs)
                per_theorem.append(solved / len(recs))
        rates.append(sum(per_theorem) / len(theorems) if theorems else 0.0)
    return rates


# Tacticals and glue that make an action compound (Lean 4 and Coq).
_SPLIT = re.compile(r"<;>|;|\bby\b|·|\n|\|\|")
_TACTICALS = {"try", "repeat", "first", "all_goals", "any_goals", "focus", "solve", "progress", "now",
              "do", "iterate", "on_goal", "case", "next", "abstract", "timeout", "once"}
_COMPOUND = re.compile(r"<;>|;|\bby\b|·|\n|\|\||\b(?:" + "|".join(sorted(_TACTICALS)) + r")\b")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_'!?]*")


def tactic_identifiers(action: str) -> list[str]:
    """The tactic names in an action (a heuristic): the head word of every piece between glue,
    plus each tactical that prefixes one. ``constructor <;> simp`` -> ``[constructor, simp]``,
    ``try (apply H; auto).`` -> ``[try, apply, auto]``."""
    names = []
    for piece in _SPLIT.split(action.strip().rstrip(".")):
        words = piece.strip().split()
        while words and words[0].lstrip("(") in _TACTICALS:
            names.append(words.pop(0).lstrip("("))
        head = words[0].lstrip("(").rstrip(".,)") if words else ""
        if _IDENT.fullmatch(head):
            names.append(head)
    return names


def is_compound(action: str) -> bool:
    return bool(_COMPOUND.search(action.strip().rstrip(".")))


def _mean(xs: list[float]) -> float | None:
    return statistics.fmean(xs) if xs else None


def _median(xs: list[float]) -> float | None:
    return statistics.median(xs) if xs else None


def search_statistics(run: Run) -> dict[str, float | int | None]:
    """Reap-style figures over the run: proofs for the action figures, all searches otherwise."""
    proved = [r for r in run.records if r["status"] == "proved"]
    actions = [t for r in proved for t in (r["result"]["proof"] or [])]
    latencies = [e.seconds for r in run.records for e in run.events(r) if isinstance(e, TacticRun)]
    premises = [r["result"]["stats"]["premises"] for r in run.records if "premises" in r["result"].get("stats", {})]
    return {
        "searches": len(run.records),
        "proved": len(proved),
        "mean_proof_steps": _mean([len(r["result"]["proof"] or []) for r in proved]),
        "mean_nodes": _mean([r["result"]["num_nodes"] for r in run.records]),
        "mean_expansions": _mean([r["result"]["num_expansions"] for r in run.records]),
        "mean_env_calls": _mean([r["result"]["num_env_calls"] for r in run.records]),
        "mean_time_s": _mean([r["result"]["total_time"] for r in run.records]),
        "median_action_chars": _median([len(a) for a in actions]),
        "mean_tactic_ids_per_action": _mean([len(tactic_identifiers(a)) for a in actions]),
        "compound_action_share": _mean([float(is_compound(a)) for a in actions]),
        "median_env_latency_ms": None if not latencies else 1000 * statistics.median(latencies),
        "mean_premises_retrieved": _mean([p["retrieved"] for p in premises]),
        "mean_premises_used": _mean([p["used"] for p in premises]),
        "retries": sum(r.get("retries", 0) for r in run.records),
    }
