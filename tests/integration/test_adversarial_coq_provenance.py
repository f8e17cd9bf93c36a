"""Adversarial tests of what a checked Coq proof may assume, and where its libraries come from.

Every test runs the real coqc and coqchk (the project tests build real projects). The trusted
axioms are a reviewed list of kernel names (prover.coq.trusted_axioms); a name means what it says
only when no one else can give a library that name (prover.coq.provenance), and a name that
``Print Assumptions`` prints is trusted only when it resolves to exactly one trusted axiom
(prover.coq.assumptions). Each test names, in its docstring, the breakage it catches.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest

import prover.coq.verify as verify
from prover.coq import checked_vo
import forged_vo
from coq_projects import make_project
from prover.coq.assumptions import parse_summary
from prover.coq.context import ADHOC_MODULE, CoqContext, adhoc_theorem
from prover.coq.env import CoqEnvironment
from prover.coq.project import load_project
from prover.coq.provenance import ProvenanceError
from prover.coq.trusted_axioms import TRUSTED_AXIOMS
from search_tree import ProofGivenUp, linear_proof

pytestmark = [pytest.mark.coq]

CLASSIC = "Coq.Logic.Classical_Prop.classic"
FUNEXT = "Coq.Logic.FunctionalExtensionality.functional_extensionality_dep"


@pytest.fixture(scope="module")
def env():
    with CoqEnvironment(tactic_timeout=5, memory_limit_mb=2048) as env:
        yield env


def check(env, statement, prelude, tactics):
    return env.verify(adhoc_theorem(statement, prelude), linear_proof(tactics))


def refused(verdict, message):
    assert not verdict.ok, verdict
    assert verdict.message.startswith(message), verdict.message


# -- the list: every stdlib axiom but the admit axiom and the extraction realizers ------------------

def test_the_list_is_the_stdlib_axioms_less_the_untrusted(tmp_path):
    """Fails if a listed name is not an axiom of the installed stdlib (a typo or a renamed axiom
    would never match), or if a stdlib axiom is neither listed nor deliberately left out."""
    theories = Path(subprocess.run(["coqc", "-where"], capture_output=True, text=True, check=True).stdout.strip())
    modules = sorted(".".join(p.relative_to(theories / "theories").with_suffix("").parts)
                     for p in (theories / "theories").rglob("*.vo"))
    (tmp_path / "All.v").write_text("".join(f"Require Coq.{m}.\n" for m in modules))
    subprocess.run(["coqc", "-Q", ".", "T", "All.v"], cwd=tmp_path, check=True, capture_output=True)
    done = subprocess.run(["coqchk", "-o", "-norec", "T.All", "-Q", ".", "T"], cwd=tmp_path, capture_output=True,
                          text=True, check=True)
    axioms, unsafe = parse_summary(done.stdout + done.stderr)
    assert not unsafe
    left_out = sorted(set(axioms) - set(TRUSTED_AXIOMS))
    assert set(TRUSTED_AXIOMS) <= set(axioms)
    assert left_out == ["Coq.Compat.AdmitAxiom.proof_admitted"] + [
        f"Coq.extraction.ExtrOcamlIntConv.{n}" for n in
        "int int_natlike_rec int_opp int_poslike_rec int_succ int_twice int_zero int_zlike_case".split()]


# -- item 1: the admit axiom and other declared-but-untrusted stdlib axioms -------------------------

def test_admit_axiom_one_line_false_proof_is_not_proved(env):
    """Fails if "every Axiom of the stdlib's sources" is trusted again: proof_admitted : False."""
    verdict = check(env, "Lemma bad : 0 = 1.", ["Require Import Coq.Compat.AdmitAxiom."], ["destruct proof_admitted."])
    refused(verdict, "not proved (assumes Coq.Compat.AdmitAxiom.proof_admitted): only the axioms listed in "
                     "prover/coq/trusted_axioms.py may be assumed")
    assert verdict.axioms == ("Coq.Compat.AdmitAxiom.proof_admitted",)


def test_admit_axiom_loaded_but_unused_still_refused_in_a_prelude(env):
    """Fails if an ad-hoc context's untrusted library axioms count only when used (the summary,
    not Print Assumptions, decides for a prelude: fail closed)."""
    verdict = check(env, "Lemma t : True.", ["Require Coq.Compat.AdmitAxiom."], ["exact I."])
    refused(verdict, "not proved (assumes Coq.Compat.AdmitAxiom.proof_admitted)")


def test_extraction_realizer_parameter_is_not_trusted(env):
    """Fails if a stdlib Parameter outside the list (ExtrOcamlIntConv's int) is trusted."""
    verdict = check(env, "Lemma t : True.", ["Require Import Coq.extraction.ExtrOcamlIntConv."], ["exact I."])
    refused(verdict, "not proved (assumes Coq.extraction.ExtrOcamlIntConv.")
    assert "Coq.extraction.ExtrOcamlIntConv.int_zero" in verdict.message


# -- honest proofs that use the listed axioms verify, printed with them ------------------------------

def test_classic_proof_verifies_and_names_classic(env):
    verdict = check(env, "Lemma em : forall P : Prop, P \\/ ~ P.", ["Require Import Classical."], ["exact classic."])
    assert verdict.ok and verdict.axioms == (CLASSIC,), verdict
    assert verdict.message.endswith("it uses classic (Coq.Logic.Classical_Prop)")


def test_functional_extensionality_proof_verifies_and_names_it(env):
    verdict = check(env, "Lemma fe : forall f g : nat -> nat, (forall x, f x = g x) -> f = g.",
                    ["Require Import FunctionalExtensionality."], ["intros f g H.", "apply functional_extensionality.",
                                                                   "exact H."])
    assert verdict.ok and verdict.axioms == (FUNEXT,), verdict
    assert verdict.message.endswith("it uses functional_extensionality_dep (Coq.Logic.FunctionalExtensionality)")


def test_reals_proof_verifies_with_the_reals_axioms(env):
    """Fails if the real numbers' axioms or their sealed module fields are not trusted."""
    verdict = check(env, "Lemma r : forall x y : R, (x + y = y + x)%R.", ["Require Import Reals."],
                    ["intros.", "apply Rplus_comm."])
    assert verdict.ok and set(verdict.axioms) == {"Coq.Reals.ClassicalDedekindReals.sig_forall_dec", FUNEXT}, verdict


def test_primitive_float_proof_verifies(env):
    """Fails if the kernel's primitive floats (declared with Primitive) are taken for axioms."""
    verdict = check(env, "Lemma f : (1 + 1 = 2)%float.", ["Require Import PrimFloat."], ["reflexivity."])
    assert verdict.ok and verdict.axioms == ("Coq.Floats.PrimFloat.float",), verdict


def test_ssreflect_sealed_under_module_is_no_assumption(env):
    """Fails if the sealed fields of ssrunder's Under_rel (coqchk lists them as axioms; they are
    defined in the same file) are refused: every ssreflect proof would be "not proved"."""
    verdict = check(env, "Lemma t : forall n : nat, n = n.", ["From Coq Require Import ssreflect."], ["by move=> n."])
    assert verdict.ok and verdict.axioms == () and verdict.message.endswith("Closed under the global context"), verdict


def test_uint63_lxorA_library_proof_verifies(env):
    """Fails if the primitive integers and their specifications are refused (item: an honest
    proof of Uint63.lxorA was "not proved (assumes ...PrimInt63.compares, ...)")."""
    theorem = env.theorem("Coq.Numbers.Cyclic.Int63.Uint63.lxorA")
    verdict = env.verify(theorem, linear_proof(["apply bit_ext; intros n.", "rewrite !lxor_spec, xorb_assoc; auto."]))
    assert verdict.ok, verdict
    assert "Coq.Numbers.Cyclic.Int63.Uint63.lxor_spec" in verdict.axioms
    assert "Coq.Numbers.Cyclic.Int63.PrimInt63.lxor" in verdict.axioms


def test_stdlib_theorem_beside_the_axiom_its_file_declares_verifies(env):
    """Fails if a stdlib file's own trusted axiom (classic, in the checked library
    Coq.Logic.Classical_Prop compiled from the stdlib's text) is refused."""
    theorem = env.theorem("Coq.Logic.Classical_Prop.NNPP")
    verdict = env.verify(theorem, linear_proof(["unfold not; intros; elim (classic p); auto.", "intro NP; elim (H NP)."]))
    assert verdict.ok and verdict.axioms == (CLASSIC,), verdict


def test_prelude_module_named_like_the_stdlib_one_is_not_trusted(env):
    """Fails if a prelude's ``Classical_Prop.classic`` passes for the stdlib's: its kernel name is
    DojoScratch.Classical_Prop.classic, and the printed name is shared with the real one."""
    verdict = check(env, "Lemma bad : 0 = 1.", ["Require Import Classical.", "Module Classical_Prop.",
                                                "Axiom classic : False.", "End Classical_Prop."],
                    ["destruct Classical_Prop.classic."])
    refused(verdict, "not proved (assumes ")
    assert "DojoScratch.Classical_Prop.classic" in verdict.message, verdict.message


def test_stdlib_functor_with_imported_parameters_verifies(env):
    """Fails if the fields of a stdlib functor's parameter, printed unqualified because the
    functor imports it (``Import M.``: ``t``, ``In``), are refused as unresolved names."""
    theorem = env.theorem("Coq.FSets.FSetBridge.NodepOfDep.elements_3")
    verdict = env.verify(theorem, linear_proof(["intros; unfold elements; case (M.elements s); firstorder."]))
    assert verdict.ok and {"t", "In", "M.elements"} <= set(verdict.axioms), verdict
    assert verdict.message.endswith("it uses 6 parameter(s) of the modules open at the theorem"), verdict.message


# -- item 2: names resolved to kernel names, ambiguity refused --------------------------------------

@pytest.fixture
def project_env(tmp_path, private_cache):
    """An environment on a fresh project written from ``files``, and its ``target`` (admitted or proved)."""
    opened = []

    def open_project(files: dict[str, str]):
        root = make_project(tmp_path / "proj", files, flags="-Q . P")
        env = CoqEnvironment(tactic_timeout=5, memory_limit_mb=2048, project=str(root))
        opened.append(env)
        return env, next(t for t in (*env.index.admitted(), *env.index.theorems()) if t.full_name == "target")

    yield open_project
    for env in opened:
        env.close()


HELPERS = {"A.v": "Lemma helper : 0 = 1.\nAdmitted.\n", "B.v": "Lemma helper : True.\nAdmitted.\n"}


def test_two_admitted_lemmas_printed_alike_are_refused(project_env):
    """Fails if an unqualified printed name is left unresolved and so trusted (`exact helper.`
    was written into the user's file)."""
    env, target = project_env({**HELPERS, "C.v": "Require Import P.B P.A.\nLemma target : 0 = 1.\nAdmitted.\n"})
    verdict = env.verify(target, linear_proof(["exact helper."]))
    refused(verdict, "not proved (assumes ")
    assert "P.A.helper" in verdict.message and "P.B.helper" in verdict.message, verdict.message


def test_one_admitted_helper_is_named(project_env):
    env, target = project_env({"A.v": HELPERS["A.v"], "C.v": "Require Import P.A.\nLemma target : 0 = 1.\nAdmitted.\n"})
    refused(env.verify(target, linear_proof(["exact helper."])), "not proved (assumes P.A.helper)")


def test_project_lemma_named_classic_is_not_the_stdlib_axiom(project_env):
    """Fails if an admitted project lemma named ``classic`` passes for Coq.Logic.Classical_Prop.classic."""
    env, target = project_env({
        "A.v": "Lemma classic : 0 = 1.\nAdmitted.\n",
        "C.v": "Require Import Coq.Logic.Classical.\nRequire Import P.A.\nLemma target : 0 = 1.\nAdmitted.\n"})
    verdict = env.verify(target, linear_proof(["exact classic."]))
    refused(verdict, "not proved (assumes classic (it may name any of Coq.Logic.Classical_Prop.classic, P.A.classic))")


def test_stdlib_classic_beside_a_project_classic_is_refused_as_ambiguous(project_env):
    """Fails if a trusted match is accepted while an untrusted axiom carries the same label (an
    alias could make one print as the other): fail closed."""
    env, target = project_env({
        "A.v": "Lemma classic : 0 = 1.\nAdmitted.\n",
        "C.v": "Require Import P.A.\nRequire Import Coq.Logic.Classical.\n"
               "Lemma target : forall P : Prop, P \\/ ~ P.\nAdmitted.\n"})
    verdict = env.verify(target, linear_proof(["exact Coq.Logic.Classical_Prop.classic."]))
    refused(verdict, "not proved (assumes ")
    assert "Coq.Logic.Classical_Prop.classic or P.A.classic" in verdict.message or \
        "any of Coq.Logic.Classical_Prop.classic, P.A.classic" in verdict.message, verdict.message


def test_unused_admitted_lemma_of_another_file_does_not_block_an_honest_classical_proof(project_env):
    """Fails if a project's unrelated admitted lemma refuses every proof downstream of it, or if
    the classical proof is not printed with classic."""
    env, target = project_env({
        "A.v": "Lemma other : 0 = 1.\nAdmitted.\n",
        "C.v": "Require Import P.A Classical.\nLemma target : forall P : Prop, ~ ~ P -> P.\nAdmitted.\n"})
    verdict = env.verify(target, linear_proof(["intros P H.", "destruct (classic P) as [p|n].", "exact p.",
                                               "contradiction."]))
    assert verdict.ok and verdict.axioms == (CLASSIC,), verdict


UNSAFE_FILES = {
    "guard": "Unset Guard Checking.\nFixpoint f (n : nat) : False := f n.\nSet Guard Checking.\n"
             "Definition bad : False := f 0.\n",
    "positivity": "Unset Positivity Checking.\nInductive B := C : (B -> False) -> B.\nSet Positivity Checking.\n"
                  "Definition g (b : B) : False := match b with C h => h b end.\nDefinition bad : False := g (C g).\n",
    "attribute": "#[bypass_check(guard)] Fixpoint f (n : nat) : False := f n.\nDefinition bad : False := f 0.\n",
}


@pytest.mark.parametrize("kind", sorted(UNSAFE_FILES))
def test_an_unsafe_object_of_another_project_file_is_refused_where_it_is_used(project_env, kind):
    """Another file of the project proves ``False`` with a fixpoint or an inductive the kernel did
    not check (``coqchk -norec`` does not re-check it). Fails if a proof through it is reported."""
    env, target = project_env({"A.v": UNSAFE_FILES[kind], "C.v": "Require Import P.A.\nLemma target : 0 = 1.\nAdmitted.\n"})
    verdict = env.verify(target, linear_proof(["destruct bad."]))
    assert not verdict.ok and verdict.message.startswith("the proof relies on unsafe features:"), verdict
    assert "P.A." in verdict.message, verdict.message


def _rechecks(monkeypatch) -> list[list[str]]:
    """The libraries the final checks from now on re-check with coqchk (the real check runs: the
    spy only writes their names down)."""
    runs: list[list[str]] = []
    real = verify.check

    def spy(libraries, *args, **kwargs):
        runs.append(sorted(libraries))
        return real(libraries, *args, **kwargs)

    monkeypatch.setattr(verify, "check", spy)
    return runs


def test_a_project_vo_no_kernel_is_on_record_for_is_rechecked_then_trusted(project_env, tmp_path, monkeypatch):
    """``coqchk -norec`` takes the project's other ``.vo`` files as they are. The build records
    what it compiles; a ``.vo`` of unknown origin (its record gone, as for one the project ships)
    is re-checked by coqchk before a proof through it counts, and recorded. Fails if the build
    does not record, if such a file is loaded unchecked, or if a recorded one is checked again."""
    env, target = project_env({"A.v": "Lemma helper : 1 = 1.\nProof. reflexivity. Qed.\n",
                               "C.v": "Require Import P.A.\nLemma target : 1 = 1.\nAdmitted.\n"})
    vo = tmp_path / "proj" / "A.vo"
    assert checked_vo.unchecked({"P.A": vo}) == {}, "the build did not record the .vo it compiled"
    (checked_vo.ledger() / checked_vo.digest(vo)).unlink()
    rechecks = _rechecks(monkeypatch)
    assert env.verify(target, linear_proof(["exact helper."])).ok
    assert rechecks == [["P.A"]], rechecks
    assert checked_vo.unchecked({"P.A": vo}) == {}
    assert env.verify(target, linear_proof(["exact helper."])).ok
    assert len(rechecks) == 1, rechecks


FORGED_PROJECT = {"A.v": forged_vo.HONEST, "C.v": "Require Import P.A.\nLemma target : 0 = 1.\nAdmitted.\n"}


def test_a_crafted_vo_the_project_ships_is_compiled_again_from_its_source(tmp_path, private_cache):
    """A project ships ``A.vo`` newer than ``A.v``, crafted so that ``l`` states ``False`` while
    ``A.v`` proves ``True``: coqc loads it unchecked and ``coqchk -norec`` trusts it, so ``destruct l``
    proved ``0 = 1`` with no axiom. Fails if the build keeps a ``.vo`` it did not compile."""
    root = make_project(tmp_path / "proj", FORGED_PROJECT, flags="-Q . P")
    forged = forged_vo.forge(tmp_path / "forge")
    (root / "A.vo").write_bytes(forged)
    with CoqEnvironment(tactic_timeout=5, memory_limit_mb=2048, project=str(root)) as env:
        target = next(t for t in env.index.admitted() if t.full_name == "target")
        assert (root / "A.vo").read_bytes() != forged
        refused(env.verify(target, linear_proof(["destruct l."])), "")


def test_a_crafted_vo_put_after_the_build_is_rechecked_and_refused(project_env, tmp_path):
    """The same crafted ``A.vo``, put in place after the build (the check compiles the proof's file
    against it): fails unless coqchk re-checks it, rejects it, and the proof is not reported."""
    env, target = project_env(FORGED_PROJECT)
    (tmp_path / "proj" / "A.vo").write_bytes(forged_vo.forge(tmp_path / "forge"))
    refused(env.verify(target, linear_proof(["destruct l."])), "coqchk rejected the project's compiled P.A")


def _runs_at_compile_time(command: str) -> str:
    """A project file that has the shell run ``command`` while coqc compiles it: CoqHammer's
    ``predict`` runs the program its ``PredictPath`` names, through the shell."""
    quoted = command.replace('"', '""')  # Coq's string syntax
    return (f'From Hammer Require Import Hammer.\nSet Hammer PredictPath "{quoted}".\n'
            "Goal True.\npredict 1.\nAbort.\n")


def test_a_program_a_project_file_runs_while_it_compiles_writes_nothing_outside_its_sandbox(tmp_path, private_cache):
    """Compiling a project's file runs code of the file's choosing. ``Z.v``'s shell command wrote
    a record vouching for the crafted ``A.vo`` (and a file beside the project); with that file in
    place, ``destruct l.`` proved ``0 = 1`` with no axiom, as the final check trusted the record.
    Fails unless neither write lands and the proof is refused."""
    forged = forged_vo.forge(tmp_path / "forge")
    record = checked_vo.ledger() / hashlib.sha256(forged).hexdigest()
    outside = tmp_path / "outside"
    attack = _runs_at_compile_time(f"mkdir -p {record.parent}; touch {record} {outside}; true")
    root = make_project(tmp_path / "proj", {**FORGED_PROJECT, "Z.v": attack}, flags="-Q . P")
    with CoqEnvironment(tactic_timeout=5, memory_limit_mb=2048, project=str(root)) as env:
        target = next(t for t in env.index.admitted() if t.full_name == "target")
        assert not outside.exists() and not record.exists(), "a project file's program wrote outside its sandbox"
        (root / "A.vo").write_bytes(forged)
        refused(env.verify(target, linear_proof(["destruct l."])), "coqchk rejected the project's compiled P.A")


def test_a_program_run_from_a_project_libraries_hint_writes_nothing_outside_its_sandbox(project_env, tmp_path):
    """A project library may export the option and a hint that calls ``predict``: a search's
    ``auto`` in a theorem that imports it runs the program inside the search's coqtop, and the
    final check's coqc runs it again. Fails if that program writes outside its sandbox."""
    outside = tmp_path / "outside"
    library = (f'From Hammer Require Import Hammer.\n#[export] Set Hammer PredictPath "touch {outside}; true".\n'
               "#[export] Hint Extern 1 => predict 1 : core.\n")
    env, target = project_env({"A.v": library,
                               "C.v": "Require Import P.A.\nLemma target : 0 = 1.\nAdmitted.\n"})
    with env.open(target) as (session, state):
        session.run_tac(state, "auto.")
    env.verify(target, linear_proof(["auto."]))
    assert not outside.exists(), "a program a project's hint ran wrote outside its sandbox"


def test_a_project_files_program_cannot_make_the_assumptions_report_vanish(project_env):
    """The final check compiles the theorem's file up to it, and so runs that text's code. Its
    shell command read the nonce of the checked file and linked the report's name to
    ``/dev/null``: ``Print Assumptions`` wrote nothing, no axiom was read, and ``exact helper.``
    (admitted ``0 = 1``) was proved. Fails unless the proof is refused naming ``helper``."""
    vanish = ("sh -c 'for f in *.v; do n=$(grep -o dojo_assumptions_[0-9a-f][0-9a-f]* $f | head -n1); "
              "case $n in dojo*) ln -sf /dev/null $n.out;; esac; done; true' sh")
    prefix = _runs_at_compile_time(vanish).replace("predict 1.", "try predict 1.")
    env, target = project_env({"B.v": "Lemma helper : 0 = 1.\nAdmitted.\n",
                               "C.v": f"Require Import P.B.\n{prefix}Lemma target : 0 = 1.\nAdmitted.\n"})
    refused(env.verify(target, linear_proof(["exact helper."])), "not proved (assumes P.B.helper")


def test_a_project_files_program_reaches_no_server_through_a_unix_socket(tmp_path, private_cache):
    """Landlock does not guard a UNIX socket that has a path, and a server behind one (tmux's,
    a user's D-Bus) runs commands outside the confinement: a build's ``predict`` had one write
    outside. Fails if a program the project's file runs while it compiles connects to one."""
    import socket
    import sys

    path = tmp_path / "server.sock"
    connect = f"import socket; socket.socket(socket.AF_UNIX).connect('{path}')"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        server.listen(1)
        server.settimeout(0.5)
        root = make_project(tmp_path / "proj", {"A.v": _runs_at_compile_time(f'{sys.executable} -c "{connect}"; true')},
                            flags="-Q . P")
        from prover.coq.build import build_project

        build_project(load_project(str(root)), progress=False)
        with pytest.raises(TimeoutError):
            server.accept()


#: a Coq-Elpi program in the theorem's file, run by the final check's coqc only (its ``HOME`` is
#: the check's directory): it reads the nonce from the checked file, writes a report that says
#: "Closed", puts the project's ``blob.dat`` (a harmless library compiled as ``P.T``) where the
#: ``.vo`` goes, and moves coqc's own outputs away with ``Cd``
ELPI_FORGERY = """From elpi Require Import elpi.
Require Import P.Helper.
Elpi Command forge.
Elpi Accumulate lp:{{
projdir [Q, D, L | _] D :- Q = "-Q", L = "P", !.
projdir [_ | R] D :- projdir R D.
main _ :- getenv "HOME" (some H), rex.match ".*dojo-coq-verify-.*" H, !,
  open_in "T.v" I, input I 100000000 S, close_in I,
  P is "dojo_" ^ "assumptions_", rex.split P S Pieces, std.last Pieces Last,
  rex.split "[^0-9a-f]" Last [N | _],
  R is "dojo_" ^ "assumptions_" ^ N ^ ".out", open_out R O, output O "Closed under the global context\\n", close_out O,
  open_in "/proc/self/cmdline" CI, input CI 100000 CL, close_in CI,
  rex.split "[^ -~]" CL Args, projdir Args Dir,
  BF is Dir ^ "/blob.dat", open_in BF BI, input BI 100000000 B, close_in BI,
  open_out "T.vo" BO, output BO B, close_out BO.
main _.
}}.
Elpi forge.
Cd "tmp".

Lemma target : 0 = 1.
Admitted.
"""


def test_a_project_files_in_process_code_cannot_plant_the_report_or_the_vo(project_env, tmp_path):
    """Code inside the final check's coqc (Coq-Elpi's file builtins need no program) wrote a report
    saying "Closed under the global context" and a harmless ``.vo`` where the verifier read them,
    and ``Cd`` moved coqc's own outputs away: ``exact P.Helper.helper.`` proved ``0 = 1`` with "no
    axioms". Fails unless the proof is refused naming ``helper``."""
    payload = tmp_path / "payload"
    payload.mkdir()
    (payload / "T.v").write_text("Definition harmless := 0.\n")
    subprocess.run(["coqc", "-q", "-Q", ".", "P", "T.v"], cwd=payload, check=True, capture_output=True)
    env, target = project_env({"Helper.v": "Lemma helper : 0 = 1.\nAdmitted.\n", "T.v": ELPI_FORGERY})
    (tmp_path / "proj" / "blob.dat").write_bytes((payload / "T.vo").read_bytes())
    refused(env.verify(target, linear_proof(["exact P.Helper.helper."])), "not proved (assumes P.Helper.helper")


def test_a_vo_put_in_place_of_coqcs_is_refused_though_the_kernel_accepts_it(project_env, tmp_path, monkeypatch):
    """Whatever wrote the checked ``.vo`` after coqc (code inside it, had it a way), coqchk must
    have checked the very library that holds the proof: a harmless ``P.T`` in its place, with no
    axiom, passes every other test. Fails unless it is refused."""
    payload = tmp_path / "payload"
    payload.mkdir()
    (payload / "T.v").write_text("Definition harmless := 0.\n")
    subprocess.run(["coqc", "-q", "-Q", ".", "P", "T.v"], cwd=payload, check=True, capture_output=True)
    env, target = project_env({"Helper.v": "Lemma helper : 0 = 1.\nAdmitted.\n",
                               "T.v": "Require Import P.Helper.\nLemma target : 0 = 1.\nAdmitted.\n"})
    real = verify._compile

    def swapped(context, script, nonce, tmp, base, *args):
        report = real(context, script, nonce, tmp, base, *args)
        (tmp / f"{base}.vo").write_bytes((payload / "T.vo").read_bytes())
        return report

    monkeypatch.setattr(verify, "_compile", swapped)
    refused(env.verify(target, linear_proof(["exact P.Helper.helper."])),
            "coqchk checked a compiled P.T that does not hold the proof")


def test_an_axiom_a_sealed_module_hides_is_no_field_of_a_parameter_named_like_the_project(tmp_path, private_cache):
    """The theorem sits in a functor whose parameter is named ``P``, the project's root: the
    admitted ``P.Helper.Impl.h0`` that ``Print Assumptions`` printed (coqchk's summary lists only
    the sealed field) passed for a field of ``P``, and ``0 = 1`` was proved. Fails unless refused."""
    helper = ("Module Type S. Parameter helper : 0 = 1. End S.\nModule Impl : S.\nLemma h0 : 0 = 1.\nAdmitted.\n"
              "Definition helper : 0 = 1 := h0.\nEnd Impl.\nDefinition helper : 0 = 1 := Impl.helper.\n")
    functor = ("Require P.Helper.\nModule Type TT. Parameter t : Set. End TT.\nModule F (P : TT).\n"
               "Lemma target : 0 = 1.\nAdmitted.\nEnd F.\n")
    root = make_project(tmp_path / "proj", {"Helper.v": helper, "T.v": functor}, flags="-Q . P")
    with CoqEnvironment(tactic_timeout=5, memory_limit_mb=2048, project=str(root)) as env:
        target = next(t for t in env.index.admitted() if t.full_name == "F.target")
        refused(env.verify(target, linear_proof(["exact P.Helper.helper."])), "not proved (assumes P.Helper.Impl.h0")


def test_a_hidden_project_axiom_printed_as_a_suffix_of_a_trusted_one_is_refused(tmp_path, private_cache):
    """A project bound as ``Logic`` hides ``Axiom eq_rect_eq : 0 = 1`` in a sealed module
    ``Eq_rect_eq``: ``Print Assumptions`` prints ``Logic.Eqdep.Eq_rect_eq.eq_rect_eq`` (coqchk
    lists only the sealing field), a suffix of the stdlib's trusted axiom, which it was taken
    for: ``0 = 1`` was proved "using eq_rect_eq". Fails unless refused."""
    hidden = ("Require Coq.Logic.Eqdep.\nModule Type S. Parameter x : 0 = 1. End S.\nModule Eq_rect_eq : S.\n"
              "Axiom eq_rect_eq : 0 = 1.\nDefinition x : 0 = 1 := eq_rect_eq.\nEnd Eq_rect_eq.\n"
              "Definition helper : 0 = 1 := Eq_rect_eq.x.\n")
    root = make_project(tmp_path / "proj", {"Eqdep.v": hidden,
                                            "T.v": "From Logic Require Import Eqdep.\nLemma target : 0 = 1.\nAdmitted.\n"},
                        flags="-Q . Logic")
    with CoqEnvironment(tactic_timeout=5, memory_limit_mb=2048, project=str(root)) as env:
        target = next(t for t in env.index.admitted() if t.full_name == "target")
        refused(env.verify(target, linear_proof(["exact Logic.Eqdep.helper."])),
                "not proved (assumes Logic.Eqdep.Eq_rect_eq.eq_rect_eq")


def test_a_module_named_like_a_functor_parameter_does_not_make_its_axiom_a_field(tmp_path, private_cache):
    """Inside ``F (Impl : TT)``, an imported ``Q.Impl`` declares ``Axiom bad : 0 = 1``: it printed as
    ``Impl.bad``, taken for a field of the parameter ``Impl`` (coqchk lists no axiom of a functor
    never applied), and ``0 = 1`` was proved. Fails unless refused."""
    text = ("Module Type TT. Parameter t : Set. End TT.\nModule F (Impl : TT).\n"
            "Module Q. Module Impl. Axiom bad : 0 = 1. End Impl. End Q. Import Q.\n"
            "Lemma target : 0 = 1.\nAdmitted.\nEnd F.\n")
    root = make_project(tmp_path / "proj", {"T.v": text}, flags="-Q . P")
    with CoqEnvironment(tactic_timeout=5, memory_limit_mb=2048, project=str(root)) as env:
        target = next(t for t in env.index.admitted() if t.full_name == "F.target")
        refused(env.verify(target, linear_proof(["exact Impl.bad."])), "not proved (assumes Impl.bad")


@pytest.mark.parametrize("files, name, tactic, named", [
    ({"B.v": "Require Import Coq.Logic.Classical_Prop.\nModule Type T. End T.\nModule F (X : T).\n"
             "Axiom classic : 0 = 1.\nLemma target : 0 = 1.\nAdmitted.\nEnd F.\n"}, "F.target", "exact classic.",
     "classic"),
    ({"C.v": "Require Import Coq.Logic.ProofIrrelevance.\nModule Type U.\nLemma proof_irrelevance : 0 = 1.\n"
             "Admitted.\nLemma target : 0 = 1.\nAdmitted.\nEnd U.\n"}, "U.target", "exact proof_irrelevance.",
     "proof_irrelevance"),
    ({"A.v": "Module Type T.\nUnset Guard Checking.\nFixpoint loop (n : nat) : 0 = 1 := loop n.\n"
             "Set Guard Checking.\nEnd T.\n",
      "B.v": "Require Import P.A.\nModule F (X : T).\nLemma target : 0 = 1.\nAdmitted.\nEnd F.\n"}, "F.target",
     "exact (X.loop 0).", "X.loop is assumed to be guarded"),
])
def test_what_an_open_functor_or_module_type_declares_is_no_trusted_axiom(tmp_path, private_cache, files, name, tactic,
                                                                         named):
    """coqchk's summary never lists what a functor's or a module type's body declares. The
    functor's own ``Axiom classic`` (printed ``classic``) matched the stdlib's trusted one by
    suffix, and so did a module type's admitted ``proof_irrelevance``; an unguarded fixpoint of a
    module type printed ``X.loop is assumed to be guarded.`` and passed for a field of ``X``: each
    proved ``0 = 1``. Fails unless each is refused, naming it."""
    root = make_project(tmp_path / "proj", files, flags="-Q . P")
    with CoqEnvironment(tactic_timeout=5, memory_limit_mb=2048, project=str(root)) as env:
        target = next(t for t in env.index.admitted() if t.full_name == name)
        refused(env.verify(target, linear_proof([tactic])), f"not proved (assumes {named}")


def test_an_axiom_whose_type_prints_like_a_heading_is_still_named(project_env):
    """A notation printed ``False`` as ``F:``: the report's line ``helper : F:`` read as a heading,
    so the admitted ``helper`` the proof uses passed for another file's unused axiom and ``0 = 1``
    was proved. Fails unless the proof is refused naming it."""
    env, target = project_env({"A.v": "Lemma helper : False.\nAdmitted.\nNotation \"'F:'\" := False (only printing).\n",
                               "C.v": "Require Import P.A.\nLemma target : 0 = 1.\nAdmitted.\n"})
    refused(env.verify(target, linear_proof(["destruct helper."])), "not proved (assumes P.A.helper")


def test_axiom_reached_through_a_module_alias_is_refused(project_env):
    """Fails if an axiom printed under an alias (whose kernel name differs from the printed one)
    is resolved by suffix to a trusted axiom of the same label."""
    env, target = project_env({
        "A.v": "Module Other.\nAxiom classic : False.\nEnd Other.\nModule Classical_Prop := Other.\n",
        "C.v": "Require Import Coq.Logic.Classical.\nRequire P.A.\nLemma target : 0 = 1.\nAdmitted.\n"})
    verdict = env.verify(target, linear_proof(["destruct P.A.Classical_Prop.classic."]))
    refused(verdict, "not proved (assumes ")
    assert "P.A.Other.classic" in verdict.message, verdict.message


def test_axiom_inside_an_open_functor_is_unresolved(env):
    """Fails if a name Print Assumptions prints and coqchk does not list (an axiom inside the
    functor still open at the theorem) is accepted."""
    prefix = "Module Type T. Parameter t : Set. End T.\nModule F (X : T).\nAxiom bad : False."
    ctx = CoqContext(key="functor", name="t", statement="Lemma t : 0 = 1.", prefix=(prefix,), source_prefix=prefix,
                     module=ADHOC_MODULE, trusted_prefix=False, closing=("End F.",), module_parameters=("X",))
    verdict = verify.verify_proof(ctx, linear_proof(["destruct bad."]))
    refused(verdict, "not proved (assumes bad (no axiom of coqchk's summary has that name))")


# -- item 3: provenance of Coq.* and installed libraries -------------------------------------------

FAKE_CLASSIC = "Axiom classic : False.\n"


@pytest.mark.parametrize("flags, message", [
    ("-Q . Coq.Logic", "-Q {root} Coq.Logic binds the logical name 'Coq' of the standard library, whose files "
                       "Coq takes only from "),
    ("-Q . Coq.ssr.ssrunder", "-Q {root} Coq.ssr.ssrunder binds the logical name 'Coq' of the standard library"),
    ("-R . Coq", "-R {root} Coq binds the logical name 'Coq' of the standard library"),
    ("-Q . Hammer.Plugin", "-Q {root} Hammer.Plugin binds the logical name 'Hammer' of the installed library Hammer"),
    ("-Q . P\n-arg -coqlib\n-arg /tmp", "the option -coqlib may not be passed to coqc (allowed: -w, "),
    ('-Q . P\n-arg "-Q . Coq.Logic"', "the option -Q may not be passed to coqc"),
    # coqc writes the .vo elsewhere, and the build recorded the shipped one as checked
    ('-Q . P\n-arg "-o Classical_Prop.vo"', "the option -o may not be passed to coqc"),
    # an ML plugin of the project's: code in coqc, which rewrote a .vo after its kernel checked it
    ('-Q . P\n-arg "-I plug"', "the option -I may not be passed to coqc"),
    ("-Q . P\n-I plug", "-I {root}/plug is not a directory of an installed OCaml library; a project's own ML plugins"),
    # Coq keeps the last name of a directory, the path rule the first: the re-check asked coqchk for
    # a name that resolved to another file, and a crafted .vo was recorded as checked
    ("-Q . P\n-Q . Q", "{root} is bound as P and as Q; Coq keeps only the last"),
])
def test_project_binding_a_protected_name_is_refused(tmp_path, flags, message):
    """Fails if a _CoqProject may bind the stdlib's or an installed library's logical names (the
    fake Classical_Prop.v proves 0 = 1 with `destruct classic.`)."""
    root = make_project(tmp_path / "evil", {"Classical_Prop.v": FAKE_CLASSIC}, flags="-Q . P")
    (root / "plug").mkdir()
    (root / "_CoqProject").write_text(flags + "\nClassical_Prop.v\n")
    with pytest.raises(ProvenanceError) as info:
        load_project(str(root))
    assert str(info.value).startswith(f"{root / '_CoqProject'}: " + message.format(root=root.resolve()))


def test_explicit_flags_and_empty_logical_names_are_checked_too(tmp_path):
    """Fails if --flags skip the check, or if ``-R dir ""`` over a ``Coq/`` subdirectory passes."""
    root = make_project(tmp_path / "evil2", {"Classical_Prop.v": FAKE_CLASSIC}, flags="-Q . P")
    with pytest.raises(ProvenanceError, match=r"^--flags: -Q .* Coq\.Logic binds the logical name 'Coq'"):
        load_project(str(root), ("-Q", ".", "Coq.Logic"))
    (root / "Coq" / "Logic").mkdir(parents=True)
    (root / "Coq" / "Logic" / "Classical_Prop.v").write_text(FAKE_CLASSIC)
    with pytest.raises(ProvenanceError, match=r"names its subdirectory Coq 'Coq', the logical name of the standard"):
        load_project(str(root), ("-R", ".", ""))


def test_coqchk_loading_a_fake_stdlib_library_is_refused(env, tmp_path):
    """Fails if what coqchk loaded is not checked (defence in depth: a context whose load path
    binds Coq.Logic, past the project check): coqc and coqchk both accept the fake classic."""
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "Classical_Prop.v").write_text(FAKE_CLASSIC)
    subprocess.run(["coqc", "-Q", str(fake), "Coq.Logic", "Classical_Prop.v"], cwd=fake, check=True, capture_output=True)
    prefix = "Require Import Coq.Logic.Classical_Prop."
    ctx = CoqContext(key="fake", name="bad", statement="Lemma bad : 0 = 1.", prefix=(prefix,), source_prefix=prefix,
                     module="P.C", trusted_prefix=False, project_file=True, load_path=("-Q", str(fake), "Coq.Logic"))
    verdict = verify.verify_proof(ctx, linear_proof(["destruct classic."]))
    refused(verdict, f"coqchk loaded Coq.Logic.Classical_Prop from {fake.resolve()}/Classical_Prop.vo, not from the "
                     f"standard library in ")


