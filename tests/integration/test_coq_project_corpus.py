"""A project's premise corpus: the fixture project ``tests/fixtures/coqproj`` sees the
stdlib files it requires, under ``coq-stdlib/``, in its corpus, its files' imports, its traced
premises and the retrievers' default corpus; the stdlib's own corpus stays what it was."""

from __future__ import annotations

import dataclasses
import json
import shutil
import warnings
from pathlib import Path

import pytest

from prover.coq.corpus import corpus_lines, default_corpus_path
from prover.coq.env import CoqEnvironment
from prover.coq.index import code_version, load_index
from prover.coq.install import cache_dir, stdlib_root
from prover.coq.project import load_project, stdlib_project
from prover.coq.scanner import source_hash
from prover.registry import ComponentSpec, ProverConfig, warn_missing_traces, with_defaults

#: the kNN premise retriever a run names to give the default ``sauto use:`` / ``hauto use:`` premises
KNN_PREMISES = "prover.coq.default_generator:coq_premises"

FIXTURE = Path(__file__).parents[1] / "fixtures" / "coqproj"
CORPUS_MODULE = Path(__file__).parents[2] / "prover" / "coq" / "corpus.py"

# a proof step that names a stdlib lemma (the fixture's own steps name only its lemmas and tactics)
USES_STDLIB = """From Coq Require Import Arith.PeanoNat.
Require Import Foo.A.

Lemma double_zero_plus : forall n, 0 + double n = double n.
Proof. intros n. apply Nat.add_0_l. Qed.
"""


@pytest.fixture
def proj(tmp_path, private_cache):
    """A fresh copy of the fixture plus ``theories/D.v`` (:data:`USES_STDLIB`), and a private cache."""
    root = tmp_path / "coqproj"
    shutil.copytree(FIXTURE, root)
    _add_file(root, "theories/D.v", USES_STDLIB)
    return root


def _add_file(root: Path, path: str, text: str) -> None:
    (root / path).write_text(text)
    with (root / "_CoqProject").open("a") as f:
        f.write(f"{path}\n")


def test_project_corpus_lists_its_files_and_the_stdlib_files_they_require(proj):
    """Fails if a project file's stdlib requires are left out of its imports (the old
    ``unresolved_requires``), if the stdlib files are not under ``coq-stdlib/`` or not followed
    transitively (Lia.v's own requires), if stdlib files nobody requires are listed, if an import
    names a file the corpus lacks, or if a ``From Coq`` prefix is dropped (the project's own
    ``Foo.List`` would then win over ``Coq.Lists.List``)."""
    _add_file(proj, "theories/List.v", "Definition mine := 0.\n")
    _add_file(proj, "theories/E.v", "From Coq Require Import List.\n")
    lines = corpus_lines(load_index(load_project(str(proj)), progress=False))
    paths = [line["path"] for line in lines]
    imports = {line["path"]: line["imports"] for line in lines}
    assert imports["theories/B.v"] == ["coq-stdlib/Init/Prelude.v", "theories/A.v", "coq-stdlib/micromega/Lia.v"]
    assert imports["theories/D.v"] == ["coq-stdlib/Init/Prelude.v", "coq-stdlib/Arith/PeanoNat.v", "theories/A.v"]
    assert imports["theories/E.v"] == ["coq-stdlib/Init/Prelude.v", "coq-stdlib/Lists/List.v"]
    assert {"coq-stdlib/micromega/ZMicromega.v", "coq-stdlib/Numbers/Natural/Abstract/NAxioms.v",
            "coq-stdlib/Init/Logic.v"} <= set(paths)
    assert "coq-stdlib/Reals/Rdefinitions.v" not in paths
    assert all(p.startswith("coq-stdlib/") or p.startswith("theories/") for p in paths)
    for k, line in enumerate(lines):  # dependency order, closed under imports
        assert set(line["imports"]) <= set(paths[:k]), line["path"]
    peano = next(line for line in lines if line["path"] == "coq-stdlib/Arith/PeanoNat.v")
    assert peano["imports"][0] == "coq-stdlib/Init/Prelude.v"
    assert "Nat.add_0_l" in {p["full_name"] for p in peano["premises"]}


