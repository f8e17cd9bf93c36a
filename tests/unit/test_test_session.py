"""The test session itself: its private cache root and the ``shared_data`` marker's CI rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from search_tree.cache import cache_root

MARKED = """
import pytest

@pytest.mark.shared_data({path!r})
def test_reads_it():
    pass
"""


def test_the_session_caches_in_the_checkout_not_in_the_users_cache():
    """Fails if a test could read or write ``~/.cache/dojo-prover`` (the user's index and traces)."""
    assert cache_root() == Path(__file__).resolve().parents[2] / ".test-cache"
    assert Path.home() / ".cache" / "dojo-prover" not in (cache_root(), *cache_root().parents)


@pytest.mark.parametrize("ci, folder, outcome", [(None, True, "skipped"), ("", True, "skipped"),
                                                 ("false", True, "skipped"), ("true", True, "errors"),
                                                 ("1", True, "errors"), ("true", False, "skipped")])
def test_absent_shared_data_skips_but_fails_in_ci(pytester, monkeypatch, tmp_path, ci, folder, outcome):
    """Fails if a file absent from the shared data folder is skipped in CI (hiding a broken set-up)
    or fails a developer's run, or if a CI machine without the folder fails. In CI the test errs in
    its set-up, before any fixture could read the data."""
    monkeypatch.setenv("DOJO_PROVER_DATA", str(tmp_path if folder else tmp_path / "no-shared-data"))
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    pytester.makepyfile(MARKED.format(path=str(tmp_path / "absent")))
    result = pytester.runpytest("-p", "shared_data", "-rsE")
    result.assert_outcomes(**{outcome: 1})
    result.stdout.fnmatch_lines([f"*shared data not found: {tmp_path / 'absent'}*"])


def test_present_shared_data_runs_in_ci(pytester, monkeypatch, tmp_path):
    monkeypatch.setenv("CI", "true")
    pytester.makepyfile(MARKED.format(path=str(tmp_path)))
    pytester.runpytest("-p", "shared_data").assert_outcomes(passed=1)


def test_readme_test_command_is_what_ci_runs():
    """Fails if the README's test command and ``.ci/run``'s drift apart (CI would test otherwise)."""
    root = Path(__file__).resolve().parents[2]
    readme = [line for line in (root / "README.md").read_text().splitlines() if "(what .ci/run runs)" in line]
    ci = [line for line in (root / ".ci" / "run").read_text().splitlines() if "pytest" in line]
    assert len(readme) == 1 and len(ci) == 1
    assert readme[0].split("&&", 1)[1].split("#")[0].strip() == ci[0].strip()
