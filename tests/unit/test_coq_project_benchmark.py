"""benchmarks/coq_project.py: its figure arithmetic, its source copies and its refusal of bad input.

No Coq: the stages themselves run real coqc/coqtop and are checked by running the benchmark (its
results file, benchmarks/results/coq_project.md); these are the pieces whose mistakes would not
show there as an error but as a wrong number or an overwritten results file.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from benchmarks import coq_project
from prover.benchmarks import results
from prover.coq.project import load_project


def test_rate_is_count_per_second_and_na_without_time():
    """Fails if the rate is inverted (seconds per item) or an untimed stage divides by zero."""
    assert coq_project.rate(13, 0.78) == "16.7"
    assert coq_project.rate(3, 0.0) == "n/a"
    assert coq_project.rate(0, 2.0) == "0.0"


def test_cost_cpu_adds_the_children():
    """Fails if the CPU time of coqtop and the workers (the children) is left out of the total."""
    assert coq_project.Cost(wall=2.0, py_cpu=0.25, child_cpu=1.5).cpu == 1.75


def test_copy_leaves_build_products_behind(tmp_path):
    """Fails if a copy keeps the .vo, .glob or .aux files (its build "from scratch" would time nothing)
    or drops a source or the _CoqProject."""
    root = tmp_path / "proj"
    (root / "theories").mkdir(parents=True)
    (root / "_CoqProject").write_text("-Q theories Foo\n")
    for name in ["A.v", "A.vo", "A.vok", "A.vos", "A.glob", ".A.aux", "B.v"]:
        (root / "theories" / name).write_text("")
    copy = coq_project.copy_sources(load_project(str(root)), tmp_path / "copy")
    assert sorted(p.relative_to(copy.root).as_posix() for p in copy.root.rglob("*") if p.is_file()) == \
        ["_CoqProject", "theories/A.v", "theories/B.v"]
    assert copy.source_files() == ["theories/A.v", "theories/B.v"]


@pytest.mark.parametrize("flag", ["--project", "--fill"])
def test_a_directory_without_coqproject_exits_2_and_writes_no_results(flag, tmp_path, capsys, monkeypatch):
    """Fails if a directory without _CoqProject is not refused with the project model's one-line error
    and exit 2, or if the refused run returns instead of exiting (``write_results(main())`` would then
    overwrite the results file with a run that measured nothing)."""
    monkeypatch.setattr(results, "RESULTS_DIR", tmp_path / "results")
    fixture = str(Path(__file__).parents[1] / "fixtures" / "coqproj")  # a directory: no coqc needed to load it
    monkeypatch.setattr(sys, "argv", ["coq_project.py", "--project", fixture, "--fill", fixture, flag, str(tmp_path),
                                      "--write-results"])
    try:
        with pytest.raises(SystemExit) as exit_:
            results.write_results(coq_project.main())
        written = (tmp_path / "results").exists()
    finally:
        results.write_results()  # end the recording the flag started, while capsys's stream is open
    assert exit_.value.code == 2 and not written
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"Coq project {tmp_path}: no _CoqProject and no load-path flags" in err
