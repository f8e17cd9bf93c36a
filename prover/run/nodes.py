"""Which nodes of a Ray cluster can run a configuration: checked on each node, once, before it gets tasks.

A worker on a node builds its environment, retriever and generator from the run's
:class:`~prover.registry.ProverConfig`, so the node must have what that configuration uses: the
prover's programs at the driver's versions (for Coq, coqtop, coqc and coqchk; with CoqHammer, its
library and the ATPs it calls), the context additions the driver's Coq accepts, the Python and
package dependencies at the driver's versions, and every file the configuration names (a premise
corpus, traced data, a model) with the driver's content. A node that differs in any of these would
produce results that are not those of the configuration, or fail theorem after theorem, so it gets
no tasks and is reported in one line. What a backend's workers need beyond the package is the
backend's to say (``Backend.node_needs``, a :class:`prover.backend.NodeNeeds`; Coq's in
:mod:`prover.coq.nodes`).

The package's own code is not checked: the workers run the driver's copy, shipped to every node
through Ray's runtime environment (:func:`job_runtime_env`). A file the configuration names that a
node lacks is rebuilt there when the environment itself makes it (the default premise corpus, in
the node's cache), and otherwise reported with the path to copy.

The driver computes :class:`NodeRequirements` (:func:`requirements`); a probe task pinned to each
alive node gathers :class:`NodeFacts` there (:func:`survey`); :func:`shortfalls` compares the two
and is pure, as is :func:`plan_slots`, which spreads worker slots over the usable nodes.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prover.registry import ComponentSpec, ProverConfig
from search_tree.registry import load_target

#: seconds a node has to answer the check (including setting up the runtime environment and
#: rebuilding a corpus); a node that does not answer in time gets no tasks
CHECK_TIMEOUT = 600.0

#: the directories shipped to every worker: the package's top-level packages
PACKAGES = ("search_tree", "retrieval", "generator", "prover", "benchmarks")

_DISTRIBUTION = "dojo-prover"


@dataclass(frozen=True)
class DataFile:
    """A file or directory a configuration names, with the driver's content fingerprint."""

    path: str
    fingerprint: str
    option: str  # where the configuration names it, e.g. ``retriever.corpus``
    rebuildable: bool = False  # the environment writes it itself (its default premise corpus)
    remedy: str = "copy it from the driver"


@dataclass(frozen=True)
class NodeRequirements:
    """What a node must have to run one configuration, as found on the driver."""

    python: str
    distributions: tuple[tuple[str, str], ...] = ()
    tools: tuple[tuple[str, str], ...] = ()  # (program, the first line of its ``--version``)
    additions: tuple[str, ...] = ()  # the context additions the driver's prover accepts
    libraries: tuple[tuple[str, str], ...] = ()  # (directory, fingerprint of its file list)
    data: tuple[DataFile, ...] = ()
    env: str = ""  # the environment registry name and options, for rebuilding its default corpus
    env_options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class NodeFacts:
    """What a node has, for each requirement (None: absent)."""

    python: str
    distributions: dict[str, str | None] = field(default_factory=dict)
    tools: dict[str, str | None] = field(default_factory=dict)
    additions: tuple[str, ...] = ()
    libraries: dict[str, str | None] = field(default_factory=dict)
    data: dict[str, str | None] = field(default_factory=dict)
    rebuilt: tuple[str, ...] = ()


@dataclass(frozen=True)
class NodeCheck:
    """One node's verdict: usable when ``missing`` is empty."""

    node_id: str
    address: str
    resources: dict[str, float] = field(default_factory=dict)  # what the node offers Ray (CPU, GPU, ...)
    missing: tuple[str, ...] = ()

    @property
    def usable(self) -> bool:
        return not self.missing

    @property
    def name(self) -> str:
        return f"node {self.address} ({self.node_id[:8]})"

    def line(self) -> str:
        """The one line that says why the node gets no tasks."""
        return f"{self.name} gets no tasks: {'; '.join(self.missing)}"


# -- on the driver ------------------------------------------------------------------------------

