"""Commands that need more than an environment take the backend from what they are given and
refuse, in one line naming the backends that would do, one without what they need."""

from __future__ import annotations

import pytest

from prover.cli import main


def _error(capsys, *argv: str) -> str:
    assert main(list(argv)) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def test_fill_admitted_refuses_a_backend_without_a_filler(capsys, tmp_path):
    """Fails if ``fill-admitted`` opens a project of a backend that has no filling of admitted
    proofs, or does not say which backend has one."""
    assert _error(capsys, "fill-admitted", str(tmp_path), "--env", "lean", "--out", str(tmp_path / "o")) == (
        "dojo-prover fill-admitted: error: fill-admitted --env lean: the leandojo backend has no filling of "
        "admitted proofs; backends that have one: coq")


@pytest.mark.parametrize("argv, message", [
    (("--benchmark", "synthetic:4"),
     "--benchmark synthetic:4: a benchmark of the synthetic backend's, which learn does not take; "
     "it takes benchmarks of coq (coq-stdlib/coq-project/coq-lib)"),
    (("--benchmark", "nosuch:train"),
     "--benchmark nosuch:train: a benchmark of no backend's, which learn does not take; "
     "it takes benchmarks of coq (coq-stdlib/coq-project/coq-lib)"),
    (("--val-benchmark", "minif2f:valid"),
     "--val-benchmark minif2f:valid: a benchmark of the leandojo backend's, which learn does not take; "
     "it takes benchmarks of coq (coq-stdlib/coq-project/coq-lib)"),
])
def test_learn_takes_the_backend_of_its_benchmark(capsys, tmp_path, argv, message):
    """Fails if ``learn`` starts rounds on a benchmark whose backend's default prover takes no
    learned policy (before any search or directory), or blames the wrong flag."""
    assert _error(capsys, "learn", "--out", str(tmp_path / "run"), *argv) == f"dojo-prover learn: error: {message}"
    assert not (tmp_path / "run").exists()