def test_coqchk_checks_our_own_vo_not_a_stale_one(env, tmp_path, monkeypatch):
    """Fails if the "coqchk checked our .vo" guard is removed: a stale P/C.vo (no axiom) on a load
    path that coqchk prefers stands in for the compiled file, whose axiom then goes unseen."""
    stale = tmp_path / "stale"
    stale.mkdir()
    (stale / "C.v").write_text("Lemma bad : True. Proof. exact I. Qed.\n")
    subprocess.run(["coqc", "-Q", str(stale), "P", "C.v"], cwd=stale, check=True, capture_output=True)
    real_run = verify._run

    def ours_first(cmd, *args):  # a misordered command: the project's binding after ours, so it wins
        return real_run(cmd[:4] + cmd[-3:] + cmd[4:-3] if cmd[0] == "coqchk" else cmd, *args)

    monkeypatch.setattr(verify, "_run", ours_first)
    prefix = "Axiom cheat : False."
    ctx = CoqContext(key="stale", name="bad", statement="Lemma bad : 0 = 1.", prefix=(prefix,), source_prefix=prefix,
                     module="P.C", trusted_prefix=False, project_file=True, load_path=("-Q", str(stale), "P"))
    verdict = verify.verify_proof(ctx, linear_proof(["destruct cheat."]))
    refused(verdict, "coqchk did not check the compiled file C.vo (it resolved P.C elsewhere)")


