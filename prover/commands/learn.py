"""Expert iteration: search with a backend's default prover, learn a policy and value from its action logs, search again.

The backend is the one whose benchmark ``--benchmark`` is (Coq's for ``coq-stdlib:train``); it must
say how its default prover takes a learned policy and which version of its prover made the data
(:attr:`prover.backend.Backend.learned_preset`, :attr:`~prover.backend.Backend.prover_version`).
Round k searches a stable sample of the training split with the default prover and the policy of
round k (none in round 0), reads back every tactic it tried (:mod:`generator.action_data`), and
round k+1's policy (:mod:`generator.learned_policy`) is trained on the data of every round before
it. Each round's checkpoint is also evaluated on a stable sample of the validation split. Run the
same command again to resume after an interruption, or with a larger --rounds to continue; a
directory made with other settings is refused. See docs/learning.md.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from prover.backend import Backend
from prover.benchmarks.results import add_results_flag, write_results
from prover.defaults import LEARN, add_limit_flags, is_positive
from prover.run.cpu import tree_cpu_seconds
from search_tree.cache import cache_root
from search_tree.errors import UserError, about
from search_tree.safe_files import make_dir, read_regular, replace_file

LEARN_FORMAT = 1


@dataclass(frozen=True)
class LearnSettings:
    """A learn run's identity: everything but --rounds, --workers, --add-run (which may grow) and
    the test sample (which measures each round and changes nothing learned)."""

    benchmark: str
    theorems: int
    val_benchmark: str
    val: int
    timeout: float
    epochs: int
    seed: int


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, help="the learn run directory (created, or resumed)")
    parser.add_argument("--rounds", type=int, default=1, help="rounds of search-then-train (default 1)")
    parser.add_argument("--benchmark", default="coq-stdlib:train", help="the theorems to learn from")
    parser.add_argument("--theorems", type=int, default=80, help="a stable sample of this many of them")
    parser.add_argument("--val-benchmark", default="coq-stdlib:val", help="the theorems each round is measured on")
    parser.add_argument("--val", type=int, default=30, help="a stable sample of this many of them (0: none)")
    parser.add_argument("--test-benchmark", default="coq-stdlib:test",
                        help="held-out theorems each round is also measured on, to report only: nothing is chosen on them")
    parser.add_argument("--test", type=int, default=0, help="a stable sample of this many of them (default 0: none)")
    add_limit_flags(parser, LEARN, "timeout")
    parser.add_argument("--epochs", type=int, default=8, help="training epochs per round")
    parser.add_argument("--seed", type=int, default=0, help="the training seed")
    parser.add_argument("--workers", type=int, default=1, help="parallel search workers")
    parser.add_argument("--add-run", action="append", default=[], metavar="RUN_DIR",
                        help="also learn from this evaluation run's action logs (e.g. a run on your project)")
    add_results_flag(parser, markdown=True)


def run(args: argparse.Namespace) -> int:
    for name in ("rounds", "theorems", "timeout", "epochs", "workers"):
        if not is_positive(getattr(args, name)):
            raise UserError(f"--{name} {getattr(args, name)}: must be positive and finite")
    for name in ("val", "test"):
        if getattr(args, name) < 0:
            raise UserError(f"--{name} {getattr(args, name)}: must be at least 0")
    backend = learner_backend(args.benchmark, "--benchmark")
    if args.val:
        learner_backend(args.val_benchmark, "--val-benchmark", backend)
    if args.test:
        learner_backend(args.test_benchmark, "--test-benchmark", backend)
    settings = LearnSettings(args.benchmark, args.theorems, args.val_benchmark, args.val, args.timeout,
                             args.epochs, args.seed)
    learn = Learner(Path(args.out), settings, args.workers, [Path(p) for p in args.add_run],
                    (args.test_benchmark, args.test) if args.test else None)
    rows = learn.run(args.rounds)
    print(summary(rows, settings, Path(args.out), learn.test))
    print(f"\nMembers of the default that proposed the tactics of round 0: {', '.join(learn.members(0))} "
          f"(kNN and proof retrieval need the traced stdlib in the cache, {cache_root()}).")
    return write_results(0)


def learner_backend(benchmark: str, flag: str, same_as: Backend | None = None) -> Backend:
    """The backend whose benchmark ``benchmark`` is, when ``learn`` takes it (and it is
    ``same_as``, when given); else a one-line :class:`UserError` naming the flag."""
    from prover.backends import BACKENDS, owner

    found = owner(benchmark)
    if found is None or not found.learns():
        takes = ", ".join(f"{b.name} ({'/'.join(b.benchmark_families)})" for b in BACKENDS.values() if b.learns())
        whose = "no backend's" if found is None else f"the {found.name} backend's"
        raise UserError(f"{flag} {benchmark}: a benchmark of {whose}, which learn does not take; "
                        f"it takes benchmarks of {takes or '(none)'}")
    if same_as is not None and found is not same_as:
        raise UserError(f"{flag} {benchmark}: a benchmark of the {found.name} backend, not of "
                        f"--benchmark's ({same_as.name})")
    return found


#: the end of the name of a benchmark family of the user's own project (``coq-project:PATH``): its
#: runs are what ``--add-run`` is for, so they are taken whatever their library; a run of another
#: installed library than the learn run's (``coq-lib:NAME``, the stdlib) is refused
PROJECT_FAMILY_SUFFIX = "-project"


def own_project(library: str) -> bool:
    """Whether ``library`` (a :class:`~generator.action_data.Provenance`'s) is a user's project."""
    return library.partition(":")[0].endswith(PROJECT_FAMILY_SUFFIX)


def _status(message: str) -> None:
    print(f"learn: {message}", file=sys.stderr, flush=True)


class Learner:
    """The rounds of one learn run directory; each step is skipped when its output is there."""

    def __init__(self, out: Path, settings: LearnSettings, workers: int, added: list[Path],
                 test: tuple[str, int] | None = None) -> None:
        from generator.action_data import Provenance
        from prover.run.evaluation import library_of
        from search_tree.registry import load_target

        self.out = out
        self.settings = settings
        self.workers = workers
        self.added = added
        self.test = test  # (benchmark, sample size) every round is also measured on
        self.backend = learner_backend(settings.benchmark, "--benchmark")
        assert self.backend.prover_version is not None  # learner_backend took only one that learns
        self.provenance = Provenance(load_target(self.backend.prover_version)(), library_of(settings.benchmark))
        self._check_identity()
        for run_dir in added:  # before round 0's searches, not after them
            self._added_provenance(run_dir)

    def _check_identity(self) -> None:
        path = self.out / "learn.json"
        wanted = {"format": LEARN_FORMAT, "settings": asdict(self.settings), "provenance": asdict(self.provenance)}
        data = read_regular(path)  # a link or a FIFO there is refused, never followed nor waited on
        if data is not None:
            try:
                saved = json.loads(data.decode("utf-8"))
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                raise UserError(f"{path} is not valid JSON ({exc}); choose another --out") from None
            if not isinstance(saved, dict):
                raise UserError(f"{path} is not a learn run's learn.json (a JSON {type(saved).__name__}); "
                                "choose another --out")
            if saved != wanted:
                diff = [k for k in wanted if saved.get(k) != wanted[k]]
                raise UserError(f"{self.out} holds a learn run with other {' and '.join(diff)} ({json.dumps(saved)[:160]}); "
                                "refusing to mix them: choose another --out")
            return
        self.out.mkdir(parents=True, exist_ok=True)
        replace_file(path, json.dumps(wanted, indent=2).encode())

    def round_dir(self, k: int) -> Path:
        return self.out / f"round-{k}"

    def _test_dir(self, k: int) -> Path | None:
        """Round ``k``'s test searches, named by their benchmark and sample (neither is part of the
        run's identity, so another test sample is searched anew, not read from this one's)."""
        if self.test is None:
            return None
        benchmark, limit = self.test
        label = re.sub(r"[^\w.-]+", "_", benchmark)
        return self.round_dir(k) / f"test-{label}-n{limit}"

    def checkpoint(self, k: int) -> Path | None:
        return None if k == 0 else self.round_dir(k) / "policy.pt"

    def run(self, rounds: int) -> list[dict[str, Any]]:
        """Rounds 0..rounds: rounds 0..rounds-1 search the training sample; 1..rounds train a
        checkpoint; every round is measured on the validation sample, and on the test sample when
        one is given. Returns one row per round."""
        rows = []
        for k in range(rounds + 1):
            if k > 0:
                self._train(k)
            if k < rounds:
                self._search_train(k)
            if self.settings.val:
                self._search(k, "val", self.settings.val_benchmark, self.settings.val)
            test = self._test_dir(k)
            if test is not None and self.test is not None:
                self._search(k, test.name, *self.test)
            rows.append(self._row(k))
        return rows

    # --- steps -----------------------------------------------------------------------------------
    def _search(self, k: int, name: str, benchmark: str, limit: int) -> Path:
        """Evaluate round ``k``'s prover on ``benchmark`` into ``round-k/NAME`` (resumed if begun)."""
        from prover.benchmarks.registry import load_benchmark
        from prover.run.evaluation import EvalConfig, run_evaluation
        from search_tree.registry import load_target

        directory = self.round_dir(k) / name
        stage = directory / "stage.json"
        if stage.exists():
            return directory
        checkpoint = self.checkpoint(k)
        _status(f"round {k}: searching {limit} theorems of {benchmark} "
                f"{'with ' + str(checkpoint) if checkpoint else 'without a learned policy'}")
        assert self.backend.learned_preset is not None  # learner_backend took only one that learns
        preset = load_target(self.backend.learned_preset)
        config = EvalConfig(preset(self.settings.timeout, policy=checkpoint),
                            benchmark, limit=limit, workers=self.workers)
        started = time.monotonic()
        run_evaluation(config, load_benchmark(benchmark, limit), directory)  # records its provenance.json
        _write_json(stage, {"seconds": time.monotonic() - started})
        return directory

    def _search_train(self, k: int) -> None:
        from generator.action_data import read_run, write_data

        directory = self._search(k, "search", self.settings.benchmark, self.settings.theorems)
        data = self.round_dir(k) / "data.jsonl"
        if not data.exists():
            write_data(data, self.provenance, read_run(directory))

    def _added_provenance(self, run_dir: Path) -> None:
        """Refuse (one line naming it) an ``--add-run`` directory that is not an evaluation run of
        this backend, that does not record which prover it ran on (``provenance.json``, written by
        ``eval``), that ran on another prover version than this run's, or that searched another
        installed library than this run's; a run on the user's own project (:func:`own_project`)
        is what the flag is for and is taken. A tactic's outcome under another Coq says nothing here."""
        from generator.action_data import check_compatible, read_provenance
        from prover.run.evaluation import library_of, read_config

        with about(f"--add-run {run_dir}"):
            run = read_config(run_dir / "config.json")["run"]
            found = read_provenance(run_dir)
        env = run["components"].get("env", {}).get("name")
        if env != self.backend.name:
            raise UserError(f"--add-run {run_dir}: a run of the {env!r} environment, not {self.backend.name}; "
                            "refusing to mix it in")
        if found is None:
            raise UserError(f"--add-run {run_dir}: the run records no prover version (no provenance.json: made "
                            "before `eval` recorded it); run it again with `dojo-prover eval` to learn from it")
        if found.library != library_of(run["benchmark"]):
            raise UserError(f"--add-run {run_dir}: provenance.json says library {found.library}, but the run's "
                            f"benchmark is {run['benchmark']}; refusing to mix it in")
        if found.coq_version != self.provenance.coq_version or not (
                found.library == self.provenance.library or own_project(found.library)):
            check_compatible(self.provenance, found, run_dir)

    def _data(self, k: int) -> list:
        """The search data of rounds before ``k`` and of the added runs, each checked for provenance."""
        from generator.action_data import read_data, read_run

        searches = []
        for j in range(k):
            searches += read_data(self.round_dir(j) / "data.jsonl", self.provenance)[1]
        for run_dir in self.added:
            self._added_provenance(run_dir)
            searches += read_run(run_dir)
        return searches

    def _train(self, k: int) -> None:
        from generator.learned_policy import TrainConfig, train

        checkpoint = self.checkpoint(k)
        assert checkpoint is not None  # rounds 1.. train
        if checkpoint.exists():
            return
        searches = self._data(k)
        _status(f"round {k}: training on {sum(len(s.attempts) for s in searches)} tried tactics "
                f"of {len(searches)} searches")
        started, cpu = time.monotonic(), tree_cpu_seconds()
        policy = train(searches, self.provenance, TrainConfig(epochs=self.settings.epochs, seed=self.settings.seed))
        policy.metrics.update(seconds=time.monotonic() - started, cpu_seconds=tree_cpu_seconds() - cpu)
        policy.save(checkpoint)

    # --- figures ---------------------------------------------------------------------------------
    def members(self, k: int) -> list[str]:
        """The members of the default whose tactics round ``k``'s searches tried."""
        from generator.action_data import read_data

        return sorted({a.member for s in read_data(self.round_dir(k) / "data.jsonl")[1] for a in s.attempts})

    def _row(self, k: int) -> dict[str, Any]:
        from prover.run.evaluation import ResultsFile

        row: dict[str, Any] = {"round": k, "policy": str(self.checkpoint(k) or "none")}
        cpu: float | None = 0.0
        wall = 0.0
        test = self._test_dir(k)
        for name, directory in (("search", self.round_dir(k) / "search"), ("val", self.round_dir(k) / "val"),
                                ("test", test)):
            if directory is not None and (directory / "stage.json").exists():
                wall += _stage_seconds(directory / "stage.json")
                records = ResultsFile(directory / "results.jsonl").load()  # the one reader: records checked
                row[name] = (sum(r["status"] == "proved" for r in records), len(records))
                row[f"{name}_proved"] = sorted(r["key"] for r in records if r["status"] == "proved")
                searched = [r["result"].get("stats", {}).get("cpu_seconds") for r in records]
                # every search's own CPU time (its worker and the processes it ran, on Ray too); a run
                # whose records predate that measure has none to add up
                cpu = None if cpu is None or not all(_is_number(s) for s in searched) else cpu + sum(searched)
        checkpoint = self.checkpoint(k)
        if checkpoint is not None:
            metrics = _training_metrics(checkpoint)
            row["examples"] = metrics["training_examples"]
            learned, tiers = metrics["held_out_learned"], metrics["held_out_tiers"]
            row["held_out"] = (learned["top1_solves"], tiers["top1_solves"])
            row["held_out_seconds"] = tuple(m[f"seconds_before_solving_{s}"] for m in (learned, tiers)
                                            for s in ("median", "mean"))
            cpu = None if cpu is None else cpu + metrics["cpu_seconds"]
            wall += metrics["seconds"]
        row["cpu_minutes"] = None if cpu is None else cpu / 60
        row["wall_minutes"] = wall / 60
        _write_json(self.round_dir(k) / "metrics.json", row)
        return row


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _read_json(path: Path) -> Any:
    """The JSON in ``path`` of a learn run (a link or a FIFO refused), or a :class:`UserError`
    naming it: the run directory is the user's, and may have been edited or damaged."""
    data = read_regular(path)
    if data is None:
        raise UserError(f"{path}: no such file")
    try:
        return json.loads(data.decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"{path} is not valid JSON ({exc})") from None


