"""The README's Python examples run as written: each ```python block of README.md is executed
as it stands, in a fresh namespace and an empty working directory, and what it prints or builds
is checked. Nothing is supplied to them: a name a block uses must come from the block itself."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```$", README.read_text(), re.DOTALL | re.MULTILINE)


def _proved_zrem(out: str, names: dict) -> None:
    assert out.startswith("Status.PROVED "), out
    assert names["result"].script.strip() in out


def _two_attempts_each(out: str, names: dict) -> None:
    """Four 60-s wall-clock searches on a private Ray. Beside the other tests (four busy processes on
    two cores) one of them once ran out of time in CI, so this example runs in the ``alone`` phase."""
    lines = sorted(out.splitlines())
    assert [line.split()[0] for line in lines] == ["Nat.add_0_l"] * 2 + ["app_nil_r"] * 2, lines
    assert all(line.endswith("Status.PROVED 0") for line in lines), lines


def _premise_generator(out: str, names: dict) -> None:
    from generator.template import TemplateGenerator

    assert out == ""
    assert isinstance(names["tac_gen"], TemplateGenerator) and names["tac_gen"].retriever is names["retriever"]
    assert len(names["corpus"].premises) > 10_000  # the Coq stdlib's


CHECKS = [_proved_zrem, _two_attempts_each, _premise_generator]


def test_the_readme_has_the_python_examples_checked_here():
    assert len(BLOCKS) == len(CHECKS)


@pytest.mark.parametrize("index", [0, pytest.param(1, marks=[pytest.mark.slow, pytest.mark.alone, pytest.mark.timeout(600)]), 2])
def test_a_readme_python_example_runs_as_written(index, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    names: dict = {"__name__": "__readme__"}
    exec(compile(BLOCKS[index], f"README.md, Python example {index + 1}", "exec"), names)  # noqa: S102 - the README is ours
    CHECKS[index](capsys.readouterr().out, names)