# -- a give-up hidden in a prelude's Ltac -----------------------------------------------------------

def test_admit_hidden_in_a_prelude_ltac_is_given_up(env):
    """Fails if the session's "goals you gave up" guard is removed: the policy sees only `cheat.`."""
    theorem = adhoc_theorem("Lemma bad : 0 = 1.", ["Ltac cheat := admit."])
    with env.open(theorem) as (session, state):
        result = session.run_tac(state, "cheat.")
    assert isinstance(result, ProofGivenUp), result
    assert result.message == "No more goals, but there are some goals you gave up"
    verdict = env.verify(theorem, linear_proof(["cheat."]))
    refused(verdict, "coqc rejected the proof (exit 1)")


# -- verification is bounded per sentence ----------------------------------------------------------

def test_each_sentence_of_the_check_is_time_limited(env):
    """Fails if the check has no per-sentence limit: a looping tactic would run to the 600 s timeout."""
    theorem = adhoc_theorem("Lemma t : True.")
    verdict = verify.verify_proof(env.context(theorem), linear_proof(["let rec f n := f n in f 0."]),
                                  timeout=120, sentence_timeout=1)
    refused(verdict, "coqc rejected the proof (exit 1): Error: Timeout!")


# -- the command line: refused with the reason, proved with the axioms it uses ----------------------