def _stage_seconds(path: Path) -> float:
    """The seconds a finished step took, from its ``stage.json``; a damaged one is one line that
    says how to redo the step (delete it: the step resumes from what it recorded)."""
    stage = _read_json(path)
    seconds = stage.get("seconds") if isinstance(stage, dict) else None
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool):
        raise UserError(f"{path} is not a finished step's record (an object with a number 'seconds'): "
                        f"{json.dumps(stage)[:60]}; delete it and run the command again to redo that step")
    return float(seconds)


#: what a round's row reads of its checkpoint's training metrics (``generator.learned_policy.train``)
_METRICS = ("training_examples", "seconds", "cpu_seconds")
_HELD_OUT = ("top1_solves", "seconds_before_solving_median", "seconds_before_solving_mean")


def _training_metrics(checkpoint: Path) -> dict[str, Any]:
    """The metrics ``learn`` saved in ``checkpoint`` when it trained it, checked: a checkpoint
    without them (another program's, or a damaged one) is one line naming it, not a KeyError."""
    from generator.learned_policy import REBUILD, LearnedPolicy

    metrics = LearnedPolicy.load(checkpoint).metrics
    held_out = [metrics.get(part) for part in ("held_out_learned", "held_out_tiers")]
    if not (all(_is_number(metrics.get(name)) for name in _METRICS)
            and all(isinstance(m, dict) and all(_is_number(m.get(name)) for name in _HELD_OUT) for m in held_out)):
        raise UserError(f"learned policy checkpoint {checkpoint} holds no training metrics of learn "
                        f"({', '.join(_METRICS)}, held-out rankings); delete it and rebuild it with {REBUILD}")
    return metrics


