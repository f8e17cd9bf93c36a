"""Named Lean benchmarks and LeanDojo-format traced data, as protocol :class:`Theorem` lists.

Two source formats:

* LeanDojo Benchmark JSON (``leandojo_benchmark_4/{random,novel_premises}/{train,val,test}.json``
  and the 2,000-theorem sample in ``shared/data/leandojo-b4-sample/val.json``): a list of traced
  theorems ``{url, commit, file_path, full_name, start, end, traced_tactics: [{tactic,
  annotated_tactic: [text, [provenance...]], state_before, state_after}]}``. The Coq tracer writes the
  same format, so :func:`load_traced_theorems` serves both backends' training and evaluation data.
* statement benchmarks in DeepSeek-Prover's jsonl form (``minif2f.jsonl``, ``proofnet.jsonl``):
  ``{name, split, informal_prefix, formal_statement, goal, header}``.

Every theorem carries what the LeanDojo backend needs to open it (``file_path``, ``position`` and
its ``prover.lean.env.LeanFields``) where the source says; retrievers use ``file_path`` and
``position`` for premise accessibility. ``load_lean_benchmark("minif2f:test")`` and friends resolve
names against a data directory: ``$DOJO_PROVER_DATA`` or the ``shared/data`` folder beside the
repository; the full LeanDojo Benchmark 4 is found under ``$LEANDOJO_BENCHMARK_4`` (the folder
holding ``random/`` and ``novel_premises/``).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from retrieval.traced_file import TracedTactic, traced_pair, traced_tactics
from search_tree.errors import UserError
from prover.lean.env import LeanFields
from search_tree.protocol import Theorem, TheoremFields

# The Lean 4 port of miniF2F that LeanDojo traced (shared/data/leandojo-b4-sample/metadata.json);
# its theorems of the valid and test splits live in these files, under the benchmark's names.
MINIF2F_LEAN4_URL = "https://github.com/yangky11/miniF2F-lean4"
MINIF2F_LEAN4_COMMIT = "9e445f5435407f014b88b44a98436d50dd7abd00"
MINIF2F_LEAN4_FILES = {"valid": "MiniF2F/Valid.lean", "test": "MiniF2F/Test.lean"}

LEANDOJO_SPLITS = ("random", "novel_premises")
LEANDOJO_PARTS = ("train", "val", "test")


class DatasetError(UserError, ValueError):
    """A data file that is missing or not in the format its loader reads (the message names it)."""


@dataclass(frozen=True)
class TracedTheorem:
    """A theorem of LeanDojo-format traced data."""

    url: str
    commit: str
    file_path: str
    full_name: str
    start: tuple[int, int]
    end: tuple[int, int]
    traced_tactics: tuple[TracedTactic, ...]

    def theorem(self) -> Theorem:
        """The protocol theorem: what a prover opens and a retriever restricts premises by."""
        return LeanFields(url=self.url, commit=self.commit, end=self.end,
                          num_traced_tactics=len(self.traced_tactics)).on(
            Theorem(full_name=self.full_name, file_path=self.file_path, position=self.start))


def default_data_dir() -> Path:
    """``$DOJO_PROVER_DATA``, else the ``shared/data`` folder next to the repository checkout."""
    env = os.environ.get("DOJO_PROVER_DATA")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "shared" / "data"


def _read_json(path: Path) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError as exc:
        raise DatasetError(f"data file not found: {path}") from exc
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path} is not valid JSON: {exc}") from exc


def parse_traced_theorem(raw: Any, where: str = "traced theorem") -> TracedTheorem:
    """One LeanDojo-format record; ``where`` names it in errors (file and index)."""
    tactics = traced_tactics(raw, where, DatasetError)  # the one check of a traced theorem
    return TracedTheorem(
        url=raw["url"],
        commit=raw["commit"],
        file_path=raw["file_path"],
        full_name=raw["full_name"],
        start=traced_pair(raw["start"], "start", where),
        end=traced_pair(raw["end"], "end", where),
        traced_tactics=tactics,
    )


def load_traced_theorems(path: str | Path) -> list[TracedTheorem]:
    """All theorems of a LeanDojo Benchmark JSON file (a list of traced theorems)."""
    path = Path(path)
    data = _read_json(path)
    if not isinstance(data, list):
        raise DatasetError(f"{path}: expected a JSON list of traced theorems, got {type(data).__name__}")
    return [parse_traced_theorem(raw, f"{path}[{i}] ({raw.get('full_name', '?') if isinstance(raw, dict) else '?'})")
            for i, raw in enumerate(data)]


def load_leandojo_theorems(path: str | Path, tactic_proofs_only: bool = False) -> list[Theorem]:
    """Protocol theorems of a LeanDojo Benchmark JSON file (optionally only those with tactic proofs)."""
    return [t.theorem() for t in load_traced_theorems(path) if t.traced_tactics or not tactic_proofs_only]


def leandojo_benchmark_file(root: str | Path, split: str, part: str) -> Path:
    """``root/<split>/<part>.json`` of LeanDojo Benchmark 4, checking the names."""
    if split not in LEANDOJO_SPLITS:
        raise DatasetError(f"unknown LeanDojo Benchmark split {split!r}; one of {', '.join(LEANDOJO_SPLITS)}")
    if part not in LEANDOJO_PARTS:
        raise DatasetError(f"unknown LeanDojo Benchmark part {part!r}; one of {', '.join(LEANDOJO_PARTS)}")
    return Path(root) / split / f"{part}.json"


@dataclass(frozen=True)
class StatementFields(TheoremFields):
    """What a statement benchmark (miniF2F, ProofNet) says of a theorem besides its statement, kept
    in :attr:`Theorem.extra` for the record: the file it comes from (``benchmark``), its split, the
    ``header`` of imports and options it is stated under, the initial ``goal``, the informal text
    before it and the line of the file."""

    benchmark: str = ""
    split: str = ""
    header: str = ""
    goal: str = ""
    informal_prefix: str = ""
    line: int = 0


def load_statement_benchmark(
    path: str | Path,
    split: str | None = None,
    repo: tuple[str, str, dict[str, str]] | None = None,
) -> list[Theorem]:
    """miniF2F/ProofNet-style jsonl as theorems with statement, header and initial goal.

    ``split`` keeps one split (``valid``/``test``). ``repo`` = (url, commit, {split: file}) names a
    Lean repository that declares the same theorems under the same names, so that the LeanDojo
    backend can open them; without it the theorems carry statements only.
    """
    path = Path(path)
    theorems: list[Theorem] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError as exc:
        raise DatasetError(f"data file not found: {path}") from exc
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            name, row_split, statement = raw["name"], raw["split"], raw["formal_statement"]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise DatasetError(f"{path}:{lineno}: not a benchmark statement ({exc!r})") from exc
        if split is not None and row_split != split:
            continue
        fields = StatementFields(path.stem, row_split, raw.get("header", ""), raw.get("goal", ""),
                                 raw.get("informal_prefix", ""), lineno)
        file_path, lean = "", LeanFields()
        if repo is not None:
            url, commit, files = repo
            if row_split not in files:
                raise DatasetError(f"{path}:{lineno}: no file of {url} for split {row_split!r}")
            file_path, lean = files[row_split], LeanFields(url=url, commit=commit)
        theorems.append(lean.on(fields.on(Theorem(full_name=name, file_path=file_path, statement=statement))))
    if split is not None and not theorems:
        raise DatasetError(f"{path}: no theorem in split {split!r}")
    return theorems


def load_minif2f(split: str) -> list[Theorem]:
    """miniF2F ``valid``/``test`` (DeepSeek-Prover's Lean 4 edition), openable through
    yangky11/miniF2F-lean4, the port LeanDojo traced (same theorem names)."""
    return load_statement_benchmark(default_data_dir() / "lean-benchmarks" / "minif2f.jsonl", split,
                                    (MINIF2F_LEAN4_URL, MINIF2F_LEAN4_COMMIT, MINIF2F_LEAN4_FILES))


def load_proofnet(split: str) -> list[Theorem]:
    """ProofNet ``valid``/``test`` statements (no repository: see :func:`load_statement_benchmark`)."""
    return load_statement_benchmark(default_data_dir() / "lean-benchmarks" / "proofnet.jsonl", split)


def load_leandojo_sample(part: str) -> list[Theorem]:
    """The shared LeanDojo Benchmark 4 sample: ``val`` (2,000 theorems)."""
    return load_leandojo_theorems(default_data_dir() / "leandojo-b4-sample" / f"{part}.json")


def load_leandojo_benchmark(spec: str) -> list[Theorem]:
    """LeanDojo Benchmark 4 ``<split>/<part>`` (e.g. ``random/test``) under ``$LEANDOJO_BENCHMARK_4``."""
    split, _, part = spec.partition("/")
    root = os.environ.get("LEANDOJO_BENCHMARK_4") or str(default_data_dir() / "leandojo_benchmark_4")
    return load_leandojo_theorems(leandojo_benchmark_file(root, split, part or "test"))


# family -> loader of the part after the colon; an evaluation runner's registry can point at these
LEAN_BENCHMARKS: dict[str, Callable[[str], list[Theorem]]] = {
    "minif2f": load_minif2f,  # minif2f:valid, minif2f:test
    "proofnet": load_proofnet,  # proofnet:valid, proofnet:test
    "leandojo-sample": load_leandojo_sample,  # leandojo-sample:val
    "leandojo": load_leandojo_benchmark,  # leandojo:random/test, leandojo:novel_premises/val, ...
}


def load_lean_benchmark(name: str) -> list[Theorem]:
    """Theorems of a named Lean benchmark ``family:part`` (see :data:`LEAN_BENCHMARKS`)."""
    family, sep, spec = name.partition(":")
    if not sep or family not in LEAN_BENCHMARKS or not spec:
        raise DatasetError(
            f"unknown benchmark {name!r}; use one of {', '.join(f'{k}:...' for k in LEAN_BENCHMARKS)} "
            "(e.g. minif2f:test, proofnet:valid, leandojo-sample:val, leandojo:random/test)")
    return LEAN_BENCHMARKS[family](spec)
