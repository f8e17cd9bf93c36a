"""Integration tests: the real components (coqtop, coqc, coqchk, CoqHammer's ATPs, Ray, FAISS,
Lightning, tmux, headless Chromium). Every test here is marked ``integration``.

The tools that ``scripts/setup.sh`` installs are required, not optional: a missing one stops the
session with one error naming it, instead of turning each test that needs it into a skip that
would hide a broken install. (Tests that need a Lean toolchain, which cannot be installed
everywhere, still skip with their reason.)
"""

import shutil

import pytest

REQUIRED_TOOLS = ("coqtop", "coqc", "coqchk", "coqdep", "eprover", "cvc4", "tmux", "chromium")


def pytest_configure(config):
    missing = [tool for tool in REQUIRED_TOOLS if shutil.which(tool) is None]
    if missing:
        raise pytest.UsageError(f"tests/integration needs {', '.join(missing)} on PATH "
                                f"(bash scripts/setup.sh installs them); run tests/unit without them")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "/tests/integration/" in str(item.path):
            item.add_marker(pytest.mark.integration)