def node_needs(env_name: str) -> Any | None:
    """The :class:`prover.backend.NodeNeeds` of the backend of environment ``env_name`` (None when
    it says none, or is not a registered backend here)."""
    from prover.backends import BACKENDS

    found = BACKENDS.get(env_name)
    return None if found is None or found.node_needs is None else load_target(found.node_needs)


def requirements(config: ProverConfig) -> NodeRequirements:
    """What a node needs for ``config`` (a configuration with its defaults made explicit)."""
    needs = node_needs(config.env.name)
    if needs is None:
        tools: list[tuple[str, str]] = []
        libraries: list[tuple[str, str]] = []
        additions: tuple[str, ...] = ()
        data: list[DataFile] = []
    else:
        additions = needs.additions(config.env.options)
        tools = [(p, "" if os.sep in p else version_line(p)) for p in needs.programs(additions)]
        libraries = [(lib, tree_fingerprint(lib, contents=False)) for lib in needs.libraries(additions)]
        generator = config.generator.options if isinstance(config.generator, ComponentSpec) else None
        data = [DataFile(path, tree_fingerprint(path), option, remedy=remedy)
                for path, option, remedy in needs.default_data(generator)]
    return NodeRequirements(python=python_version(), distributions=dependency_versions(), tools=tuple(tools),
                            additions=additions, libraries=tuple(libraries), data=(*named_data(config), *data),
                            env=config.env.name, env_options=dict(config.env.options))


def named_data(config: ProverConfig) -> Iterator[DataFile]:
    """Every option of ``config`` whose value (or an item of it) names an existing file or directory
    here, fingerprinted; the environment's default premise corpus is marked rebuildable."""
    from prover.registry import default_corpus

    default = None
    if config.retriever.options.get("corpus"):
        try:
            default = default_corpus(config.env.name, config.env.options)
        except Exception:  # noqa: BLE001 - no default corpus here: the named one is simply copied
            default = None
    for part in ("env", "prover", "generator", "retriever"):
        for key, value in getattr(config, part).options.items():
            for item in value if isinstance(value, list | tuple) else [value]:
                if isinstance(item, str) and item and os.path.exists(item):
                    yield DataFile(item, tree_fingerprint(item), f"{part}.{key}",
                                   rebuildable=default is not None and os.path.abspath(item) == os.path.abspath(default))


def python_version() -> str:
    return ".".join(map(str, sys.version_info[:2]))


def dependency_versions() -> tuple[tuple[str, str], ...]:
    """The driver's versions of the package's dependencies (those installed here; none when the
    package runs from a source tree without being installed)."""
    try:
        declared = importlib.metadata.requires(_DISTRIBUTION) or []
    except importlib.metadata.PackageNotFoundError:
        return ()
    out = []
    for spec in declared:
        if "extra ==" in spec:
            continue
        name = re.match(r"[A-Za-z0-9._-]+", spec)
        if name is None:
            continue
        try:
            out.append((name.group(0), importlib.metadata.version(name.group(0))))
        except importlib.metadata.PackageNotFoundError:
            continue
    return tuple(sorted(out))


def import_root() -> Path:
    """The directory holding this copy of the package's top-level packages."""
    return Path(__file__).resolve().parents[2]


def job_runtime_env(modules: Iterable[str] = ()) -> dict[str, Any]:
    """How workers get the driver's code when this process joins Ray: its packages, and the
    ``modules`` outside them that the configuration names by import path (:func:`outside_code`),
    as Ray ``py_modules``, uploaded once per content hash and unpacked on each node before its
    first worker starts (Ray takes local directories only for the whole job, in ``ray.init``).

    Why ``py_modules`` rather than an installed version or ``working_dir``: the driver's code is
    the truth, including uncommitted edits, which no version number describes; ``working_dir``
    would also ship run directories and results and change the workers' working directory."""
    return {"py_modules": [str(import_root() / name) for name in PACKAGES] + [str(p) for p in outside_code(modules)],
            "excludes": ["__pycache__", "*.pyc", "results/"]}