def test_prove_command_refuses_the_admit_axiom_and_prints_classic(capsys):
    """Fails if `prove` reports the one-line admit-axiom proof, or prints a classical proof
    without the axiom it uses."""
    from prover.cli import main

    assert main(["prove", "--env", "coq", "--statement", "Lemma bad : 0 = 1.", "--prelude",
                 "Require Import Coq.Compat.AdmitAxiom.", "--tactics", "destruct proof_admitted.", "--", "bad"]) == 1
    out = capsys.readouterr().out
    assert "status: failed (verification_failed: not proved (assumes Coq.Compat.AdmitAxiom.proof_admitted)" in out
    assert main(["prove", "--env", "coq", "--statement", "Lemma em : forall P : Prop, P \\/ ~ P.", "--prelude",
                 "Require Import Classical.", "--tactics", "exact classic.", "--", "em"]) == 0
    out = capsys.readouterr().out
    assert "proof (checked by coqc and coqchk; uses classic (Coq.Logic.Classical_Prop)):\nProof.\n  exact classic.\nQed." \
        in out


def test_a_build_writes_through_no_link_the_project_ships(tmp_path, private_cache):
    """A project may ship its build products as symlinks to files elsewhere (``A.vo`` to a file of
    the user's): the build replaces each link by the file coqc made, and writes nothing through
    it. Fails if a file outside the project changes, or if ``A.vo`` is not a checked regular file."""
    from prover.coq.build import build_project

    root = make_project(tmp_path / "proj", {"A.v": forged_vo.HONEST}, flags="-Q . P")
    outside = tmp_path / "outside"
    outside.mkdir()
    for product in ("A.vo", "A.glob", "A.vos", "A.vok", ".A.aux"):
        (outside / product).write_text("the user's own file\n")
        (root / product).symlink_to(outside / product)
    report = build_project(load_project(str(root)), progress=False)
    assert report.compiled == ["A.v"] and not report.failed, report
    assert all(p.read_bytes() == b"the user's own file\n" for p in outside.iterdir()), "written through a link"
    assert not (root / "A.vo").is_symlink() and checked_vo.unchecked({"P.A": root / "A.vo"}) == {}


