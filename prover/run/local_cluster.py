"""A Ray cluster of several nodes on this machine, started with ``ray start`` as on separate machines.

For trying a cluster run, for the tests that lose a node, and for measuring what going through a
cluster costs (``benchmarks/distributed_throughput.py``). Each node is one ``ray start --block``
process in a session of its own, so that killing the session's processes takes down that node
alone (its raylet, its agents and its workers), as a machine that fails would; ``ray stop`` is
never used because it stops every Ray on the machine, other users' included.

Every port is chosen free (two nodes on one machine would otherwise both take Ray's fixed default
ports), and the head keeps its files under its own temporary directory, so the cluster neither
collides with nor is joined by another Ray on the machine (``ray.init()`` joins the cluster named
in ``/tmp/ray``, which this one never writes).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class LocalNode:
    """One node: its name (one unit of the custom resource :func:`resource` marks it), process and log."""

    name: str
    process: subprocess.Popen
    log: Path
    node_id: str = ""


@dataclass
class LocalCluster:
    """``with LocalCluster(tmp) as cluster: cluster.add_node("head", 2); cluster.add_node("b", 2)``;
    the first node added is the head. Leaving the block kills every node."""

    temp_dir: Path
    nodes: list[LocalNode] = field(default_factory=list)
    port: int = field(default_factory=free_port)
    _taken: set[int] = field(default_factory=set, init=False, repr=False)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def __post_init__(self) -> None:
        self._taken.add(self.port)

    def _free_port(self) -> int:
        """A free port that no other process of this cluster was given: two calls of :func:`free_port`
        may return the same port, and a node whose two servers share one never comes up."""
        while (port := free_port()) in self._taken:
            pass
        self._taken.add(port)
        return port

    def add_node(self, name: str, cpus: int, env: dict[str, str] | None = None, timeout: float = 120.0,
                 attempts: int = 2) -> LocalNode:
        """Start a node with ``cpus`` CPUs (and the environment ``env`` instead of this process's)
        and wait until the cluster lists it alive; returns it with its Ray node id.

        A node that has not joined within ``timeout`` is killed and started again on fresh ports, up
        to ``attempts`` times (on a loaded machine a head has been seen never to answer); the error
        after the last attempt quotes the end of the node's log."""
        if attempts < 1:
            raise ValueError(f"attempts must be at least 1, not {attempts}")
        attempt = 1
        while True:
            node = self._start(name, cpus, env)
            try:
                node.node_id = self._wait_for(node, timeout)
                return node
            except (TimeoutError, RuntimeError) as error:
                self.kill(node)
                self.nodes.remove(node)
                if not self.nodes:
                    self.port = self._free_port()
                if attempt == attempts:
                    tail = node.log.read_text(errors="replace")[-2000:] if node.log.exists() else ""
                    raise RuntimeError(f"{error} (after {attempts} attempts); its log ends:\n{tail}") from None
                attempt += 1

    def _start(self, name: str, cpus: int, env: dict[str, str] | None) -> LocalNode:
        ray = str(Path(sys.executable).with_name("ray"))
        port = self._free_port
        args = [ray, "start", "--block", "--node-ip-address", "127.0.0.1", "--num-cpus", str(cpus),
                "--resources", json.dumps({resource(name): 1}), "--disable-usage-stats",
                "--node-manager-port", str(port()), "--object-manager-port", str(port()),
                "--dashboard-agent-listen-port", str(port()), "--dashboard-agent-grpc-port", str(port()),
                "--metrics-export-port", str(port()), "--runtime-env-agent-port", str(port())]
        if self.nodes:
            args += ["--address", self.address]
        else:
            self.temp_dir.mkdir(parents=True, exist_ok=True)
            args += ["--head", "--port", str(self.port), "--temp-dir", str(self.temp_dir),
                     "--include-dashboard", "false", "--ray-client-server-port", str(port()),
                     "--dashboard-port", str(port())]
        environ = dict(os.environ if env is None else env)
        environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "1"  # a node may join; set to 0 elsewhere for local Ray
        log = self.temp_dir.parent / f"{self.temp_dir.name}-{name}.log"
        with open(log, "wb") as out:
            process = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, env=environ,
                                       start_new_session=True)
        node = LocalNode(name, process, log)
        self.nodes.append(node)
        return node

    def _wait_for(self, node: LocalNode, timeout: float, probe_timeout: float = 30.0) -> str:
        """The id of the alive node carrying ``node``'s resource, once the cluster lists it.

        Each look is a fresh driver given ``probe_timeout`` seconds: ``ray.init`` against a head
        that is not serving yet can hang, and one hung look must not spend the whole ``timeout``."""
        deadline = time.monotonic() + timeout
        script = ("import json, ray; ray.init(address=%r, log_to_driver=False); "
                  "print(json.dumps([n['NodeID'] for n in ray.nodes() if n['Alive'] and %r in n['Resources']]))"
                  % (self.address, resource(node.name)))
        environ = dict(os.environ, RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0")
        while time.monotonic() < deadline:
            if node.process.poll() is not None:
                raise RuntimeError(f"ray start for node {node.name} exited with {node.process.returncode}; "
                                   f"see {node.log}")
            if not _listening(self.port):
                time.sleep(0.5)
                continue
            try:
                done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environ,
                                      timeout=min(probe_timeout, max(deadline - time.monotonic(), 1.0)),
                                      check=False)
            except subprocess.TimeoutExpired:
                continue
            found = json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 and done.stdout.strip() else []
            if found:
                return str(found[0])
            time.sleep(1.0)
        raise TimeoutError(f"node {node.name} did not join the cluster at {self.address} within {timeout:g}s; "
                           f"see {node.log}")

    def kill(self, node: LocalNode) -> None:
        """Kill every process of ``node`` at once (SIGKILL to its session), as if its machine failed."""
        try:
            os.killpg(node.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        node.process.wait(timeout=30)

    def close(self) -> None:
        """Kill every node, the head last."""
        for node in reversed(self.nodes):
            self.kill(node)
        self.nodes = []

    def __enter__(self) -> LocalCluster:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


def _listening(port: int) -> bool:
    """Whether something on this machine accepts connections on ``port`` (the head's GCS, once up)."""
    with socket.socket() as s:
        s.settimeout(1.0)
        return s.connect_ex(("127.0.0.1", port)) == 0


def resource(name: str) -> str:
    """The custom resource that marks node ``name`` (one unit, on that node only)."""
    return f"local_node_{name}"
