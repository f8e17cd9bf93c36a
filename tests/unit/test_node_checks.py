"""The pure parts of checking cluster nodes (prover/run/nodes.py): what a configuration needs, what a
node lacks of it in one line, and how workers spread over the nodes; and the retry counts of a run."""

from __future__ import annotations

import dataclasses
import json
import sys

import pytest

from prover.registry import ComponentSpec, ProverConfig
from prover.run.analysis import stop_kind
from prover.run.evaluation import RunProgress
from search_tree import StopKind, StopReason
from prover.run.nodes import (
    DataFile,
    NodeCheck,
    NodeFacts,
    NodeRequirements,
    named_data,
    plan_slots,
    requirements,
    shortfalls,
    survey,
    tree_fingerprint,
)

REQ = NodeRequirements(
    python="3.11",
    distributions=(("numpy", "2.0.1"), ("torch", "2.13.0")),
    tools=(("coqtop", "The Coq Proof Assistant, version 8.16.1"), ("/usr/libexec/coq-hammer/htimeout", "")),
    additions=("hammer", "lia"),
    libraries=(("/usr/lib/coq/user-contrib/Hammer", "abc"),),
    data=(DataFile("/data/corpus.jsonl", "f1", "retriever.corpus"),),
)
FACTS = NodeFacts(
    python="3.11",
    distributions={"numpy": "2.0.1", "torch": "2.13.0"},
    tools={"coqtop": "The Coq Proof Assistant, version 8.16.1", "/usr/libexec/coq-hammer/htimeout": ""},
    additions=("hammer", "lia"),
    libraries={"/usr/lib/coq/user-contrib/Hammer": "abc"},
    data={"/data/corpus.jsonl": "f1"},
)


def test_a_node_with_everything_lacks_nothing():
    assert shortfalls(REQ, FACTS) == []


@pytest.mark.parametrize("change, expected", [
    ({"python": "3.10"}, "Python 3.10 (the driver's is 3.11)"),
    ({"distributions": {"numpy": "2.0.1", "torch": None}}, "torch 2.13.0 not installed"),
    ({"distributions": {"numpy": "1.26.4", "torch": "2.13.0"}}, "numpy 1.26.4 (the driver's is 2.0.1)"),
    ({"tools": {**FACTS.tools, "coqtop": None}}, "coqtop not found on PATH"),
    ({"tools": {**FACTS.tools, "/usr/libexec/coq-hammer/htimeout": None}}, "/usr/libexec/coq-hammer/htimeout not found"),
    ({"tools": {**FACTS.tools, "coqtop": "The Coq Proof Assistant, version 8.18.0"}},
     "coqtop is 'The Coq Proof Assistant, version 8.18.0' (the driver's is "
     "'The Coq Proof Assistant, version 8.16.1')"),
    ({"additions": ("lia",)}, "the prover refuses the context additions hammer"),
    ({"libraries": {"/usr/lib/coq/user-contrib/Hammer": None}}, "library /usr/lib/coq/user-contrib/Hammer not installed"),
    ({"libraries": {"/usr/lib/coq/user-contrib/Hammer": "xyz"}},
     "library /usr/lib/coq/user-contrib/Hammer differs from the driver's"),
    ({"data": {"/data/corpus.jsonl": None}}, "retriever.corpus /data/corpus.jsonl absent (copy it from the driver)"),
    ({"data": {"/data/corpus.jsonl": "f2"}},
     "retriever.corpus /data/corpus.jsonl differs from the driver's copy (copy it from the driver)"),
])
def test_each_shortfall_is_named(change, expected):
    assert shortfalls(REQ, dataclasses.replace(FACTS, **change)) == [expected]


def test_a_node_without_coq_is_not_also_blamed_for_refusing_additions():
    facts = dataclasses.replace(FACTS, tools={**FACTS.tools, "coqtop": None}, additions=())
    assert shortfalls(dataclasses.replace(REQ, tools=REQ.tools[:1]), facts) == ["coqtop not found on PATH"]


def test_the_line_names_the_node_and_everything_it_lacks():
    check = NodeCheck("0123456789abcdef", "10.0.0.7", {"CPU": 8.0}, ("coqtop not found on PATH", "torch 2.13.0 not installed"))
    assert not check.usable
    assert check.line() == "node 10.0.0.7 (01234567) gets no tasks: coqtop not found on PATH; torch 2.13.0 not installed"
    assert NodeCheck("n", "h").usable


def test_workers_go_where_most_room_is_left():
    capacities = {"a": 4.0, "b": 2.0}
    placed: list[str] = []
    for _ in range(6):
        placed.append(plan_slots(capacities, placed))
    assert placed == ["a", "a", "a", "b", "a", "b"]
    assert plan_slots({"a": 2.0, "b": 2.0}, []) == "a"  # ties go to the first listed
    assert plan_slots({"a": 2.0, "b": 2.0}, ["a"]) == "b"
    with pytest.raises(ValueError):
        plan_slots({}, [])


def test_named_data_finds_every_option_that_names_a_path(tmp_path):
    corpus, traces = tmp_path / "corpus.jsonl", tmp_path / "traces"
    corpus.write_text('{"x": 1}\n')
    traces.mkdir()
    (traces / "train.json").write_text("[]")
    config = ProverConfig(ComponentSpec("synthetic"), ComponentSpec("best_first", {"timeout": 5}),
                          ComponentSpec("knn", {"traces": [str(traces), str(tmp_path / "absent")]}),
                          ComponentSpec("bm25", {"corpus": str(corpus), "k1": 1.5}))
    found = {d.option: d for d in named_data(config)}
    assert set(found) == {"generator.traces", "retriever.corpus"}
    assert found["retriever.corpus"] == DataFile(str(corpus), tree_fingerprint(str(corpus)), "retriever.corpus")
    assert found["generator.traces"].path == str(traces)


