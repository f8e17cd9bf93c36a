"""The attack collection: untrusted preludes and tactics that try to reach a shell or the file system.

:data:`ATTACKS` is the whole collection (append new classes of attack to it). Each
:class:`Attack` runs twice: through the real CLI (``dojo-prover prove``) in a watched world -- its working
directory a project root holding a ``coqhammer.opt`` that turns CoqHammer's hook into shell
commands, ``HOME`` and ``TMPDIR`` watched directories of their own -- and through the real
environment in this process, where the exact refusal is asserted. Around each attack every file
of the watched world is snapshot (names, modes, modification times, contents' hashes), and the
real ``/tmp`` is searched for the attack's marker: nothing may be created or changed outside the
Coq processes' own sandboxes. Payloads write to absolute paths in the watched world, so a payload
that ran would be seen.

The collection's :class:`ProjectAttack` entries are hostile *projects* instead: files that name
an axiom like the stdlib's or like each other, a ``_CoqProject`` that binds ``Coq.*``, files that
lead out of the root, a lemma whose meaning an edit would change, a tampered run directory. Each
runs once through the real CLI (``fill-admitted``, with or without ``--write``, or ``eval`` on
``coq-project:``) in a fresh watched world: the project root, an ``other`` directory outside it
(the target of its links), ``HOME`` and ``TMPDIR``. Nothing outside the root and the run
directory (and its patch) may appear or change, and inside the root only the build's products
beside the sources may appear.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from coq_projects import as_read, make_project, tree_state
from prover.coq.context import adhoc_theorem
from prover.coq.coqtop import Coqtop
from prover.coq.env import CoqEnvironment
from prover.coq.sandbox import PREFIX
from search_tree import ErrorKind, TacticError, linear_proof
from search_tree.cache import CACHE_VARIABLE, cache_root
from test_adversarial_coq_fill import ADMITTED_A, PROJECT_B, SECTIONS
from test_adversarial_coq_provenance import FAKE_CLASSIC, HELPERS

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


PROMPT_ATTACKS: list[Attack] = [
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


@dataclass(frozen=True)
class ProjectAttack:
    """One hostile project, run by ``command`` (``fill``, ``fill --write`` or ``eval``) with the
    search trying only ``tactics``, and its exact outcome.

    ``files`` are written into the project root, which its ``_CoqProject`` (``listing``, default:
    ``flags`` and the files) describes; ``outside`` into the ``other`` directory beside the root;
    ``links`` are symlinks (path in the root, target relative to the world). ``tampered``: the
    run directory already holds an honest proof of ``lemma``, whose recorded script is replaced
    by this text before the run. ``exit`` 2: ``refused`` is the fragment of the one-line error;
    ``exit`` 0: the table row of ``lemma`` says it was not proved (or kept), with ``refused``.
    """

    name: str
    command: str
    files: dict[str, str]
    tactics: tuple[str, ...]
    exit: int
    refused: str
    flags: str = "-Q . P"
    listing: str | None = None
    outside: dict[str, str] = field(default_factory=dict)
    links: tuple[tuple[str, str], ...] = ()
    lemma: str = "target"
    tampered: str | None = None


ZERO_IS_ONE = "Lemma target : 0 = 1.\nAdmitted.\n"
FAKE_CLASSICAL_PROP = {"Classical_Prop.v": FAKE_CLASSIC,
                       "C.v": "Require Import Coq.Logic.Classical_Prop.\n" + ZERO_IS_ONE}
FAKE_SSRUNDER = {"ssrunder.v": FAKE_CLASSIC, "C.v": "Require Import Coq.ssr.ssrunder.\n" + ZERO_IS_ONE}
BINDS_COQ = "-Q {root} %s binds the logical name 'Coq' of the standard library"
ADD0_PROOF = ("intros n.", "now rewrite <- plus_n_O.")
LINKED_A = "theories/A.v resolves to {other}/A.v, outside the project root {root}"
PARENT_ENTRY = "-Q theories P\n-Q ../other O\ntheories/A.v\n../other/X.v\n"
PARENT_X = "../other/X.v resolves to {other}/X.v, outside the project root {root}"

PROJECT_ATTACKS: list[ProjectAttack] = [
    # -- item 2: a name printed by Print Assumptions, shared by two admitted lemmas or with the stdlib's
    ProjectAttack("two-admitted-helpers", "fill --write",
                  {**HELPERS, "C.v": "Require Import P.B P.A.\n" + ZERO_IS_ONE}, ("exact helper.",), 0,
                  "not proved (assumes helper (it may name any of P.A.helper, P.B.helper))"),
    ProjectAttack("project-lemma-named-classic", "fill",
                  {"A.v": "Lemma classic : 0 = 1.\nAdmitted.\n",
                   "C.v": "Require Import Coq.Logic.Classical.\nRequire Import P.A.\n" + ZERO_IS_ONE},
                  ("exact classic.",), 0,
                  "not proved (assumes classic (it may name any of Coq.Logic.Classical_Prop.classic, P.A.classic))"),
    # -- item 3: a project that binds the stdlib's logical names -----------------------------------
    ProjectAttack("binds-coq-logic", "fill --write", FAKE_CLASSICAL_PROP, ("destruct classic.",), 2,
                  BINDS_COQ % "Coq.Logic", flags="-Q . Coq.Logic"),
    ProjectAttack("binds-coq-logic-eval", "eval", FAKE_CLASSICAL_PROP, ("destruct classic.",), 2,
                  BINDS_COQ % "Coq.Logic", flags="-Q . Coq.Logic"),
    ProjectAttack("binds-ssrunder-eval", "eval", FAKE_SSRUNDER, ("destruct classic.",), 2,
                  BINDS_COQ % "Coq.ssr.ssrunder", flags="-Q . Coq.ssr.ssrunder"),
    # -- item 7: files that lead out of the root ----------------------------------------------------
    ProjectAttack("file-links-outside", "fill", {}, ADD0_PROOF, 2, LINKED_A, listing="-Q theories P\ntheories/A.v\n",
                  outside={"A.v": ADMITTED_A}, links=(("theories/A.v", "other/A.v"),), lemma="add0"),
    ProjectAttack("file-links-outside-write", "fill --write", {}, ADD0_PROOF, 2, LINKED_A,
                  listing="-Q theories P\ntheories/A.v\n", outside={"A.v": ADMITTED_A},
                  links=(("theories/A.v", "other/A.v"),), lemma="add0"),
    ProjectAttack("directory-links-outside", "fill --write", {}, ADD0_PROOF, 2, LINKED_A,
                  listing="-Q theories P\ntheories/A.v\n", outside={"A.v": ADMITTED_A}, links=(("theories", "other"),),
                  lemma="add0"),
    ProjectAttack("parent-directory-entry", "fill", {"theories/A.v": ADMITTED_A}, ADD0_PROOF, 2, PARENT_X,
                  listing=PARENT_ENTRY, outside={"X.v": ADMITTED_A}, lemma="add0"),
    ProjectAttack("parent-directory-entry-eval", "eval", {"theories/A.v": ADMITTED_A}, ADD0_PROOF, 2, PARENT_X,
                  listing=PARENT_ENTRY, outside={"X.v": ADMITTED_A}, lemma="add0"),
    # -- item 8: an edit that would change what a lemma means ---------------------------------------
    ProjectAttack("proof-using-section-hypothesis", "fill --write", {"theories/S2.v": SECTIONS["theories/S2.v"]},
                  ("exact H.",), 0, "The following section variable is used but not declared: H", flags="-Q theories P",
                  lemma="needs_H"),
    ProjectAttack("proof-using-section-hypothesis-patch", "fill", {"theories/S2.v": SECTIONS["theories/S2.v"]},
                  ("exact H.",), 0, "The following section variable is used but not declared: H", flags="-Q theories P",
                  lemma="needs_H"),
    # -- item 9: a run directory edited between two runs --------------------------------------------
    ProjectAttack("tampered-results-line", "fill --write", PROJECT_B, ("intros n.", "lia."), 0,
                  "the recorded proof does not check again: refused tactic 'Axiom cheat : False.'",
                  flags="-Q theories P", lemma="add0", tampered="Axiom cheat : False.\ndestruct cheat."),
]

ATTACKS: list[Attack | ProjectAttack] = [*PROMPT_ATTACKS, *PROJECT_ATTACKS]


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


def _tmp_traces(marker: str) -> list[str]:
    return sorted(p for p in os.listdir("/tmp") if marker in p)


def _fill(text: str, world: Path) -> str:
    return text.replace("{world}", str(world / "project"))


def _environ(world: Path, cache: Path | None = None) -> dict[str, str]:
    """The CLI's environment: HOME and TMPDIR in the watched world; the package's own cache
    (``cache``, by default the shared one with the stdlib index) is not watched: only Coq's
    processes and the files they build or edit are."""
    environ = {**os.environ, "HOME": str(world / "home"), "TMPDIR": str(world / "tmp"), "PYTHONPATH": str(ROOT),
               CACHE_VARIABLE: str(cache or cache_root()), "HF_HUB_OFFLINE": "1", "DISABLE_REMOTE_CACHE": "1",
               "RAY_AUTH_MODE": "disabled"}
    environ.pop("XDG_CONFIG_HOME", None)
    return environ


def _cli(attack: Attack, world: Path) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "prover.cli", "prove", "--env", "coq", "--timeout", "30", "--tactic-timeout", "5",
           "--statement", _fill(attack.statement, world)]
    for sentence in attack.prelude:
        cmd += ["--prelude", _fill(sentence, world)]
    if attack.tactic is not None:
        cmd += ["--tactics", _fill(attack.tactic, world)]
    cmd += ["--", "t"]
    return subprocess.run(cmd, cwd=world / "project", env=_environ(world), capture_output=True, text=True, timeout=300,
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
def test_attack_is_refused_and_nothing_leaves_the_sandbox(attack, request):
    """Fails if an attack gets another outcome than its own (a prelude accepted, a tactic run, a
    proof reported, a project built or edited), or if a file of its watched world appears or
    changes where it may not."""
    if isinstance(attack, ProjectAttack):
        _project_attack(attack, request.getfixturevalue("tmp_path"))
    else:
        _prompt_attack(attack, request.getfixturevalue("world"), request.getfixturevalue("env"))


def _prompt_attack(attack: Attack, world: Path, env: CoqEnvironment) -> None:
    """Nothing of the world (project root, home, temporary directory) nor a ``/tmp`` entry with
    the attack's marker may appear or change -- as with the former allow-list (``Export Set``
    read as an import), the first-word ``calls_atp``, or a coqtop run in the caller's directory,
    which reads its ``coqhammer.opt``."""
    marker = "PWNED"
    before = {name: tree_state(world / name) for name in ("project", "home", "tmp")}
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
    after = {name: tree_state(world / name) for name in ("project", "home", "tmp")}
    assert after == before
    assert _tmp_traces(marker) == traces
    assert not [p for p in os.listdir(world / "tmp") if p.startswith(PREFIX)]


def _source_of(product: str) -> str | None:
    """The source a build product (``X.vo``, ``X.glob``, ``X.vos``, ``X.vok``, ``.X.aux``) is built
    from, beside it; None for any other file."""
    path = Path(product)
    if path.name.startswith(".") and path.suffix == ".aux":
        return str(path.with_name(path.name[1:-len(".aux")] + ".v"))
    return str(path.with_suffix(".v")) if path.suffix in (".vo", ".glob", ".vos", ".vok") else None


def _project_world(attack: ProjectAttack, base: Path) -> Path:
    """The attack's world under ``base``: ``project`` (the root), ``other`` (outside it), ``home``
    and ``tmp``; with ``tampered``, ``run`` holds an honest run whose recorded proof is replaced."""
    for d in ("other", "home", "tmp"):
        (base / d).mkdir()
    root = make_project(base / "project", attack.files, flags=attack.flags)
    if attack.listing is not None:
        (root / "_CoqProject").write_text(attack.listing)
    for name, text in attack.outside.items():
        (base / "other" / name).write_text(text)
    for link, target in attack.links:
        (root / link).parent.mkdir(parents=True, exist_ok=True)
        (root / link).symlink_to(base / target, target_is_directory=(base / target).is_dir())
    if attack.tampered is not None:
        done = _project_cli(attack, base, write=False)
        assert done.returncode == 0, done.stdout + done.stderr
        results = base / "run" / "results.jsonl"
        records = [json.loads(line) for line in results.read_text().splitlines()]
        assert [r["result"]["status"] for r in records] == ["proved"]
        records[0]["result"]["script"] = attack.tampered
        results.write_text("".join(json.dumps(r) + "\n" for r in records))
        (base / "run.diff").unlink()
    return root


def _project_cli(attack: ProjectAttack, base: Path, write: bool) -> subprocess.CompletedProcess:
    root, out = base / "project", base / "run"
    search = ["--timeout", "20", "--no-progress", "--generator", "fixed",
              "--generator-opt", f"tactics={json.dumps(list(attack.tactics))}"]
    if attack.command == "eval":
        args = ["eval", "--benchmark", f"coq-project:{root}", *search, "--out", str(out)]
    else:
        args = ["fill-admitted", str(root), "--out", str(out), "--theorems", attack.lemma, *search]
        args += ["--write"] if write else []
    return subprocess.run([sys.executable, "-m", "prover.cli", *args], cwd=base / "home",
                          env=_environ(base, base / "cache"), capture_output=True, text=True, timeout=300, check=False)


def _project_attack(attack: ProjectAttack, base: Path) -> None:
    """Outside the root and the run directory (with its patch) nothing may appear or change; in
    the root, only a build product beside its source may appear -- as when a symlinked file was
    rewritten or built through, a ``../`` entry built beside it, or a source edited. The file
    system is checked before the outcome: a write outside is the worse failure."""
    root = _project_world(attack, base)
    before = {name: tree_state(base / name) for name in ("project", "other", "home", "tmp")}
    done = _project_cli(attack, base, write=attack.command == "fill --write")
    output = done.stdout + done.stderr
    after = {name: tree_state(base / name) for name in ("project", "other", "home", "tmp")}
    for name in ("other", "home", "tmp"):
        assert after[name] == before[name], f"{name} changed: {output}"
    assert set(os.listdir(base)) <= {"project", "other", "home", "tmp", "cache", "run", "run.diff"}
    # a directory's mtime moves with the products built into it: directories compare by kind and mode
    kept = {path: _timeless(what) for path, what in after["project"].items() if path in before["project"]}
    assert kept == {path: _timeless(what) for path, what in before["project"].items()}, output
    new = sorted(set(after["project"]) - set(before["project"]))
    assert [path for path in new if _source_of(path) not in before["project"]] == [], "appeared in the project root"

    assert done.returncode == attack.exit, output
    refused = attack.refused.format(root=root, other=base / "other")
    if attack.exit == 2:
        assert refused in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    else:
        rows = [line for line in as_read(done.stdout).splitlines() if line.startswith(f"| {attack.lemma} |")]
        assert len(rows) == 1 and " | no | " in rows[0] and refused in rows[0], output
        assert (base / "run.diff").read_text() == ""


def _timeless(what: tuple) -> tuple:
    return what[:2] if what[0] == "dir" else what


def test_coqtop_runs_in_its_own_sandbox_whatever_the_callers_directory(world, monkeypatch):
    """The second line of defence, under the policy: a coqtop sent CoqHammer's hook directly (no
    policy) from a project root whose ``coqhammer.opt`` says ``gen-atp`` -- which makes the hook
    run ``mkdir -p atp/...`` in its working directory -- writes nothing there, runs with its own
    working directory, HOME and TMPDIR, reads no ``coqrc`` from the caller's HOME, and leaves no
    sandbox behind. Fails if coqtop inherits the caller's directory or environment."""
    project = world / "project"
    monkeypatch.chdir(project)
    monkeypatch.setenv("HOME", str(world / "home"))
    before = tree_state(world)
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
    assert tree_state(world) == before
