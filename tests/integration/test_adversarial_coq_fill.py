"""fill-admitted as an adversary would use it: a project whose files leave its root, a lemma whose
meaning a careless edit would change, a run directory edited between two runs. Real coqc, coqdep,
coqtop and coqchk throughout; every test asserts the exact outcome (the text written, the file
left alone, the one-line error).

The search is the ``fixed`` generator with the tactics each case needs, so that a case costs a
few seconds and its proof is known in advance."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from coq_projects import as_read, make_project, tree_state
from prover.cli import main
from prover.coq.build import build_project
from prover.coq.project import ProjectError, load_project

FIXTURE = Path(__file__).parents[1] / "fixtures" / "coqproj"


pytestmark = pytest.mark.usefixtures("private_cache")


def fill(root: Path, out: Path, tactics: list[str], *extra: str) -> int:
    return main(["fill-admitted", str(root), "--out", str(out), "--timeout", "20", "--no-progress",
                 "--generator", "fixed", "--generator-opt", f"tactics={json.dumps(tactics)}", *extra])


def lemma_text(path: Path, name: str) -> str:
    """The lemma ``name`` of ``path``, from its statement to its ``Qed.``/``Admitted.``."""
    m = re.search(rf"(?:#\[[^\]]*\]\s*)?(?:Local\s+)?Lemma {name}\b.*?(?:Qed|Admitted|Defined)\.",
                  path.read_text(), re.S)
    assert m, f"no lemma {name} in {path}"
    return m.group()


# --- the file system: nothing outside the root, nothing without --write -----------------------------

ADMITTED_A = "Lemma add0 : forall n : nat, n + 0 = n.\nAdmitted.\n"


def test_a_file_that_is_a_symlink_out_of_the_root_is_refused(tmp_path, capsys):
    """Fails if a listed file that is a symlink to a file outside the root is built or edited:
    its outside target must keep its bytes and get no .vo/.glob beside it."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "A.v").write_text(ADMITTED_A)
    root = make_project(tmp_path / "proj", {})
    (root / "theories").mkdir()
    (root / "theories" / "A.v").symlink_to(outside / "A.v")
    (root / "_CoqProject").write_text("-Q theories P\ntheories/A.v\n")
    before = tree_state(outside)
    assert fill(root, tmp_path / "run", ["intros n.", "now rewrite <- plus_n_O."], "--write") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert f"theories/A.v resolves to {outside / 'A.v'}, outside the project root {root}" in err
    assert tree_state(outside) == before