def test_fingerprints_follow_content_not_place(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    for root in (one, two):
        (root / "sub").mkdir(parents=True)
        (root / "sub" / "a.json").write_text("[1, 2]")
    assert tree_fingerprint(str(one)) == tree_fingerprint(str(two)) != ""
    (two / "sub" / "a.json").write_text("[1, 3]")  # same size, other bytes
    assert tree_fingerprint(str(one)) != tree_fingerprint(str(two))
    assert tree_fingerprint(str(one), contents=False) == tree_fingerprint(str(two), contents=False)
    assert tree_fingerprint(str(tmp_path / "absent")) == ""


def test_the_driver_meets_its_own_requirements(tmp_path):
    """What the driver computes, its own machine has: the survey and the requirements agree."""
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"name": "x"}) + "\n")
    config = ProverConfig(ComponentSpec("synthetic"), ComponentSpec("best_first"), ComponentSpec("synthetic"),
                          ComponentSpec("bm25", {"corpus": str(corpus)}))
    req = requirements(config)
    assert req.python == f"{sys.version_info[0]}.{sys.version_info[1]}" and not req.tools
    assert shortfalls(req, survey(req)) == []
    corpus.write_text("")
    assert shortfalls(req, survey(req)) == [f"retriever.corpus {corpus} differs from the driver's copy "
                                            "(copy it from the driver)"]


def test_retries_are_counted_by_kind():
    progress = RunProgress(total=3, done_before=0)
    progress.count_retries([StopReason(StopKind.NODE_LOST, "node 10.0.0.7 (01234567) left the cluster"),
                            StopReason(StopKind.WORKER_DIED, "killed")])
    progress.count_retries([StopReason(StopKind.NODE_LOST, "node 10.0.0.8 (89abcdef) left the cluster")])
    assert progress.retried == {"node_lost": 2, "worker_died": 1}
    assert stop_kind("environment_failure: coqtop died") == "environment_failure"
    assert stop_kind("no_such_kind: edited by hand") == stop_kind(None) == "unknown"


def test_retries_and_their_reasons_reach_results_watch_and_report(tmp_path, capsys, monkeypatch):
    from prover.benchmarks.registry import load_benchmark
    from prover.cli import main
    from prover.run.analysis import load_run, retries_line
    from prover.run.evaluation import EvalConfig, run_evaluation

    monkeypatch.setenv("COLUMNS", "200")
    theorems = load_benchmark("synthetic:30", 3)
    (tmp_path / "once").mkdir()
    env = ComponentSpec("synthetic", {"faults": {theorems[1].full_name: "fatal"}, "fault_once_dir": str(tmp_path / "once")})
    config = EvalConfig(ProverConfig(env, ComponentSpec("best_first", {"max_expansions": 6}), ComponentSpec("synthetic")),
                        "synthetic:30", limit=3)
    progress = run_evaluation(config, theorems, tmp_path / "run", progress=False)
    assert progress.retried == {"environment_failure": 1}
    [record] = [r for r in load_run(tmp_path / "run").records if r["retries"]]
    assert record["key"] == theorems[1].full_name and record["node"] == ""
    assert [stop_kind(reason) for reason in record["retry_reasons"]] == ["environment_failure"]
    assert retries_line(load_run(tmp_path / "run").records) == "retried 1 (environment_failure 1)"
    assert retries_line([{"retries": 2}]) == "retried 2 (unknown 2)"  # a record from before reasons were kept
    assert main(["watch", str(tmp_path / "run"), "--once"]) == 0
    assert "retried 1 (environment_failure 1)" in capsys.readouterr().out
    assert main(["report", str(tmp_path / "run")]) == 0
    assert "attempts retried 1 (environment_failure 1) after" in (tmp_path / "run" / "report.md").read_text()


def test_a_cluster_address_that_is_malformed_or_silent_is_one_line_at_once():
    import socket
    import time

    from prover.cli import is_bad_input
    from prover.run.distributed import ClusterUnreachable, check_reachable

    with pytest.raises(ClusterUnreachable, match=r"'head-node' \(--ray-address or RAY_ADDRESS\) is not HOST:PORT"):
        check_reachable("head-node")
    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.monotonic()
    with pytest.raises(ClusterUnreachable, match=rf"nothing answers at the Ray cluster address 127.0.0.1:{port} ") as err:
        check_reachable(f"127.0.0.1:{port}")
    assert time.monotonic() - t0 < 5 and is_bad_input(err.value) and "\n" not in str(err.value)
    check_reachable("ray://head:10001")  # Ray Client addresses are Ray's to check
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        check_reachable(f"127.0.0.1:{listening.getsockname()[1]}")


def test_eval_with_a_silent_cluster_address_exits_2_and_records_nothing(tmp_path, capsys):
    import socket

    from prover.cli import main

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert main(["eval", "--env", "synthetic", "--benchmark", "synthetic:3", "--generator", "synthetic",
                 "--workers", "2", "--ray-address", f"127.0.0.1:{port}", "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"dojo-prover eval: error: nothing answers at the Ray cluster "
                                                f"address 127.0.0.1:{port} (--ray-address or RAY_ADDRESS)")
    assert not (tmp_path / "run" / "config.json").exists()