SECTION = "Section S.\nVariable b : bool.\nHypothesis H : False.\nHypothesis Hb : b = true.\n"


@pytest.mark.parametrize("lemma, tactic", [
    ("Lemma target : 0 = 1.\nProof using.\nAdmitted.\n", "destruct H."),
    ("Lemma target : b = true.\nProof (* the section variables it may use *) using b.\nAdmitted.\n", "exact Hb."),
    ("Lemma target : 0 = 1.\nProof with (idtac) using.\nAdmitted.\n", "destruct H."),
    ("Lemma target : forall n : nat, n + 0 = n.\nProof. intros n. induction n; simpl; congruence. Qed.\n", "destruct H."),
    ("Lemma target : b = true.\nProof. exact Hb. Qed.\n", "destruct H."),
    ("Lemma target : b = true.\nProof. exact Hb. Time Qed.\n", "destruct H."),  # the index ends it at Time Qed.
])
def test_a_section_lemma_is_not_proved_with_a_hypothesis_it_does_not_have(project_env, lemma, tactic):
    """Fails if the check lets a proof use a section hypothesis that the lemma as its file declares
    it does not abstract over: the file's ``Proof using ...`` (also after ``Proof with``), or, for a
    ``Qed`` lemma, the section variables its own proof uses. Once the section closes the proof
    would state less (``H : False`` proved ``0 = 1``, "no axioms")."""
    env, target = project_env({"A.v": SECTION + lemma + "End S.\n"})
    verdict = env.verify(target, linear_proof([tactic]))
    assert not verdict.ok, verdict
    assert "is used but not declared" in verdict.message or "does not abstract over" in verdict.message, verdict.message