def task_runtime_env(shipped: bool, modules: Iterable[str] = ()) -> dict[str, Any]:
    """The runtime environment of workers and probes: nothing more when the job ships the code
    (:func:`job_runtime_env`); else, on a Ray the caller joined or a private one, the driver's
    import root first on ``PYTHONPATH``, then the directories that hold ``modules``, which serves
    nodes that share the driver's file system."""
    if shipped:
        return {}
    roots = [str(import_root()), *(str(p.parent) for p in outside_code(modules))]
    rest = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p not in roots]
    return {"env_vars": {"PYTHONPATH": os.pathsep.join(dict.fromkeys([*roots, *rest]))}}


def outside_code(modules: Iterable[str]) -> list[Path]:
    """Where the driver imports each of ``modules`` (top-level names) from, a package's directory
    or a module's file, leaving out the package's own (workers have those already)."""
    import importlib.util

    from search_tree.registry import NotInstalled

    found = []
    for name in modules:
        if name in PACKAGES:
            continue
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None and not spec.submodule_search_locations:
            raise NotInstalled(f"module {name} is not installed here, so it cannot be sent to the workers")
        locations = list(spec.submodule_search_locations or [])
        found.append(Path(locations[0]) if locations else Path(str(spec.origin)))
    return found


# -- on the node (also on the driver, for the driver's own values) -----------------------------

