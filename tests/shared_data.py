"""The ``shared_data`` marker (a pytest plugin, loaded by ``tests/conftest.py``).

``@pytest.mark.shared_data(path, ...)`` marks a test that reads the shared benchmark data
(``../shared/data`` next to the checkout, or ``$DOJO_PROVER_DATA``). Where a path is absent the
test is skipped on a developer's machine, but fails in CI (``$CI`` set, as every CI service
does): there the data is part of the set-up, and a skip would hide that it is gone.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def in_ci() -> bool:
    """True where ``$CI`` is set to anything but empty, ``0`` or ``false``."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before any fixture runs: skip (in CI, fail) a ``shared_data`` test whose data is absent."""
    missing = [str(p) for mark in item.iter_markers("shared_data") for p in mark.args if not Path(p).exists()]
    if not missing:
        return
    if in_ci():
        pytest.fail(f"shared data not found: {', '.join(missing)}; CI must provide it "
                    f"(../shared/data next to the checkout, or $DOJO_PROVER_DATA)", pytrace=False)
    pytest.skip(f"shared data not found: {', '.join(missing)}")