def test_tracing_annotates_a_stdlib_premise_of_a_project_proof(proj, tmp_path):
    """Fails if the tracer's resolver does not see the stdlib files a project file requires (the
    step ``apply Nat.add_0_l.`` would carry no premise) or if the written corpus.jsonl lacks the
    file the annotation's ``def_path`` names."""
    from prover.coq.tracer import ensure_traced

    out = tmp_path / "traced"
    summary = ensure_traced(["theories/D.v"], out_dir=out, progress=False, project=load_project(str(proj)))
    assert summary.failed == []
    records = [r for s in ("train", "val", "test") for r in json.loads((out / f"{s}.json").read_text())]
    step = next(t for r in records if r["full_name"] == "double_zero_plus" for t in r["traced_tactics"]
                if "add_0_l" in t["tactic"])
    text, premises = step["annotated_tactic"]
    assert text == "apply <a>Nat.add_0_l</a>."
    assert [(p["full_name"], p["def_path"]) for p in premises] == [("Nat.add_0_l", "coq-stdlib/Arith/PeanoNat.v")]
    corpus = {json.loads(line)["path"]: json.loads(line) for line in (out / "corpus.jsonl").open()}
    decl = next(p for p in corpus["coq-stdlib/Arith/PeanoNat.v"]["premises"] if p["full_name"] == "Nat.add_0_l")
    assert decl["start"] <= premises[0]["def_pos"] <= decl["end"]


def test_default_corpus_of_a_project_holds_its_premises(proj):
    """Fails if the retrievers' default corpus ignores the project (the env's ``project`` option or
    the run's theorems) and stays the stdlib's, if it is rewritten on every call, if an edited
    source still gets the old corpus, or if theorems of several projects silently pick one."""
    index = load_index(load_project(str(proj)), progress=False)
    by_option = CoqEnvironment.default_corpus_path({"project": str(proj)})
    by_theorems = CoqEnvironment.default_corpus_path({}, index.theorems())
    assert by_option == by_theorems and Path(by_option).parent == cache_dir() / "corpus"
    assert Path(by_option).name.startswith(load_project(str(proj)).key + "-")
    lines = [json.loads(line) for line in Path(by_option).open()]
    assert {"double_zero", "double_succ"} <= {p["full_name"] for line in lines if line["path"] == "theories/A.v"
                                              for p in line["premises"]}
    assert "coq-stdlib/Arith/PeanoNat.v" in {line["path"] for line in lines}
    mtime = Path(by_option).stat().st_mtime_ns
    assert CoqEnvironment.default_corpus_path({"project": str(proj)}) == by_option
    assert Path(by_option).stat().st_mtime_ns == mtime
    config = ProverConfig(ComponentSpec("coq"), ComponentSpec("best_first"), ComponentSpec("fixed"),
                          ComponentSpec("bm25"))
    assert with_defaults(config, index.theorems()).retriever.options["corpus"] == by_option
    with (proj / "theories" / "A.v").open("a") as f:
        f.write("\nLemma double_zero' : double 0 = 0.\nProof. reflexivity. Qed.\n")
    edited = CoqEnvironment.default_corpus_path({"project": str(proj)})
    assert edited != by_option
    assert "double_zero'" in {p["full_name"] for line in map(json.loads, Path(edited).open())
                              if line["path"] == "theories/A.v" for p in line["premises"]}
    stdlib_theorem = load_index(stdlib_project(), progress=False).theorem("Nat.add_0_l")
    with pytest.warns(RuntimeWarning, match=r"belong to 2 Coq projects: the default corpus and traces are the stdlib's"):
        mixed = CoqEnvironment.default_corpus_path({}, [stdlib_theorem, *index.theorems()])
    assert Path(mixed).name.startswith("stdlib-")


def test_stdlib_default_corpus_is_unchanged(proj):
    """Fails if the stdlib's default corpus changes name scheme (``stdlib-<scanner>-<corpus.py>-<root>``),
    gains the ``coq-stdlib/`` prefix or any file but its own, or differs from its index's files in
    order, imports or premises; or if an environment on the stdlib (option or theorems) gets another."""
    path = default_corpus_path()
    key = f"{code_version()}-{source_hash(CORPUS_MODULE.read_text())[:8]}-{source_hash(str(stdlib_root().resolve()))[:8]}"
    assert path == cache_dir() / "corpus" / f"stdlib-{key}.jsonl"
    index = load_index(stdlib_project(), progress=False)
    lines = [json.loads(line) for line in path.open()]
    assert [line["path"] for line in lines] == list(index.files)
    assert all(line["imports"] == index.files[line["path"]].imports for line in lines)
    assert not any(p.startswith("coq-stdlib/") for line in lines for p in [line["path"], *line["imports"]])
    assert sum(len(line["premises"]) for line in lines) == sum(len(f.declarations) for f in index.files.values())
    assert CoqEnvironment.default_corpus_path() == str(path)
    assert CoqEnvironment.default_corpus_path({"project": "coq-stdlib"}) == str(path)
    assert CoqEnvironment.default_corpus_path({}, [index.theorem("Nat.add_0_l")]) == str(path)


