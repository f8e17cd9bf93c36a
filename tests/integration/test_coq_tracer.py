"""Tracing real stdlib files in coqtop: the records must match the files' proofs."""

import json
import re

import pytest
from traced_fixtures import traced_stdlib

pytestmark = pytest.mark.coq

FILES = ["Arith/Between.v", "Init/Specif.v"]  # a section with variables; a -noinit file with premises


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    from prover.coq.tracer import ensure_traced

    with traced_stdlib(tmp_path_factory, FILES) as (index, out, summary):
        again = ensure_traced(FILES, out_dir=out, progress=False)
        yield index, out, summary, again


def squash(term: str) -> str:
    return re.sub(r"[\s()]", "", re.sub(r"\s*:\s*\w+\b", "", term))


def records(out):
    recs = []
    for split in ("train", "val", "test"):
        recs += json.loads((out / f"{split}.json").read_text())
    return recs


def test_summary_and_resume(traced):
    index, out, summary, again = traced
    assert summary.failed == [] and summary.traced == len(FILES)
    assert summary.theorems == sum(len(index.file(p).theorems) for p in FILES)
    assert summary.steps_now == summary.tactics > 50
    # a second call finds every file in the cache and traces nothing
    assert again.traced == 0 and again.theorems == summary.theorems
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["tactics"] == summary.tactics and meta["failed_files"] == []


def test_records_match_the_source_proofs(traced):
    index, out, _, _ = traced
    recs = {(r["file_path"], r["full_name"]): r for r in records(out)}
    for path in FILES:
        f = index.file(path)
        text = (index.root / path).read_text()
        for thm in f.theorems:
            rec = recs[(path, thm.full_name)]
            assert rec["start"] == list(thm.start) and rec["end"] == list(thm.end)
            assert set(rec) == {"url", "commit", "file_path", "full_name", "start", "end", "traced_tactics"}
            tactics = [t["tactic"] for t in rec["traced_tactics"]]
            expected = [" ".join(text[a:b].split()) for a, b in thm.proof if not text[a:b].startswith("Proof")]
            assert [" ".join(t.split()) for t in tactics] == expected, thm.full_name
            steps = rec["traced_tactics"]
            for before, after in zip(steps, steps[1:]):
                assert before["state_after"] == after["state_before"]
            assert steps[-1]["state_after"] == "no goals"
            # the first state is the statement's goal (for statements "Lemma name : type."), up to
            # how Coq reprints binders: "forall k l (m:nat)," is "forall k l m : nat,", and it may
            # regroup binders of the same type
            m = re.fullmatch(r"\w+\s+[\w']+\s*:\s*(.*)\.", thm.statement, re.S)
            if m:
                target = steps[0]["state_before"].split("============================\n")[-1]
                assert squash(target) == squash(m.group(1)), thm.full_name


def test_annotated_premises_resolve_in_the_corpus(traced):
    _, out, summary, _ = traced
    corpus = {}
    for line in (out / "corpus.jsonl").read_text().splitlines():
        rec = json.loads(line)
        corpus[rec["path"]] = rec["premises"]
    annotated = 0
    for rec in records(out):
        for step in rec["traced_tactics"]:
            text, premises = step["annotated_tactic"]
            assert re.sub(r"</?a>", "", text) == step["tactic"]
            marked = re.findall(r"<a>(.*?)</a>", text)
            assert len(marked) == len(premises)
            for name, p in zip(marked, premises):
                annotated += 1
                assert p["full_name"].split(".")[-1] == name.split(".")[-1]
                # LeanDojo's def_pos points into the premise's span in the corpus
                (hit,) = [c for c in corpus[p["def_path"]] if c["full_name"] == p["full_name"]
                          and c["start"] <= p["def_pos"] <= c["end"]]
                assert hit["end"] >= p["def_end_pos"]
    assert annotated >= 5 and summary.annotated_tactics >= 5


def test_first_state_matches_the_environment(traced):
    """The backend opening a theorem by itself must show the state the tracer recorded."""
    from prover.coq.env import CoqEnvironment

    index, out, _, _ = traced
    recs = [r for r in records(out) if r["file_path"] == "Arith/Between.v"]
    assert len(recs) == len(index.file("Arith/Between.v").theorems)
    with CoqEnvironment(index=index) as env:
        for rec in recs:
            with env.open(index.theorem(f"Coq.Arith.Between.{rec['full_name']}")) as (_, state):
                assert state.pp == rec["traced_tactics"][0]["state_before"]


def test_trace_command(traced, capsys):
    from prover.cli import main

    _, out, summary, _ = traced
    assert main(["trace", "--env", "coq", "--files", "Arith/Betw*.v", "Init/Specif.v", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"theorems: {summary.theorems}, tactics: {summary.tactics}" in printed
    assert "2 requested, 0 traced now, 0 failed" in printed
    assert main(["trace", "--files", "Nope/*.v", "--out", str(out)]) == 2
    assert "--files 'Nope/*.v' matches no file" in capsys.readouterr().err


def test_unreadable_goals_lose_one_theorem_not_the_file(tmp_path, monkeypatch):
    """A state the goal parser cannot read skips that theorem; the rest of the file is traced."""
    from prover.coq import tracer
    from prover.coq.corpus import PremiseResolver
    from prover.coq.goals import GoalParseError
    from prover.coq.stdlib import load_index

    monkeypatch.setenv("DOJO_PROVER_CACHE", str(tmp_path))
    index = load_index(progress=False)
    real = tracer.parse_view

    def picky(output):
        if "between (S k) l" in output:  # only in the goals of between_Sk_l
            raise GoalParseError("simulated")
        return real(output)

    monkeypatch.setattr(tracer, "parse_view", picky)
    trace = tracer.trace_file(index, PremiseResolver(index), "Arith/Between.v")
    assert trace.error is None
    assert len(trace.skipped) == 1 and "Between.v:44:3" in trace.skipped[0] and "simulated" in trace.skipped[0]
    names = [r["full_name"] for r in trace.theorems]
    assert "between_Sk_l" not in names and len(names) == len(index.file("Arith/Between.v").theorems) - 1
