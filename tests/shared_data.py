"""The ``shared_data`` marker (a pytest plugin, loaded by ``tests/conftest.py``).

``@pytest.mark.shared_data(path, ...)`` marks a test that reads the shared benchmark data
(``../shared/data`` next to the checkout, or ``$DOJO_PROVER_DATA``). Where a path is absent the
test is skipped on a developer's machine, but fails in CI (``$CI`` set, as every CI service
does) on a machine that has the shared data folder: there the data is part of the set-up, and a
skip would hide that a file of it is gone. A CI machine with no shared data folder at all skips,
naming the folder it looked for.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from prover.benchmarks.datasets import default_data_dir


def in_ci() -> bool:
    """True where ``$CI`` is set to anything but empty, ``0`` or ``false``."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before any fixture runs: skip (in CI, fail) a ``shared_data`` test whose data is absent."""
    missing = [str(p) for mark in item.iter_markers("shared_data") for p in mark.args if not Path(p).exists()]
    if not missing:
        return
    if in_ci() and default_data_dir().is_dir():
        pytest.fail(f"shared data not found: {', '.join(missing)}; CI must provide it "
                    f"(../shared/data next to the checkout, or $DOJO_PROVER_DATA)", pytrace=False)
    pytest.skip(f"shared data not found: {', '.join(missing)} (shared data folder: {default_data_dir()})")