def version_line(program: str) -> str:
    """The first line ``program --version`` prints, or "" when it is not on PATH or fails."""
    path = shutil.which(program)
    if path is None:
        return ""
    try:
        done = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    lines = [line.strip() for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    return lines[0] if lines else ""


def tree_fingerprint(path: str, contents: bool = True) -> str:
    """A digest of a file, or of a directory's files (relative names, sizes and, with ``contents``,
    their bytes): equal on two machines when they hold the same data. "" when ``path`` is absent."""
    root = Path(path)
    if not root.exists():
        return ""
    digest = hashlib.sha256()
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
    for file in files:
        digest.update(f"{file.relative_to(root) if file != root else ''}\0{file.stat().st_size}\0".encode())
        if contents:
            with open(file, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    digest.update(block)
    return digest.hexdigest()


def survey(req: NodeRequirements) -> NodeFacts:
    """What this machine has of ``req``; a missing rebuildable file is rebuilt here first."""
    def version(name: str) -> str | None:
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            return None

    tools: dict[str, str | None] = {}
    for program, wanted in req.tools:
        found = shutil.which(program) if os.sep not in program else (program if os.access(program, os.X_OK) else None)
        tools[program] = None if found is None else version_line(program) if wanted else ""
    additions: tuple[str, ...] = ()
    needs = node_needs(req.env) if req.additions and all(v is not None for v in tools.values()) else None
    if needs is not None:
        additions = needs.additions({**req.env_options, "additions": list(req.additions)})
    rebuilt = tuple(_rebuild(req, d) for d in req.data if d.rebuildable and not os.path.exists(d.path))
    return NodeFacts(
        python=python_version(),
        distributions={name: version(name) for name, _ in req.distributions},
        tools=tools,
        additions=additions,
        libraries={lib: tree_fingerprint(lib, contents=False) or None for lib, _ in req.libraries},
        data={d.path: tree_fingerprint(d.path) or None for d in req.data},
        rebuilt=tuple(r for r in rebuilt if r),
    )


def _rebuild(req: NodeRequirements, data: DataFile) -> str:
    """Write the environment's default corpus into this node's cache, with a line before and after
    (Ray forwards a task's output to the driver); returns the path written."""
    from prover.registry import default_corpus

    print(f"rebuilding {data.option} {data.path} on this node", file=sys.stderr, flush=True)
    t0 = time.monotonic()
    try:
        path = default_corpus(req.env, req.env_options) or ""
    except Exception as exc:  # noqa: BLE001 - reported as missing below, with the rest
        print(f"could not rebuild {data.path}: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        return ""
    print(f"rebuilt {path} in {time.monotonic() - t0:.0f}s", file=sys.stderr, flush=True)
    return path


def _survey_here(req: NodeRequirements) -> NodeFacts:
    return survey(req)


def check_nodes(alive: list[dict[str, Any]], req: NodeRequirements, timeout: float,
                runtime_env: dict[str, Any]) -> list[NodeCheck]:
    """Check each node of ``alive`` (entries of ``ray.nodes()``) with one probe task pinned to it,
    in parallel, in the workers' ``runtime_env``; a node whose probe fails (the runtime environment
    cannot be set up there, say) or does not answer within ``timeout`` seconds is unusable."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    probe = ray.remote(num_cpus=0, max_retries=0)(_survey_here)
    refs = {probe.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n["NodeID"], soft=False),
                          runtime_env=runtime_env).remote(req): n for n in alive}
    ready, late = ray.wait(list(refs), num_returns=len(refs), timeout=timeout)
    checks = []
    for ref, node in refs.items():
        if ref in ready:
            try:
                missing = shortfalls(req, ray.get(ref))
            except ray.exceptions.RayError as exc:
                lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
                missing = [f"the check failed ({lines[-1][:300] if lines else type(exc).__name__})"]
        else:
            missing = [f"did not answer the check within {timeout:g}s"]
        checks.append(NodeCheck(node["NodeID"], node["NodeManagerAddress"], dict(node.get("Resources", {})),
                                tuple(missing)))
    for ref in late:
        ray.cancel(ref, force=True)
    return checks


def node_answers(node_id: str, timeout: float) -> bool:
    """Whether node ``node_id`` still runs a task (a no-op pinned to it) within ``timeout`` seconds.

    The cluster lists a failed node as alive until its health checks time out, while the actors on
    it are reported dead at once; asking the node itself tells a lost node from a lost worker."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    if not any(n["NodeID"] == node_id and n["Alive"] for n in ray.nodes()):
        return False
    ping = ray.remote(num_cpus=0, max_retries=0)(lambda: True)
    ref = ping.options(scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False)).remote()
    ready, _ = ray.wait([ref], timeout=timeout)
    if not ready:
        ray.cancel(ref, force=True)
        return False
    try:
        return bool(ray.get(ref))
    except ray.exceptions.RayError:
        return False


# -- pure ---------------------------------------------------------------------------------------

def shortfalls(req: NodeRequirements, facts: NodeFacts) -> list[str]:
    """What a node with ``facts`` lacks of ``req``, one short phrase each (empty: usable)."""
    out: list[str] = []
    if facts.python != req.python:
        out.append(f"Python {facts.python} (the driver's is {req.python})")
    for name, wanted in req.distributions:
        have = facts.distributions.get(name)
        if have != wanted:
            out.append(f"{name} {wanted} not installed" if have is None else f"{name} {have} (the driver's is {wanted})")
    for program, wanted in req.tools:
        have = facts.tools.get(program)
        if have is None:
            out.append(f"{program} not found" + ("" if os.sep in program else " on PATH"))
        elif have != wanted:
            out.append(f"{program} is {have!r} (the driver's is {wanted!r})")
    refused = [a for a in req.additions if a not in facts.additions]
    if refused and all(facts.tools.get(tool) is not None for tool, _ in req.tools):  # else the tool is the news
        out.append(f"the prover refuses the context additions {', '.join(refused)}")
    for library, wanted in req.libraries:
        have = facts.libraries.get(library)
        if have != wanted:
            out.append(f"library {library} " + ("not installed" if have is None else "differs from the driver's"))
    for data in req.data:
        have = facts.data.get(data.path)
        if have != data.fingerprint:
            state = "absent" if have is None else "differs from the driver's copy"
            out.append(f"{data.option} {data.path} {state} ({data.remedy})")
    return out


def plan_slots(capacities: dict[str, float], assigned: Iterable[str]) -> str:
    """The node for the next worker: the one with the most room left (``capacities``, in workers,
    less the workers ``assigned`` to it), ties to the first listed; nodes fill until their room is
    even, then in turn. Needs at least one node."""
    if not capacities:
        raise ValueError("no node to place a worker on")
    counts: dict[str, int] = {}
    for node in assigned:
        counts[node] = counts.get(node, 0) + 1
    order = list(capacities)
    return max(order, key=lambda n: (capacities[n] - counts.get(n, 0), -order.index(n)))