def _write_json(path: Path, data: Any) -> None:
    make_dir(path.parent)
    replace_file(path, json.dumps(data, indent=2).encode())


def _fraction(pair: tuple[int, int] | None) -> str:
    return "-" if pair is None else f"{pair[0]}/{pair[1]} ({100 * pair[0] / max(pair[1], 1):.0f}%)"


def summary(rows: list[dict[str, Any]], settings: LearnSettings, out: Path,
            test: tuple[str, int] | None = None) -> str:
    """The rounds as a markdown table, with what each column measures."""
    tested = "" if test is None else f", {test[1]} of `{test[0]}` held out to report (nothing is chosen on them)"
    lines = [f"Learn run `{out}`: {settings.theorems} theorems of `{settings.benchmark}` searched per round, "
             f"{settings.val} of `{settings.val_benchmark}` to measure{tested}, {settings.timeout:g} s per search.", "",
             "| round | policy | proved (train sample) | proved (val sample) | proved (test sample) | training examples | "
             "held-out top-1 solves: learned / tiers | held-out seconds before solving, median, mean: learned / tiers "
             "| CPU minutes | wall-clock minutes |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        held, seconds = row.get("held_out"), row.get("held_out_seconds")
        lines.append(f"| {row['round']} | `{row['policy']}` | {_fraction(row.get('search'))} | "
                     f"{_fraction(row.get('val'))} | {_fraction(row.get('test'))} | {row.get('examples', '-')} | "
                     f"{'-' if held is None else f'{held[0]:.2f} / {held[1]:.2f}'} | "
                     f"{'-' if seconds is None else '{:.2f}, {:.2f} / {:.2f}, {:.2f}'.format(*seconds)} | "
                     f"{'n/a' if row.get('cpu_minutes') is None else format(row['cpu_minutes'], '.1f')} | "
                     f"{row.get('wall_minutes', 0.0):.1f} |")
    baseline = set(rows[0].get("val_proved", []))
    for row in rows[1:]:
        if "val_proved" in row:
            now = set(row["val_proved"])
            lines += ["", f"Round {row['round']} against round 0 on the validation sample: {len(now - baseline)} "
                      f"proved that round 0 did not ({', '.join(sorted(now - baseline)) or 'none'}), "
                      f"{len(baseline - now)} lost ({', '.join(sorted(baseline - now)) or 'none'})."]
    lines += ["", "Training examples: tried (state, tactic) pairs of the rounds before. Held-out: on the states "
              "of held-out training theorems where a tried tactic solved, with the tried tactics run in the "
              "learned policy's order and in the tier scores' order, the share where the first one solves (top-1 "
              "solves), and the seconds before the first solving one (the logged seconds of the tactics run "
              "before it). CPU minutes: each search's own CPU time (its worker process and the Coq and ATP "
              "processes it ran, read with psutil; n/a where a run's records predate that measure) and the "
              "training's. Wall-clock minutes: the round's searches and training as they ran, each step "
              "from its last start (a resumed step counts from where it resumed)."]
    return "\n".join(lines)
