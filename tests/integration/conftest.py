"""Integration tests: the real components (coqtop, coqc, coqchk, CoqHammer's ATPs, Ray, FAISS,
Lightning, tmux, headless Chromium). Every test here is marked ``integration``.

The tools that ``scripts/setup.sh`` installs, and the Coq libraries that its ``--with-libraries``
installs, are required, not optional: a missing one stops the session with one error naming it,
instead of turning each test that needs it into a skip that would hide a broken install. (Tests
that need a Lean toolchain, which cannot be installed everywhere, still skip with their reason.)
"""

import shutil
from pathlib import Path

import pytest

REQUIRED_TOOLS = ("coqtop", "coqc", "coqchk", "coqdep", "eprover", "cvc4", "tmux", "chromium")
#: the installed Coq libraries the tests open, trace and resolve (``scripts/setup.sh --with-libraries``)
REQUIRED_LIBRARIES = ("AAC_tactics", "Equations", "deriving", "elpi", "ExtLib", "mathcomp.ssreflect",
                      "mathcomp.analysis", "mathcomp.bigenough")


def pytest_configure(config):
    missing = [tool for tool in REQUIRED_TOOLS if shutil.which(tool) is None]
    if missing:
        raise pytest.UsageError(f"tests/integration needs {', '.join(missing)} on PATH "
                                f"(bash scripts/setup.sh installs them); run tests/unit without them")
    from prover.coq.install import installed_libraries

    absent = sorted(set(REQUIRED_LIBRARIES) - set(installed_libraries()))
    if absent:
        raise pytest.UsageError(f"tests/integration needs the installed Coq libraries {', '.join(absent)} "
                                f"(bash scripts/setup.sh --with-libraries installs them); run tests/unit without them")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "/tests/integration/" in str(item.path):
            item.add_marker(pytest.mark.integration)


@pytest.fixture(scope="session")
def stdlib_index_file() -> Path:
    """The stdlib's index in the session's cache (built there on first use)."""
    from prover.coq.index import code_version, load_index
    from prover.coq.install import cache_dir
    from prover.coq.project import stdlib_project

    load_index(stdlib_project(), progress=False)
    found = sorted(cache_dir().glob(f"index-{code_version()}-{stdlib_project().key}-*.json"))
    assert found, "the stdlib index was not cached"
    return found[-1]


@pytest.fixture
def private_cache(tmp_path, monkeypatch, stdlib_index_file) -> Path:
    """A cache root of the test's own (``$DOJO_PROVER_CACHE``), holding a copy of the session's
    stdlib index: what a test writes there stays its own, and no test scans the stdlib again."""
    from prover.coq.install import cache_dir

    root = tmp_path / "cache"
    monkeypatch.setenv("DOJO_PROVER_CACHE", str(root))
    cache_dir().mkdir(parents=True)
    shutil.copy(stdlib_index_file, cache_dir() / stdlib_index_file.name)
    return root