def test_a_directory_that_is_a_symlink_out_of_the_root_is_refused(tmp_path, capsys):
    """Fails if a load-path directory inside the root that links outside it is built through
    (coqc would write .vo files into the linked directory), listed files or not."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "A.v").write_text(ADMITTED_A)
    root = tmp_path / "proj"
    root.mkdir()
    (root / "theories").symlink_to(outside, target_is_directory=True)
    (root / "_CoqProject").write_text("-Q theories P\ntheories/A.v\n")
    before = tree_state(outside)
    assert fill(root, tmp_path / "run", ["intros n.", "now rewrite <- plus_n_O."]) == 2
    assert "theories/A.v resolves to" in capsys.readouterr().err
    (root / "_CoqProject").write_text("-Q theories P\n")  # the files found by walking the directory
    with pytest.raises(ProjectError, match=r"-Q theories: the directory resolves to .*outside the project root"):
        load_project(str(root))
    assert tree_state(outside) == before


def test_files_found_by_walking_never_lead_out_of_the_root(tmp_path):
    """Fails if ``-R . P`` without a file list builds through a link out of the root: a linked
    file is refused before any coqc runs, a linked directory is not walked into."""
    outside = tmp_path / "outside"
    (outside / "vendor").mkdir(parents=True)
    (outside / "vendor" / "V.v").write_text("Lemma v : True. Proof. exact I. Qed.\n")
    (outside / "L.v").write_text(ADMITTED_A)
    root = make_project(tmp_path / "proj", {"A.v": ADMITTED_A}, flags="-R . P", listed=False)
    (root / "vendor").symlink_to(outside / "vendor", target_is_directory=True)
    before = tree_state(outside)
    assert load_project(str(root)).source_files() == ["A.v"]
    (root / "L.v").symlink_to(outside / "L.v")
    with pytest.raises(ProjectError, match=r"L\.v resolves to .*/outside/L\.v, outside the project root"):
        build_project(load_project(str(root)), progress=False)
    assert tree_state(outside) == before and not (root / "A.vo").exists()


def test_a_parent_directory_entry_is_refused_with_one_line(tmp_path):
    """Fails if ``../other/X.v`` in a _CoqProject is accepted: building it writes beside it, outside the root."""
    make_project(tmp_path / "other", {"X.v": ADMITTED_A}, flags="-Q . O")
    root = make_project(tmp_path / "proj", {"theories/A.v": ADMITTED_A})
    (root / "_CoqProject").write_text("-Q theories P\n-Q ../other O\ntheories/A.v\n../other/X.v\n")
    with pytest.raises(ProjectError) as caught:
        load_project(str(root))
    assert str(caught.value) == (f"{root / '_CoqProject'}: ../other/X.v resolves to {tmp_path / 'other' / 'X.v'}, "
                                 f"outside the project root {root}; a project builds and edits only its own files")


def test_an_absolute_entry_outside_is_refused_and_one_inside_is_made_relative(tmp_path):
    """Fails if an absolute file entry leaving the root is accepted, or one inside it stays absolute
    (an edit of ``copy_root / "/abs/path"`` would be the original)."""
    make_project(tmp_path / "other", {"X.v": ADMITTED_A}, flags="-Q . O")
    root = make_project(tmp_path / "proj", {"theories/A.v": ADMITTED_A})
    (root / "_CoqProject").write_text(f"-Q theories P\n{tmp_path / 'other' / 'X.v'}\n")
    with pytest.raises(ProjectError, match=r"X\.v resolves to .*, outside the project root"):
        load_project(str(root))
    (root / "_CoqProject").write_text(f"-Q theories P\n{root / 'theories' / 'A.v'}\n")
    assert load_project(str(root)).source_files() == ["theories/A.v"]


def test_the_build_writes_only_beside_the_sources(tmp_path, monkeypatch):
    """Fails if coqc runs in the project root or in ours: a file's ``Redirect`` and ``lia``'s cache
    would land there. Only the .vo, .glob and .aux of each source may appear, beside it."""
    root = make_project(tmp_path / "proj", {"theories/R.v": 'Require Import Lia.\nRedirect "leak" Check 0.\n'
                                                            "Lemma l : forall n, n + 0 = n.\nProof. lia. Qed.\n"})
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    assert build_project(load_project(str(root)), progress=False).failed == {}
    assert sorted(tree_state(root)) == ["_CoqProject", "theories", "theories/.R.aux", "theories/R.glob",
                                        "theories/R.v", "theories/R.vo", "theories/R.vok", "theories/R.vos"]
    assert list((tmp_path / "cwd").iterdir()) == []


PROJECT_B = {
    "theories/A.v": "Require Import Lia.\nLemma add0 : forall n : nat, n + 0 = n.\nAdmitted.\n",
    "theories/B.v": "Require Import P.A.\nLemma use : 3 + 0 = 3.\nProof. apply add0. Qed.\n",
}


def test_without_write_the_project_tree_is_byte_identical(tmp_path):
    """Fails if fill-admitted without --write changes anything under the root of a built project
    (a source, a .vo, an mtime, a cache file such as .lia.cache), or writes beside it; the patch
    must still hold the proof."""
    home = tmp_path / "home"
    root = make_project(home / "proj", PROJECT_B)
    build_project(load_project(str(root)), progress=False)
    before = tree_state(root)
    assert fill(root, home / "run", ["intros n.", "lia."]) == 0
    assert tree_state(root) == before
    assert sorted(p.name for p in home.iterdir()) == ["proj", "run", "run.diff"]
    assert "+  lia.\n+Qed.\n" in (home / "run.diff").read_text()


def test_write_replaces_a_hardlinked_file_instead_of_writing_into_its_inode(tmp_path):
    """Fails if --write writes into the file in place: a hard link to it outside the root would
    change too (the written file must be a new one)."""
    root = make_project(tmp_path / "proj", PROJECT_B)
    os.link(root / "theories" / "A.v", tmp_path / "alias.v")
    assert fill(root, tmp_path / "run", ["intros n.", "lia."], "--write") == 0
    assert (tmp_path / "alias.v").read_text() == PROJECT_B["theories/A.v"]
    assert "lia.\nQed." in (root / "theories" / "A.v").read_text()


def test_a_file_that_is_a_symlink_inside_the_root_is_not_edited_through(tmp_path, capsys):
    """Fails if an edit is written through a symlink (even one that stays inside the root): the
    proof is reported as not written, naming the link, and neither file changes."""
    root = make_project(tmp_path / "proj", {"real/A.v": PROJECT_B["theories/A.v"]})
    (root / "theories").mkdir()
    (root / "theories" / "A.v").symlink_to(Path("..") / "real" / "A.v")
    (root / "_CoqProject").write_text("-Q theories P\ntheories/A.v\n")
    assert fill(root, tmp_path / "run", ["intros n.", "lia."], "--write") == 0
    out = as_read(capsys.readouterr().out)
    assert "| add0 | theories/A.v | no |" in out and "theories/A.v is a symlink" in out
    assert (root / "real" / "A.v").read_text() == PROJECT_B["theories/A.v"]
    assert (tmp_path / "run.diff").read_text() == ""


def test_outputs_beside_and_in_out_are_never_written_through_a_symlink(tmp_path, capsys):
    """Fails if OUT.diff or OUT/fill-admitted.md is written through a symlink to a user's file, or
    if the originals are backed up into a directory outside that a symlinked OUT/backup points to
    (it must be refused with one line, before anything is searched or written)."""
    root = make_project(tmp_path / "proj", PROJECT_B)
    run, mine = tmp_path / "run", tmp_path / "mine.txt"
    mine.write_text("the user's file")
    (tmp_path / "elsewhere").mkdir()
    run.mkdir()
    (run / "backup").symlink_to(tmp_path / "elsewhere")
    assert fill(root, run, ["intros n.", "lia."], "--write") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{run / 'backup'} is a symlink" in err[0], err
    assert list((tmp_path / "elsewhere").iterdir()) == [] and sorted(p.name for p in run.iterdir()) == ["backup"]
    assert (root / "theories" / "A.v").read_text() == PROJECT_B["theories/A.v"]
    (run / "backup").unlink()
    (tmp_path / "run.diff").symlink_to(mine)
    (run / "fill-admitted.md").symlink_to(mine)
    assert fill(root, run, ["intros n.", "lia."], "--write") == 0
    assert mine.read_text() == "the user's file" and list((tmp_path / "elsewhere").iterdir()) == []
    assert "lia." in (tmp_path / "run.diff").read_text() and "| add0 |" in (run / "fill-admitted.md").read_text()
    assert (run / "backup" / "theories" / "A.v").read_text() == PROJECT_B["theories/A.v"]
    assert "lia.\nQed." in (root / "theories" / "A.v").read_text()


def test_out_dot_writes_the_patch_beside_the_current_directory(tmp_path, monkeypatch):
    """Fails if ``--out .`` crashes (``PosixPath('.') has an empty name``) instead of writing the
    patch beside the current directory."""
    root = make_project(tmp_path / "proj", PROJECT_B)
    (tmp_path / "run").mkdir()
    monkeypatch.chdir(tmp_path / "run")
    assert fill(root, Path("."), ["intros n.", "lia."]) == 0
    assert "+  lia.\n+Qed.\n" in (tmp_path / "run.diff").read_text()


# --- a lemma's meaning: only the proof body changes -------------------------------------------------

def section(body: str) -> str:
    return f"Section S.\nVariable n : nat.\nHypothesis H : n = 0.\n{body}End S.\n"


# one admitted lemma per file: the verifier refuses a proof in a file that declares an axiom before it
SECTIONS = {
    "theories/S1.v": section("Lemma using_kept : n + 0 = n.\nProof using n.\n"
                             "  (* an attempt left by the user *)\nAdmitted.\n"),
    "theories/S2.v": section("Lemma needs_H : n = 0.\nProof using n. Admitted.\n")
                     + "Lemma client : forall m, m = 0 -> m = 0.\nProof. intros m Hm. exact (needs_H m). Qed.\n",
    "theories/S3.v": section("Lemma loose : n + 0 = n.\nAdmitted.\n"),
    "theories/S4.v": section("Lemma all_used : n = 0.\nAdmitted.\n"),
}


def test_proof_using_is_kept_and_an_edit_that_changes_a_type_is_rolled_back(tmp_path, capsys):
    """Fails if ``Proof using`` is replaced (``needs_H`` would silently gain the hypothesis H, as
    in the example), or if ``loose`` is filled although its proof, which does not use H,
    drops H from the type Admitted gave it (every section variable); fails too if the lemmas whose
    type an edit keeps are not filled."""
    root = make_project(tmp_path / "proj", SECTIONS)
    assert fill(root, tmp_path / "run", ["exact H.", "now rewrite <- plus_n_O."], "--write") == 0
    out = as_read(capsys.readouterr().out)
    theories = root / "theories"
    assert lemma_text(theories / "S1.v", "using_kept") == ("Lemma using_kept : n + 0 = n.\nProof using n.\n"
                                                           "  now rewrite <- plus_n_O.\nQed.")
    assert (theories / "S2.v").read_text() == SECTIONS["theories/S2.v"]
    assert (theories / "S3.v").read_text() == SECTIONS["theories/S3.v"]
    assert lemma_text(theories / "S4.v", "all_used") == "Lemma all_used : n = 0.\nProof.\n  exact H.\nQed."
    assert re.search(r"\| needs_H \| theories/S2\.v \| no \| [\d.]+ \| failed \(verification_failed: coqc rejected "
                     r"the proof .*The following section variable is used but not declared: H\.", out), out
    assert re.search(r"\| loose \| theories/S3\.v \| no \| [\d.]+ \| rolled back: it changes the type of "
                     r"P\.S3\.loose \(before: forall \(n : nat\) \(_ : @eq nat n O\), @eq nat \(Nat\.add n O\) n; "
                     r"after: forall n : nat, @eq nat \(Nat\.add n O\) n\)", out)


def test_proof_with_attributes_and_context_are_kept(tmp_path):
    """Fails if ``Proof with``, an attribute or a ``Local`` in front of the lemma is lost, or a
    lemma over ``Context`` variables is not filled (its type is unchanged)."""
    files = {"theories/L.v": "Section L.\nContext {A : Type} (l : list A).\n#[local] Lemma len_same : "
                             "length l = length l.\nProof with auto.\nAdmitted.\nEnd L.\n",
             "theories/T.v": "Local Lemma t : True /\\ True.\nAdmitted.\n"}
    root = make_project(tmp_path / "proj", files)
    assert fill(root, tmp_path / "run", ["reflexivity.", "split; exact I."], "--write") == 0
    theories = root / "theories"
    assert (theories / "L.v").read_text() == files["theories/L.v"].replace(
        "Proof with auto.\nAdmitted.", "Proof with auto.\n  reflexivity.\nQed.")
    assert (theories / "T.v").read_text() == files["theories/T.v"].replace(
        "Admitted.", "Proof.\n  split; exact I.\nQed.")


def test_a_script_using_the_dots_of_proof_with_is_not_written(tmp_path, capsys):
    """Fails if a script whose ``t...`` the search ran without the lemma's ``Proof with`` tactic is
    written under it: the written proof would run another tactic than the one searched (the final
    check opens with the lemma's ``Proof with``, where ``split...`` leaves no goal for ``exact I.``)."""
    text = "Lemma w : True /\\ True.\nProof with exact I.\nAdmitted.\n"
    root = make_project(tmp_path / "proj", {"theories/W.v": text})
    assert fill(root, tmp_path / "run", ["split...", "exact I."], "--write") == 0
    out = as_read(capsys.readouterr().out)
    assert re.search(r"\| w \| theories/W\.v \| no \| [\d.]+ \| (not written: its sentence 'split\.\.\.' "
                     r"would run the lemma's 'Proof with' tactic|failed \(verification_failed: coqc rejected)", out), out
    assert (root / "theories" / "W.v").read_text() == text


def test_definitions_instances_and_program_obligations_are_left_alone(tmp_path):
    """Fails if anything but the admitted lemma's proof changes: an admitted Definition, an
    Instance, a Program definition's obligations and a Defined proof keep their text, and the
    lemma becomes Qed (opaque, as Admitted was)."""
    text = ("Require Import Program.\n"
            "Lemma tr : True.\nAdmitted.\n"
            "Definition d : nat.\nAdmitted.\n"
            "Class C := { c : nat }.\n#[export] Instance i : C.\nAdmitted.\n"
            "Program Definition p : {x : nat | x = 0} := exist _ 0 _.\nAdmit Obligations.\n"
            "Lemma ex : {k : nat | k = k}.\nProof. exists 0. reflexivity. Defined.\n")
    root = make_project(tmp_path / "proj", {"theories/D.v": text})
    assert fill(root, tmp_path / "run", ["exact I."], "--write") == 0
    assert (root / "theories" / "D.v").read_text() == text.replace("Lemma tr : True.\nAdmitted.",
                                                                   "Lemma tr : True.\nProof.\n  exact I.\nQed.")


SHADOWING = {
    # Ring_theory, which the ring addition imports, declares IDphi x := x: after it, v would be 5
    "theories/R.v": "Definition IDphi (x : nat) : nat := 0.\nLemma mul_comm' : forall a b : nat, a * b = b * a.\n"
                    "Admitted.\nDefinition v : nat := IDphi 5.\n",
    "theories/Q.v": "Lemma add_comm' : forall a b : nat, a + b = b + a.\nAdmitted.\nDefinition w : nat := 5.\n",
}


def test_an_addition_that_changes_the_value_of_a_later_definition_is_rolled_back(tmp_path, capsys):
    """Fails if the edit's ``Require Import ArithRing.`` is written where it makes the later ``v``
    (same type, nat) compute to 5 instead of 0, which the types alone do not show; fails too if an
    edit whose addition changes no value is not written with it."""
    root = make_project(tmp_path / "proj", SHADOWING)
    assert fill(root, tmp_path / "run", ["intros a b; ring."], "--env-opt", "additions=ring", "--write") == 0
    out = as_read(capsys.readouterr().out)
    theories = root / "theories"
    assert (theories / "R.v").read_text() == SHADOWING["theories/R.v"]
    assert re.search(r"\| mul_comm' \| theories/R\.v \| no \| [\d.]+ \| rolled back: it changes the value of P\.R\.v "
                     r"\(before: R\.v = R\.IDphi .*; after: R\.v = @Ring_theory\.IDphi nat ", out), out
    assert (theories / "Q.v").read_text() == SHADOWING["theories/Q.v"].replace(
        "Lemma add_comm'", "Require Import ArithRing.\nLemma add_comm'").replace(
        "Admitted.", "Proof.\n  intros a b; ring.\nQed.")


FUNCTOR_SHADOWING = {
    "theories/R.v": "Definition IDphi (x : nat) : nat := 0.\nModule Type Empty. End Empty.\nModule F (X : Empty).\n"
                    "Lemma mul_comm' : forall a b : nat, a * b = b * a.\nAdmitted.\nDefinition v := IDphi 5.\n"
                    "Lemma v_zero : v = 0.\nAdmitted.\nEnd F.\n",
}


def test_an_addition_inside_an_open_module_is_never_written(tmp_path, capsys):
    """Inside a functor the comparison of declarations sees no values: the edit's ``Require Import
    ArithRing.`` made ``F``'s later ``v`` compute to 5 while its admitted ``v_zero`` still said 0,
    and it was written. Fails unless the edit is not written, saying why."""
    root = make_project(tmp_path / "proj", FUNCTOR_SHADOWING)
    assert fill(root, tmp_path / "run", ["intros a b; ring."], "--env-opt", "additions=ring", "--write") == 0
    out = as_read(capsys.readouterr().out)
    assert (root / "theories" / "R.v").read_text() == FUNCTOR_SHADOWING["theories/R.v"]
    assert re.search(r"\| F\.mul_comm' \| theories/R\.v \| no \| [\d.]+ \| not written: its proof needs Require Import "
                     r"ArithRing\., which inside the module open at F\.mul_comm'", out), out


UNIVERSES = {
    "theories/A.v": "Definition U1 := Type.\nDefinition U2 := Type.\nLemma lem : True.\nAdmitted.\n",
    "theories/B.v": "Require Import P.A.\nDefinition up : U2 := U1.\n",
}


def test_an_edit_that_breaks_a_dependent_file_is_rolled_back(tmp_path, capsys):
    """The proof of ``lem`` adds the universe constraint U2 < U1, which keeps every type of A.v but
    makes B.v (U1 < U2) inconsistent. The final check refuses it first (the development's universe
    graph, docs/coq.md); behind it, the dependent-file guard of ``fill_in_copy``, given the edit
    directly, rolls it back. Fails without either."""
    from prover.coq.build import project_index
    from prover.coq.fill import Edit, fill_in_copy
    from prover.coq.records import CoqFields

    root = make_project(tmp_path / "proj", UNIVERSES)
    assert fill(root, tmp_path / "run", ["exact (let _ : U1 := U2 in I)."], "--write") == 0
    out = as_read(capsys.readouterr().out)
    assert re.search(r"\| lem \| theories/A\.v \| no \| [\d.]+ \| failed \(exhausted: a proof it found was refused: "
                     r"not proved \(universes\): the proof adds A\.U2\.u0 < A\.U1\.u0, which the development's universe "
                     r"graph contradicts", out), out
    assert (root / "theories" / "A.v").read_text() == UNIVERSES["theories/A.v"]
    project = load_project(str(root))
    index = project_index(project, progress=False)
    lemma = index.admitted(["theories/A.v"])[0]
    edit = Edit("theories/A.v", CoqFields.of(lemma).offset, "lem", "exact (let _ : U1 := U2 in I).")
    _, (outcome,) = fill_in_copy(project, index, [edit], tmp_path / "copy")
    assert not outcome.written and re.search(r"theories/B\.v no longer compiles \(.*universe inconsistency: Cannot "
                                             r"enforce U1\.u0 < U2\.u0", outcome.why), outcome.why


def test_write_back_restores_the_backup_when_the_rebuild_fails(tmp_path):
    """Fails without the restore guard: a copy whose edit breaks the project in place (here the
    copy's B.v is broken, as a rebuild that differs from the checked copy would find) leaves the
    originals, byte for byte, and says where the backup is."""
    from prover.coq.fill import FillError, write_back

    root = make_project(tmp_path / "proj", UNIVERSES)
    project = load_project(str(root))
    build_project(project, progress=False)
    copy_root = tmp_path / "copy" / "proj"
    shutil.copytree(root, copy_root)
    (copy_root / "theories" / "A.v").write_text(UNIVERSES["theories/A.v"].replace(
        "Admitted.", "Proof. exact (let _ : U1 := U2 in I). Qed."))
    before = {p: (root / p).read_bytes() for p in UNIVERSES}
    with pytest.raises(FillError, match=r"the project no longer compiled after writing \(theories/B\.v\); "
                                        r"restored the originals from .*backup"):
        write_back(project, project.relocated(copy_root), tmp_path / "backup")
    assert {p: (root / p).read_bytes() for p in UNIVERSES} == before
    assert build_project(project, progress=False).failed == {}


# --- the run directory is untrusted ---------------------------------------------------------------

def honest_run(tmp_path: Path) -> tuple[Path, Path, list[dict]]:
    """PROJECT_B after a run that proved ``add0``: (root, run directory, its results records)."""
    root = make_project(tmp_path / "proj", PROJECT_B)
    run = tmp_path / "run"
    assert fill(root, run, ["intros n.", "lia."]) == 0
    records = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    assert [r["result"]["status"] for r in records] == ["proved"]
    return root, run, records


def rerun_with(root: Path, run: Path, records: list[dict], script: str) -> int:
    records[0]["result"]["script"] = script
    (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return fill(root, run, ["intros n.", "lia."], "--write")


def test_a_tampered_recorded_script_is_checked_again_and_never_written(tmp_path, capsys):
    """Fails if a script read back from results.jsonl reaches the user's file without being
    verified again: after an honest run, the recorded proof declares an axiom and uses it; the
    second run must report the lemma unproved with the verifier's reason and write nothing."""
    root, run, records = honest_run(tmp_path)
    capsys.readouterr()
    assert rerun_with(root, run, records, "Axiom cheat : False.\ndestruct cheat.") == 0
    out = as_read(capsys.readouterr().out)
    assert re.search(r"\| add0 \| theories/A\.v \| no \| [\d.]+ \| the recorded proof does not check again: "
                     r"refused tactic 'Axiom cheat : False\.'", out), out
    assert (root / "theories" / "A.v").read_text() == PROJECT_B["theories/A.v"]
    assert (tmp_path / "run.diff").read_text() == ""


TAMPERED = [
    ("Axiom cheat : False.\ndestruct cheat.", "refused tactic 'Axiom cheat : False.'"),
    ("(* context addition, before the statement: Axiom cheat : False. *)\ndestruct cheat.",
     "coqc rejected the proof"),
    ("intros n.\nAdmitted.", "refused tactic 'Admitted.'"),
    ("reflexivity.", "coqc rejected the proof"),  # a proof of another statement
    ("exact I. Qed. Lemma add0 : True.", "refused tactic 'Qed.'"),  # ends the proof, states another lemma
    ("intros n.\nexact (add0 n).", "coqc rejected the proof"),  # the lemma by its own name
    ("intros n.\nlia", "sentence not terminated"),
    (["lia."], "the recorded script is not text"),
]


def test_every_tampered_script_is_refused_by_the_recheck(tmp_path):
    """Fails if :func:`prover.coq.fill.recheck` accepts any of TAMPERED (each with its reason),
    or refuses the honest script of the same lemma."""
    from prover.coq.build import project_index
    from prover.coq.env import CoqEnvironment
    from prover.coq.fill import recheck

    root = make_project(tmp_path / "proj", PROJECT_B)
    index = project_index(load_project(str(root)), progress=False)
    theorem = index.admitted()[0]
    with CoqEnvironment(index=index) as env:
        assert recheck(env, theorem, "intros n.\nlia.").ok
        for script, why in TAMPERED:
            verdict = recheck(env, theorem, script)
            assert not verdict.ok and why in verdict.message, (script, verdict.message)


def test_a_recorded_proof_is_written_as_verified_not_as_recorded(tmp_path):
    """Fails if the recorded text is written instead of the re-checked script: a comment and an
    unneeded addition line put into the record do not reach the file."""
    root, run, records = honest_run(tmp_path)
    assert rerun_with(root, run, records, "(* context addition, before the statement: Require Import Lra. *)\n"
                                          "intros n. (* Axiom cheat : False. *)\nlia.") == 0
    assert (root / "theories" / "A.v").read_text() == PROJECT_B["theories/A.v"].replace(
        "Admitted.", "Proof.\n  intros n.\n  lia.\nQed.")
