"""Every module of the library imports on its own and in any order, in a fresh interpreter.

A module that works only when another was imported first (an import circle resolved by luck)
breaks the moment someone tidies an import; these tests catch that where the import-circle
check (static) and the rest of the suite (which imports modules in one fixed order) cannot.
"""

from __future__ import annotations

import pathlib
import random
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGES = ("search_tree", "prover", "retrieval", "generator", "benchmarks")


def all_modules() -> list[str]:
    names = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            names.append(name.removesuffix(".__init__"))
    return names


def _import_in_fresh_interpreter(modules: list[str]) -> subprocess.CompletedProcess:
    code = "import importlib, sys\nfor m in sys.argv[1:]:\n    importlib.import_module(m)\n"
    return subprocess.run([sys.executable, "-c", code, *modules], cwd=ROOT, capture_output=True, text=True)


def test_the_module_list_covers_the_core():
    """Fails if the walk over the packages misses modules (a wrong root or pattern would make the
    import tests below pass vacuously)."""
    modules = all_modules()
    assert {"prover.registry", "prover.run.distributed", "prover.proof_search", "search_tree.registry",
            "prover.benchmarks.registry", "generator.template"} <= set(modules) and len(modules) > 60


@pytest.mark.parametrize("module", all_modules())
def test_module_imports_on_its_own(module):
    """Fails if ``module`` needs another module imported first, e.g. if ``prover.registry``
    imported ``prover.proof_search`` at its top while ``proof_search`` re-exported
    ``prover.run.distributed`` eagerly ("partially initialized module")."""
    done = _import_in_fresh_interpreter([module])
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_all_modules_import_in_a_random_order(seed):
    """Fails if some order of imports hits a partially initialised module (an import circle)."""
    modules = all_modules()
    random.Random(seed).shuffle(modules)
    done = _import_in_fresh_interpreter(modules)
    assert done.returncode == 0, f"order {modules}:\n{done.stderr[-2000:]}"


def test_reprover_import_path_of_the_distributed_prover():
    """Fails if ``from prover.proof_search import DistributedProver`` (README, ReProver users)
    stops working, or works only after ``prover.run.distributed`` was imported."""
    code = ("from prover.proof_search import DistributedProver, Outcome, Task\n"
            "import prover.run.distributed as d\nassert DistributedProver is d.DistributedProver\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