# the project's own proofs that the default prover must learn from, and not from a later one
LEARNS_FROM = """Require Import Foo.A.

Lemma unfold_once : double 1 = 2.
Proof. rewrite double_succ. reflexivity. Qed.

Lemma unfold_later : double 2 = 4.
Proof. cbv [double]. reflexivity. Qed.
"""


def test_default_prover_learns_from_the_projects_own_earlier_proofs(proj):
    """Fails if the default generator of a traced project learns from the stdlib's proofs only
    (``rewrite double_succ.`` of the lemma before is not proposed), if it proposes a theorem's own
    proof or a later lemma's tactic (``cbv [double].``), if an untraced project is not named
    with the command that traces it, or if the kNN premises a run may give ``use:``
    (:func:`prover.coq.default_generator.coq_premises`) do not learn from the project's earlier
    proofs (and only those)."""
    from prover.coq.language import COQ
    from prover.coq.tracer import ensure_traced, traced_data_dir
    from prover.registry import build_generator, build_retriever
    from retrieval.neighbours import NeighbourRetriever
    from search_tree.protocol import TacticState

    _add_file(proj, "theories/E.v", LEARNS_FROM)
    project = load_project(str(proj))
    index = load_index(project, progress=False)
    config = ProverConfig(ComponentSpec("coq"), ComponentSpec("best_first"),
                          ComponentSpec("coq_default", {"hammer": False}), ComponentSpec("bm25"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # configuring the run says nothing: its search's start does
        completed = with_defaults(config, index.theorems())
    assert completed.generator.options["traces"] == []
    for run in (config, completed):  # the defaults, given or filled in
        with pytest.warns(RuntimeWarning) as warned:  # neither this cache's stdlib nor the project is traced
            warn_missing_traces(run, index.theorems())
        assert [str(w.message).split(",")[0] for w in warned] == [
            "the Coq stdlib is not traced here", f"Coq project {project.name} is not traced"]
        assert "dojo-prover trace --env coq --project " in str(warned[1].message)
    assert ensure_traced(out_dir=None, progress=False, project=project).failed == []
    completed = with_defaults(config, index.theorems())
    assert completed.generator.options["traces"] == [str(traced_data_dir(project))]
    with pytest.warns(RuntimeWarning, match="^the Coq stdlib is not traced here") as warned:
        warn_missing_traces(completed, index.theorems())
    assert len(warned) == 1
    chosen = ProverConfig(config.env, config.prover, ComponentSpec("coq_default", {"hammer": False, "traces": []}),
                          config.retriever)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # traces the caller chose: nothing to say about the defaults
        warn_missing_traces(chosen, index.theorems())
    generator = build_generator(completed.generator)
    premises_config = with_defaults(dataclasses.replace(config, retriever=ComponentSpec(KNN_PREMISES)), index.theorems())
    assert premises_config.retriever.options["traces"] == [str(traced_data_dir(project))]
    premises = build_retriever(premises_config.retriever, COQ)
    assert isinstance(premises, NeighbourRetriever)

    def used(name: str, goal: str) -> list[str]:
        return [p.full_name for p, _ in premises.retrieve(f"⊢ {goal}", index.theorem(name), 4)]

    # the `use:` premises learn from the project's proofs too: unfold_once's, before unfold_later,
    # used double_succ; unfold_once's own may not vote for it, and B.v's are not imported by E.v
    assert used("unfold_later", "double 2 = 4") == ["double_succ"]
    assert used("unfold_once", "double 1 = 2") == []

    def proposed(name: str, goal: str) -> list[str]:
        return [" ".join(t.split()) for t, _ in generator.generate(TacticState(f"⊢ {goal}", 0), index.theorem(name), 64)]

    later = proposed("unfold_later", "double 2 = 4")
    assert any("rewrite double_succ" in t for t in later)
    assert not any("cbv [double]" in t for t in later)
    first = proposed("unfold_once", "double 1 = 2")
    assert not any("rewrite double_succ" in t or "cbv [double]" in t for t in first)