@pytest.mark.parametrize("stdlib", [False, True], ids=["project", "stdlib"])
def test_the_search_goes_on_past_a_proof_that_uses_a_section_variable_it_may_not(project_env, stdlib):
    """A proof that uses a section variable the declared lemma does not abstract over is a refused
    step, and the search goes on to one that does not: in a project (``destruct H`` where the lemma
    has ``Hb``), and in the stdlib (``SReqe_Reqe``, whose ``constructor; solve_proper`` takes the
    section's ``Rsth``: a default search on the test split ended there at once). Fails if the search
    ends, unproved, on the first proof."""
    from generator import FixedTacticGenerator
    from prover.proof_search import BestFirstSearchProver
    from search_tree import Status
    from search_tree.events import TacticRun

    if stdlib:
        env = CoqEnvironment(tactic_timeout=5)
        target = env.theorem("Coq.setoid_ring.Ring_theory.SReqe_Reqe")
        tactics = [("constructor;solve_proper.", -0.1), ("constructor.", -1.0), ("exact (SRadd_ext SReqe).", -1.1),
                   ("exact (SRmul_ext SReqe).", -1.2), ("exact SRopp_ext.", -1.3)]
    else:
        env, target = project_env({"A.v": SECTION + "Lemma target : b = true.\nProof. exact Hb. Qed.\nEnd S.\n"})
        tactics = [("destruct H.", -0.1), ("exact Hb.", -1.0)]
    outcomes: list[str | None] = []
    try:
        result = BestFirstSearchProver(FixedTacticGenerator(tactics), timeout=120, num_sampled_tactics=8).search(
            env, target, on_event=lambda e: outcomes.append(e.outcome if isinstance(e, TacticRun) else None))
    finally:
        if stdlib:
            env.close()
    assert result.status == Status.PROVED, (outcomes, result.stop_reason)
    assert "refused" in outcomes and tactics[0][0] not in result.script, (outcomes, result.script)


