"""A third backend added the way ``docs/architecture.md`` says: its own folder
(``tests/toy_backend/``) and one registration, no other file edited; then searches run through it.

Each check runs in a fresh interpreter that registers the toy backend first, as a program using
the library would, so the registration does not leak into other tests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from search_tree.errors import UserError

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent
REGISTER = ("import sys\n"
            "from prover.backends import register\n"
            "from toy_backend.backend import BACKEND\n"
            "register(BACKEND)\n")


def _python(code: str, *argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(TESTS)])}
    return subprocess.run([sys.executable, "-c", REGISTER + code, *argv], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=120)


def _cli(*argv: str) -> subprocess.CompletedProcess:
    return _python("from prover.cli import main\nsys.exit(main(sys.argv[1:]))", *argv)


def test_prove_runs_the_toy_backends_default_prover():
    """Fails if ``prove`` accepts only Coq again, if a registered backend's environment, template
    set, language (MePo over its corpus reads symbols with it) or preset does not reach the search,
    or if the proof is printed in another backend's frame (Coq's ``Proof.``/``Qed.``) than the
    toy's own ``proof``/``end``."""
    done = _cli("prove", "--env", "toy", "--timeout", "20", "both")
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0] == "proving both from (statement given) ..."
    assert "status: proved (proved)" in lines
    assert "proof (checked by a replay of the tactics; no axioms):" in lines
    assert lines[lines.index("proof (checked by a replay of the tactics; no axioms):") + 1:] == [
        "proof", "  split", "  apply rain_wet", "  apply snow_cold", "end"]


def test_a_theorem_the_library_cannot_prove_is_not_proved():
    """Fails if the toy search reports a proof of ``dry``, which no lemma states."""
    done = _cli("prove", "--env", "toy", "--timeout", "20", "lost")
    assert done.returncode == 1, done.stderr[-2000:]
    assert "status: failed" in done.stdout


def test_a_command_says_which_backends_have_what_it_needs():
    """Fails if a command that needs a feature the toy backend lacks runs anyway or fails unclearly."""
    done = _cli("interact", "--env", "toy", "both")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        "dojo-prover interact: error: interact --env toy: the toy backend has no generator of suggestions; "
        "backends that have one: coq")



def test_trace_takes_a_registered_backends_tracer_and_refuses_other_backends_options(tmp_path):
    """Fails if ``trace`` runs only the tracers it names (the toy's options must reach its parser
    and its run), or if an option of one backend given to another is not refused in one line
    naming the backend it is for, either way."""
    done = _cli("trace", "--env", "toy", "--lemma-prefix", "rain", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == [f"traced 1 lemmas -> {tmp_path}"]
    assert [p["full_name"] for p in json.loads((tmp_path / "corpus.jsonl").read_text())["premises"]] == ["rain_wet"]
    for argv, message in ((["--env", "coq", "--lemma-prefix", "rain"], "--lemma-prefix is for --env toy, not --env coq"),
                          (["--env", "toy", "--files", "A/*.v"], "--files is for --env coq, not --env toy"),
                          (["--env", "toy", "u"], "URL is for --env leandojo, not --env toy")):
        done = _cli("trace", *argv, "--out", str(tmp_path))
        assert done.returncode == 2 and done.stderr.strip().splitlines()[-1] == f"dojo-prover trace: error: {message}"


def test_mcts_and_symbol_retrieval_through_the_registries():
    """Fails if the Python API does not build a registered backend's components by name (environment,
    template set, SInE over its corpus with its logical constants), or if the corpus's language is
    not the toy one, or if MCTS does not screen the language's give-up or cannot prove through it."""
    code = """
from prover.backends import language_of
from prover.registry import ComponentSpec, ProverConfig, build_run, with_defaults
from search_tree import Status
from toy_backend.language import TOY

config = ProverConfig(ComponentSpec("toy"), ComponentSpec("mcts", {"timeout": 20}),
                      ComponentSpec("template", {"templates": "toy"}), ComponentSpec("sine"))
assert with_defaults(config).retriever.options["corpus"].endswith("toy_backend/corpus.jsonl")
env, prover = build_run(config)
retriever = prover.tac_gen.retriever
assert retriever.corpus.language is TOY and retriever.deny == {"and"} and language_of(retriever.corpus.files) is TOY
with env:
    result = prover.search(env, env.theorem("three"))
assert result.status == Status.PROVED, result
# the templates propose `cheat` on every state: the toy language's give-up, dropped by MCTS each time
assert result.stats["filtered_tactics"] == result.num_expansions > 0, result.stats
assert env.verify(env.theorem("three"), result.proof).ok
print(result.script)
"""
    done = _python(code)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["split", "apply", "snow_cold", "split", "apply", "rain_wet", "apply", "rain_wet"]


def test_eval_runs_the_toy_benchmark_family_with_its_default_prover(tmp_path):
    """Fails if a benchmark family named in the backend's folder is not known to ``eval``, if eval
    cannot build a third backend's default prover, or if ``learn`` takes a backend that says
    nothing of learned policies."""
    done = _cli("eval", "--env", "toy", "--benchmark", "toy:all", "--timeout", "20", "--out", str(tmp_path / "run"),
                "--no-progress")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "pass@1 = 0.667 over 3 theorems" in done.stdout.splitlines()
    config = json.loads((tmp_path / "run" / "config.json").read_text())["run"]["components"]
    assert (config["generator"]["name"], config["retriever"]["name"]) == ("template", "mepo")
    done = _cli("learn", "--benchmark", "toy:all", "--out", str(tmp_path / "learn"))
    assert done.returncode == 2 and done.stderr.strip().splitlines()[-1] == (
        "dojo-prover learn: error: --benchmark toy:all: a benchmark of the toy backend's, which learn does not "
        "take; it takes benchmarks of coq (coq-stdlib/coq-project/coq-lib)")


def test_a_benchmark_of_another_backend_is_refused_in_one_line():
    """Fails if ``eval`` starts a run whose benchmark belongs to another backend than ``--env``'s
    (every theorem would fail to open), or blames the benchmark for an unknown ``--env``."""
    from prover.backends import check_benchmark

    with pytest.raises(UserError, match=r"^--benchmark coq-stdlib:test: a benchmark of the coq backend, "
                                        r"not of --env leandojo \(use --env coq\)$"):
        check_benchmark("leandojo", "coq-stdlib:test")
    check_benchmark("coq", "coq-lib:Foo:test")
    check_benchmark("lean", "minif2f:test")
    check_benchmark("nosuch", "coq-stdlib:test")
    check_benchmark("coq", "my-list.jsonl")
    with pytest.raises(UserError, match=r"^--benchmark my-list.jsonl: a benchmark of the coq backend, "
                                        r"not of --env synthetic \(use --env coq\)$"):
        check_benchmark("synthetic", "my-list.jsonl")  # the one reader of theorem lists is Coq's
