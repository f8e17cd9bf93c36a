"""``dojo-prover eval --ray-address`` on a real two-node Ray cluster started with ``ray start``.

The cluster runs on this machine (:class:`prover.run.local_cluster.LocalCluster`): a head with 2
CPUs for the module, and per test a second node that is then killed with all its processes, as a
failed machine would be, or that lacks Coq. Searches are made to last a few seconds each (a tactic
that idles until its ``timeout``), so that a task is in flight on the second node when it dies.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from prover.run.local_cluster import LocalCluster

# Two Ray nodes started beside another xdist worker's Ray time out joining (seen on 2 cores): CI runs
# these after the parallel tests (README's test command, `-m alone`).
pytestmark = pytest.mark.alone

ROOT = Path(__file__).resolve().parents[2]
THEOREMS = ["diff_true_false", "diff_false_true", "eq_true_false_abs", "not_true_is_false",
            "not_false_is_true", "not_true_iff_false"]
#: a first tactic that idles for 3 s, then ones that prove some of the theorems
TACTICS = ["try (timeout 3 (do 100000000 idtac)).", "discriminate.", "intros.", "auto."]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with LocalCluster(tmp_path_factory.mktemp("ray") / "t") as cluster:
        cluster.add_node("head", 2)
        yield cluster
    leaked = _processes_mentioning(str(cluster.temp_dir))
    assert not leaked, f"Ray processes left running: {leaked}"


def _processes_mentioning(text: str) -> list[str]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in cmdline and int(pid) != os.getpid():
            found.append(f"{pid}: {cmdline[:120]}")
    return found


def _benchmark(tmp_path: Path, names: list[str]) -> Path:
    listing = tmp_path / "bool.jsonl"
    listing.write_text("".join(json.dumps({"project": "coq-stdlib", "file": "Bool/Bool.v", "name": n}) + "\n"
                               for n in names))
    return listing


def _eval(cluster: LocalCluster, benchmark: Path, out: Path, log: Path) -> subprocess.Popen:
    command = [sys.executable, "-m", "prover.cli", "eval", "--env", "coq", "--benchmark", str(benchmark),
               "--generator", "fixed", "--generator-opt", f"tactics={json.dumps(TACTICS)}",
               "--timeout", "60", "--max-expansions", "2", "--workers", "2", "--no-progress",
               "--ray-address", cluster.address, "--out", str(out)]
    return subprocess.Popen(command, cwd=ROOT, stdout=open(log, "wb"), stderr=subprocess.STDOUT)


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.endswith("}")] if path.exists() else []


def test_a_lost_node_costs_its_tasks_a_retry_on_the_other_node(cluster, tmp_path):
    head = cluster.nodes[0]
    second = cluster.add_node("second", 2)
    out, log = tmp_path / "run", tmp_path / "eval.log"
    driver = _eval(cluster, _benchmark(tmp_path, THEOREMS), out, log)
    try:
        deadline = time.monotonic() + 150
        while True:  # kill the second node once it has finished a theorem and is proving another
            assert driver.poll() is None, f"eval ended before the second node could be killed:\n{log.read_text()}"
            assert time.monotonic() < deadline, f"no second task on the second node:\n{log.read_text()}"
            done = {r["key"] for r in _lines(out / "results.jsonl") if r["node"] == second.node_id}
            running = [s for s in _lines(out / "starts.jsonl") if s["node"] == second.node_id and s["key"] not in done]
            if done and running:
                break
            time.sleep(0.2)
        cluster.kill(second)
        assert driver.wait(timeout=180) == 0, log.read_text()
    finally:
        if driver.poll() is None:
            driver.kill()
    records = _lines(out / "results.jsonl")
    assert sorted(r["key"].split("::")[1] for r in records) == sorted(THEOREMS)
    assert {r["node"] for r in records} == {head.node_id, second.node_id}
    retried = [r for r in records if r["retries"]]
    assert [r["key"] for r in retried] == [s["key"] for s in running]
    for record in retried:
        assert record["node"] == head.node_id
        [reason] = record["retry_reasons"]
        assert re.fullmatch(rf"node_lost: node \S+ \({second.node_id[:8]}\) left the cluster", reason), reason
        assert not record["result"]["stop_reason"].startswith("node_lost")  # the retry ran the search
    assert f"retried now: node_lost {len(retried)}" in log.read_text()


def test_a_node_without_coq_gets_no_tasks_and_is_named_in_one_line(cluster, tmp_path):
    head = cluster.nodes[0]
    tools = tmp_path / "bin"  # the shell Ray starts workers with, and no Coq
    tools.mkdir()
    for tool in ("bash", "sh"):
        (tools / tool).symlink_to(shutil.which(tool))
    no_coq = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{tools}")
    assert not any((Path(sys.executable).parent / tool).exists() for tool in ("coqtop", "coqc", "coqchk"))
    bare = cluster.add_node("bare", 2, env=no_coq)
    try:
        out, log = tmp_path / "run", tmp_path / "eval.log"
        driver = _eval(cluster, _benchmark(tmp_path, THEOREMS[:2]), out, log)
        assert driver.wait(timeout=180) == 0, log.read_text()
    finally:
        cluster.kill(bare)
    reason = (rf"node \S+ \({bare.node_id[:8]}\) gets no tasks: coqtop not found on PATH; "
              "coqc not found on PATH; coqchk not found on PATH")
    [line] = [line for line in log.read_text().splitlines() if re.fullmatch(reason, line)]
    assert {r["node"] for r in _lines(out / "results.jsonl")} == {head.node_id}
    assert len(_lines(out / "results.jsonl")) == 2
    assert json.loads((out / "config.json").read_text())["execution"]["nodes_left_out"] == [line]


def test_a_node_that_never_joins_is_started_again_then_named_with_the_end_of_its_log(tmp_path):
    temp_dir = tmp_path / "t"
    with LocalCluster(temp_dir) as cluster:
        with pytest.raises(RuntimeError, match=r"(?s)(did not join|exited with).*after 2 attempts.*its log ends:\n.+"):
            cluster.add_node("head", -1, timeout=5)  # Ray refuses a negative CPU count
        assert cluster.nodes == []
    assert not _processes_mentioning(str(temp_dir))