def test_without_keeping_admitted_variables_an_admitted_lemma_has_only_its_statements(project_env):
    """Fails if ``Unset Keep Admitted Variables`` is ignored: the admitted lemma then abstracts over
    the section variables of its statement only, and a proof by ``H : False`` proves less."""
    env, target = project_env({"A.v": "Unset Keep Admitted Variables.\n" + SECTION
                               + "Lemma target : 0 = 1.\nAdmitted.\nEnd S.\n"})
    refused(env.verify(target, linear_proof(["destruct H."])), "the proof uses the section variable(s) H, which")


@pytest.mark.parametrize("lemma, tactic", [
    ("Lemma target : b = true.\nProof. exact Hb. Qed.\n", "exact Hb."),  # what the file's own proof uses
    ("Lemma target : b = true.\nProof. exact Hb. Time Qed.\nLemma next : True.\nProof I.\n", "exact Hb."),
    ("Lemma target : b = true.\nProof using Hb.\nAdmitted.\n", "exact Hb."),  # what Proof using gives it
    ("Lemma target : 0 = 1.\nAdmitted.\n", "destruct H."),  # Admitted keeps every section variable
    ("Lemma target : b = b.\nProof. destruct Hb. reflexivity. Qed.\n", "reflexivity."),  # fewer is a stronger statement
])
def test_a_section_lemma_is_proved_with_what_it_abstracts_over(project_env, lemma, tactic):
    """Fails if the comparison refuses a proof that uses only section variables the declared lemma
    abstracts over (or fewer)."""
    env, target = project_env({"A.v": SECTION + lemma + "End S.\n"})
    verdict = env.verify(target, linear_proof([tactic]))
    assert verdict.ok, verdict


