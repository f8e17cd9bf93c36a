"""The attack collection: untrusted preludes and tactics that try to reach a shell or the file system.

:data:`ATTACKS` is one list of :class:`Attack` (append new classes of attack to it). Each attack
runs twice: through the real CLI (``dojo-prover prove``) in a watched world -- its working
directory a project root holding a ``coqhammer.opt`` that turns CoqHammer's hook into shell
commands, ``HOME`` and ``TMPDIR`` watched directories of their own -- and through the real
environment in this process, where the exact refusal is asserted. Around each attack every file
of the watched world is snapshot (names, sizes, modification times, contents' hashes), and the
real ``/tmp`` is searched for the attack's marker: nothing may be created or changed outside the
Coq processes' own sandboxes. Payloads write to absolute paths in the watched world, so a payload
that ran would be seen.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from prover.coq.context import adhoc_theorem
from prover.coq.coqtop import Coqtop
from prover.coq.env import CoqEnvironment
from prover.coq.sandbox import PREFIX
from search_tree import ErrorKind, TacticError, linear_proof
from search_tree.cache import CACHE_VARIABLE, cache_root

pytestmark = pytest.mark.coq
ROOT = Path(__file__).resolve().parents[2]
HAMMER = "From Hammer Require Import Hammer."
PREDICT = "/usr/libexec/coq-hammer/predict"
STATEMENT = "Lemma t : 0 = 1."  # no tactic of the baseline proves it: a failed search is the refusal's doing


@dataclass(frozen=True)
class Attack:
    """One attack: a prelude and at most one tactic, with ``{world}`` standing for the watched
    project root (payloads write there), and the exact outcome.

    ``refused`` is the fragment of the one-line refusal; ``exit`` the CLI's exit status (2: the
    prelude or statement was refused as bad input; 1: the search refused the tactic and proved
    nothing; 0: an honest control that must still be proved). ``rejected`` instead of ``refused``:
    the tactic runs, and the verification must reject the proof with that fragment.
    """

    name: str
    prelude: tuple[str, ...]
    tactic: str | None
    exit: int
    refused: str = ""
    statement: str = STATEMENT
    rejected: str = ""


def _prelude(name: str, prelude: tuple[str, ...], refused: str, tactic: str = "auto.") -> Attack:
    return Attack(name, prelude, tactic, 2, refused)


def _tactic(name: str, tactic: str, refused: str, prelude: tuple[str, ...] = (HAMMER,)) -> Attack:
    return Attack(name, prelude, tactic, 1, refused)


ATTACKS: list[Attack] = [
    # -- item 4: a prelude option names the program CoqHammer's predict runs ----------------------
    _prelude("export-set-predict-path", (HAMMER, f'Export Set Hammer PredictPath "touch {{world}}/PWNED; {PREDICT}".'),
             "'Export Set' changes an option", tactic="predict 4."),
    _prelude("export-set-predict-path-hammer", (HAMMER, 'Export Set Hammer PredictPath "touch {world}/PWNED".'),
             "'Export Set' changes an option", tactic="hammer."),
    _prelude("export-unset-guard-checking", ("Export Unset Guard Checking.",), "'Export Unset' changes an option"),
    _prelude("set-predict-path", (HAMMER, 'Set Hammer PredictPath "touch {world}/PWNED".'),
             "option 'Hammer PredictPath' may not be changed"),
    _prelude("local-set-predict-path", (HAMMER, 'Local Set Hammer PredictPath "touch {world}/PWNED".'),
             "'Local Set' changes an option"),
    _prelude("global-unset-guard", ("Global Unset Guard Checking.",), "'Global Unset' changes an option"),
    _prelude("attribute-set-predict-path", (HAMMER, '#[export] Set Hammer PredictPath "touch {world}/PWNED".'),
             "'#[export] Set' changes an option"),
    _prelude("attribute-local-unset", ("#[local] Unset Guard Checking.",), "'#[local] Unset' changes an option"),
    _prelude("default-selector-all", ('Set Default Goal Selector "all".',),
             "value '\"all\"' of option 'Default Goal Selector' is not allowed"),
    # -- item 13: a file of the file system bound as a dependency ----------------------------------
    _prelude("extra-dependency-up", ('From Coq Extra Dependency "../../../../../../etc/passwd" as pw.',),
             "'From Coq Extra' is not part of a library load"),
    _prelude("extra-dependency-world", ('From Coq Extra Dependency "{world}/secret.txt" as s.',),
             "'From Coq Extra' is not part of a library load"),
    _prelude("require-string", ('Require Import "{world}/evil".',), "is not part of a library load"),
    # -- CoqHammer's program tactics hidden in prelude definitions and the statement ---------------
    _prelude("ltac-hammer-hook", (HAMMER, 'Ltac pwn := hammer_hook "p" "x$(touch {world}/PWNED)".'),
             "'hammer_hook' runs a program", tactic="pwn."),
    _prelude("notation-predict", (HAMMER, 'Tactic Notation "pwn" := predict 4.'), "'predict' runs a program",
             tactic="pwn."),
    _prelude("hint-extern-hook", (HAMMER, 'Hint Extern 1 => hammer_hook "p" "x$(touch {world}/PWNED)" : core.'),
             "'hammer_hook' runs a program", tactic="auto."),
    _prelude("definition-ltac-hook", (HAMMER, 'Definition d : nat := ltac:(hammer_hook "p" "x"; exact 0).'),
             "'hammer_hook' runs a program"),
    _prelude("ltac-hammer", (HAMMER, "Ltac h := hammer."), "'hammer' calls external provers", tactic="h."),
    _prelude("prelude-proof-hammer", (HAMMER, "Lemma l : True.", "Proof.", "hammer.", "Qed."),
             "a prelude may not call external provers"),
    _prelude("prelude-native", ("Definition n := ltac:(native_compute; exact 0).",),
             "'native_compute' starts the native compiler"),
    Attack("statement-ltac-hook", (HAMMER,), "auto.", 2, "'hammer_hook' runs a program",
           statement='Lemma t : ltac:(hammer_hook "p" "x$(touch {world}/PWNED)"; exact True).'),
    # -- commands that act on files or processes ----------------------------------------------------
    _prelude("load", ('Load "{world}/evil.v".',), "'Load' is not allowed in a prelude"),
    _prelude("redirect", ('Redirect "{world}/out" Print nat.',), "'Redirect' is not allowed in a prelude"),
    _prelude("cd", ('Cd "{world}".',), "'Cd' is not allowed in a prelude"),
    _prelude("declare-ml-module", ('Declare ML Module "evil".',), "only Declare Module and Declare Scope"),
    _prelude("add-loadpath", ('Add LoadPath "{world}" as Evil.',), "'Add' is not allowed in a prelude"),
    _prelude("extraction", ('Extraction "{world}/x.ml" nat.',), "'Extraction' is not allowed in a prelude"),
    _prelude("hammer-command", (HAMMER, 'Hammer_print "nat".'), "'Hammer_print' is not allowed in a prelude"),
    # -- item 5: CoqHammer's hook hands its strings to Sys.command ---------------------------------
    _tactic("hammer-hook", 'hammer_hook "p" "x$(touch {world}/PWNED)".', "'hammer_hook' runs a program"),
    _tactic("hammer-hook-nested", 'try (idtac; hammer_hook "p" "x$(touch {world}/PWNED)").',
            "'hammer_hook' runs a program"),
    _tactic("predict", "predict 4.", "'predict' runs a program"),
    _tactic("predict-method", 'predict 4 "knn".', "'predict' runs a program"),
    _tactic("hammer-dump", 'hammer_dump "{world}/dump".', "'hammer_dump' runs a program"),
    _tactic("hammer-features", "hammer_features.", "'hammer_features' runs a program"),
    _tactic("ptimeout", "ptimeout 5 auto.", "'ptimeout' runs a program"),
    _tactic("term-predict", "exact ltac:(predict 2).", "'predict' runs a program"),
    # -- item 6: hammer where it could be neither limited nor rewritten ---------------------------
    _tactic("hammer-after-idtac", "idtac; hammer.", "'hammer' calls external provers"),
    _tactic("hammer-try", "try hammer.", "'hammer' calls external provers"),
    _tactic("hammer-brackets", "(hammer).", "'hammer' calls external provers"),
    _tactic("hammer-solve", "solve [hammer].", "'hammer' calls external provers"),
    _tactic("hammer-all", "all: hammer.", "'hammer' calls external provers"),
    _tactic("hammer-first", "first [hammer | auto].", "'hammer' calls external provers"),
    _tactic("hammer-or", "fail || hammer.", "'hammer' calls external provers"),
    _tactic("hammer-repeat", "repeat hammer.", "'hammer' calls external provers"),
    _tactic("hammer-plain-session", "1: hammer.", "external provers run only in an environment with the hammer"),
    # -- commands and debugging in tactic position --------------------------------------------------
    _tactic("tactic-export-set", 'Export Set Hammer PredictPath "touch {world}/PWNED".',
            "'Export' starts a vernacular command"),
    _tactic("tactic-redirect", 'Redirect "{world}/out" Print nat.', "'Redirect' starts a vernacular command"),
    _tactic("debug-firstorder", "debug firstorder.", "'debug firstorder' prints debugging traces"),
    _tactic("infoh", "infoH auto.", "'infoH' prints debugging traces"),
    # -- item 1: the stdlib's compatibility admit axiom, loaded by a prelude ------------------------
    Attack("admit-axiom", ("Require Import Coq.Compat.AdmitAxiom.",), "destruct proof_admitted.", 1,
           rejected="not proved (assumes Coq.Compat.AdmitAxiom.proof_admitted"),
    # -- honest controls: the harness sees a success, and item 13's listed option is allowed ------
    Attack("control-default-selector", ('Set Default Goal Selector "!".',), "exact I.", 0, statement="Lemma t : True."),
    Attack("control-hammer-loaded", (HAMMER,), "sauto.", 0, statement="Lemma t : forall n : nat, n + 0 = n."),
]


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """The watched world: a project root (the CLI's working directory) with the ``coqhammer.opt``
    that makes ``hammer_hook`` run ``mkdir``/shell commands in its working directory, a secret
    file, and a home and a temporary directory of its own."""
    base = tmp_path_factory.mktemp("world")
    project, home, tmp = base / "project", base / "home", base / "tmp"
    for d in (project, home, tmp):
        d.mkdir()
    (project / "coqhammer.opt").write_text("gen-atp\n")
    (project / "secret.txt").write_text("not for Coq\n")
    (home / ".coqrc.8.16").write_text('Redirect "PWNED_COQRC" Print nat.\n')
    return base


@pytest.fixture(scope="module")
def env():
    with CoqEnvironment(tactic_timeout=5, memory_limit_mb=2048) as env:
        yield env


def _snapshot(root: Path) -> dict[str, tuple]:
    """Every entry under ``root`` with its kind, size, modification time and content hash."""
    out: dict[str, tuple] = {}
    for path in sorted(root.rglob("*")):
        st = path.lstat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() and not path.is_symlink() else ""
        out[str(path.relative_to(root))] = (st.st_mode, st.st_size, st.st_mtime_ns, digest)
    return out


def _tmp_traces(marker: str) -> list[str]:
    return sorted(p for p in os.listdir("/tmp") if marker in p)


def _fill(text: str, world: Path) -> str:
    return text.replace("{world}", str(world / "project"))


def _cli(attack: Attack, world: Path) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "prover.cli", "prove", "--env", "coq", "--timeout", "30", "--tactic-timeout", "5",
           "--statement", _fill(attack.statement, world)]
    for sentence in attack.prelude:
        cmd += ["--prelude", _fill(sentence, world)]
    if attack.tactic is not None:
        cmd += ["--tactics", _fill(attack.tactic, world)]
    cmd += ["--", "t"]
    # the package's own cache (the stdlib index) stays where it is: only Coq's processes are watched
    environ = {**os.environ, "HOME": str(world / "home"), "TMPDIR": str(world / "tmp"), "PYTHONPATH": str(ROOT),
               CACHE_VARIABLE: str(cache_root()), "HF_HUB_OFFLINE": "1", "DISABLE_REMOTE_CACHE": "1",
               "RAY_AUTH_MODE": "disabled"}
    environ.pop("XDG_CONFIG_HOME", None)
    return subprocess.run(cmd, cwd=world / "project", env=environ, capture_output=True, text=True, timeout=300,
                          check=False)


def _in_process(attack: Attack, world: Path, env: CoqEnvironment) -> None:
    """The exact refusal, through the environment's own checks (what the CLI runs)."""
    prelude = [_fill(s, world) for s in attack.prelude]
    statement = _fill(attack.statement, world)
    if attack.exit == 2:
        with pytest.raises(ValueError) as refused:
            adhoc_theorem(statement, prelude)
        assert attack.refused in str(refused.value) and "\n" not in str(refused.value), str(refused.value)
        return
    theorem = adhoc_theorem(statement, prelude)
    tactic = _fill(attack.tactic, world)
    with env.open(theorem) as (session, state):
        result = session.run_tac(state, tactic)
        if attack.rejected:
            verdict = env.verify(theorem, linear_proof([tactic]))
            assert not verdict.ok and attack.rejected in verdict.message, verdict
        elif attack.exit == 1:
            assert isinstance(result, TacticError) and result.kind == ErrorKind.REFUSED, result
            assert attack.refused in result.message and "\n" not in result.message, result.message
            verdict = env.verify(theorem, linear_proof([tactic]))
            assert not verdict.ok, verdict
            assert any(why in verdict.message for why in (
                "refused tactic", "calls an external prover", "no recorded reconstruction tactic")), verdict
        else:
            assert not isinstance(result, TacticError), result


@pytest.mark.parametrize("attack", [pytest.param(a, id=a.name) for a in ATTACKS])
def test_attack_is_refused_and_nothing_leaves_the_sandbox(attack, world, env):
    """Fails if an attack gets another outcome than its own (a prelude accepted, a tactic run, a
    proof reported), or if any file of the watched world (project root, home, temporary
    directory) or a ``/tmp`` entry with the attack's marker appears or changes -- e.g. with the
    former allow-list (``Export Set`` read as an import), the first-word ``calls_atp``, or a
    coqtop run in the caller's directory, which reads its ``coqhammer.opt``."""
    marker = "PWNED"
    before = {name: _snapshot(world / name) for name in ("project", "home", "tmp")}
    traces = _tmp_traces(marker)
    done = _cli(attack, world)
    output = done.stdout + done.stderr
    assert done.returncode == attack.exit, output
    if attack.exit == 2:
        assert attack.refused in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    elif attack.exit == 1:
        assert "status: proved" not in done.stdout and "Qed" not in done.stdout, output
    else:
        assert "status: proved" in done.stdout, output
    _in_process(attack, world, env)
    after = {name: _snapshot(world / name) for name in ("project", "home", "tmp")}
    assert after == before
    assert _tmp_traces(marker) == traces
    assert not [p for p in os.listdir(world / "tmp") if p.startswith(PREFIX)]


def test_coqtop_runs_in_its_own_sandbox_whatever_the_callers_directory(world, monkeypatch):
    """The second line of defence, under the policy: a coqtop sent CoqHammer's hook directly (no
    policy) from a project root whose ``coqhammer.opt`` says ``gen-atp`` -- which makes the hook
    run ``mkdir -p atp/...`` in its working directory -- writes nothing there, runs with its own
    working directory, HOME and TMPDIR, reads no ``coqrc`` from the caller's HOME, and leaves no
    sandbox behind. Fails if coqtop inherits the caller's directory or environment."""
    project = world / "project"
    monkeypatch.chdir(project)
    monkeypatch.setenv("HOME", str(world / "home"))
    before = _snapshot(world)
    coqtop = Coqtop(memory_limit_mb=2048)
    coqtop.start()
    try:
        cwd = Path(os.readlink(f"/proc/{coqtop.pid}/cwd"))
        environ = dict(item.split("=", 1) for item in
                       Path(f"/proc/{coqtop.pid}/environ").read_text().split("\0") if "=" in item)
        assert cwd.name.startswith(PREFIX + "coqtop-") and cwd != project
        assert environ["HOME"] == str(cwd) and environ["TMPDIR"] == str(cwd / "tmp")
        assert all(os.path.isabs(p) for p in environ["PATH"].split(os.pathsep))
        replies = [coqtop.send(s, 120) for s in (HAMMER, "Goal forall n : nat, n + 0 = n.", 'hammer_hook "p" "x".')]
        # the hook ran and looked for its options file in coqtop's own directory, not the project's
        assert "Processing theorem x" in replies[-1].output
        assert "coqhammer.opt: No such file or directory" in replies[-1].output, replies[-1].output
    finally:
        coqtop.kill()
    assert not cwd.exists()
    assert _snapshot(world) == before