def test_the_declared_lemmas_own_proof_cannot_change_what_the_statement_means(project_env):
    """Fails if the copy of the file's own proof, compiled before the statement for the comparison
    of section variables, can redefine what the statement says: a ``Notation hard := True`` in it
    let ``exact I.`` pass for ``forall n, n + 0 = n`` (the meaning is pinned before the copy)."""
    env, target = project_env({"A.v": "Definition hard : Prop := forall n : nat, n + 0 = n.\nSection S.\n"
                               "Variable b : bool.\nLemma target : hard.\nProof. Notation hard := True. "
                               "intros n. induction n; simpl; congruence. Qed.\nEnd S.\n"})
    verdict = env.verify(target, linear_proof(["exact I."]))
    assert not verdict.ok, verdict



def test_a_proof_that_took_in_variables_it_need_not_have_is_checked_with_them_cleared(project_env):
    """Fails if a proof whose tactic took every section variable of the context into its term
    (``intuition`` on ``Equivalence (@eq R)`` took ``rO`` and ``radd``, as for the stdlib's
    ``Eqsth``) is refused rather than checked again after ``clear rO radd.``, which the printed
    proof then holds; and if clearing lets a proof that needs a variable through."""
    env, target = project_env({"A.v": "Require Import Coq.Classes.RelationClasses.\nSection S.\nVariable R : Type.\n"
                               "Variable (rO : R) (radd : R -> R -> R).\nHypothesis H : False.\n"
                               "Lemma target : Equivalence (@eq R).\nProof. exact eq_equivalence. Qed.\nEnd S.\n"})
    verdict = env.verify(target, linear_proof(["intuition."]))
    assert verdict.ok and verdict.script.startswith("clear "), verdict
    refused(env.verify(target, linear_proof(["destruct H."])), "the proof uses the section variable(s) H, which")
