"""What a Ray cluster node needs to run the Coq backend (its ``Backend.node_needs``, read by
:mod:`prover.run.nodes`, which checks each node before it gets tasks).

Coq's own programs, at the driver's versions; with CoqHammer among the context additions, the ATPs
it calls (Z3 and Vampire are unset, :mod:`prover.coq.additions`), its helper programs and its
library; the additions the driver's Coq accepts, which the node's must accept too; and the traced
stdlib a generator given no traces learns from, when the driver has one.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: the programs every Coq worker runs
TOOLS = ("coqtop", "coqc", "coqchk")
#: the ATPs CoqHammer calls as the Coq backend configures it


def library(name: str) -> str:
    """The directory of an installed Coq library (``user-contrib/NAME`` under ``coqc -where``)."""
    where = subprocess.run(["coqc", "-where"], capture_output=True, text=True, timeout=60, check=False).stdout.strip()
    return str(Path(where) / "user-contrib" / name)


class CoqNodeNeeds:
    """The Coq backend's ``prover.backend.NodeNeeds``."""

    def additions(self, env_options: Mapping[str, Any]) -> tuple[str, ...]:
        """The context additions ``env_options`` asks for that this machine's Coq accepts."""
        from .additions import available, names

        return available(names(env_options.get("additions")))[0]

    def programs(self, additions: tuple[str, ...]) -> list[str]:
        """Coq's programs, and with ``hammer`` CoqHammer's ATPs and helpers (by path)."""
        from .sandbox import HAMMER_ATPS, HAMMER_LIBEXEC

        programs = list(TOOLS)
        if any(name.startswith("hammer") for name in additions):
            programs += [*HAMMER_ATPS, *(str(Path(HAMMER_LIBEXEC) / helper) for helper in ("htimeout", "predict"))]
        return programs

    def libraries(self, additions: tuple[str, ...]) -> list[str]:
        """CoqHammer's library directory when ``hammer`` is among ``additions``."""
        return [library("Hammer")] if any(name.startswith("hammer") for name in additions) else []

    def default_data(self, generator_options: Mapping[str, Any] | None) -> list[tuple[str, str, str]]:
        """The traced stdlib a Coq generator learns from when its ``traces`` option is None (it then
        reads the tracer's output directory, :func:`prover.coq.tracer.traced_data_dir`, when there
        is one), as ``(path, option, remedy)``: a node must hold the same, or its workers would
        search without what the driver's learn."""
        if generator_options is None or "traces" not in generator_options or generator_options["traces"]:
            return []
        from .tracer import traced_data_dir

        traced = traced_data_dir()
        if not traced.exists():
            return []
        return [(str(traced), "generator.traces (default)",
                 "copy it from the driver, or run `dojo-prover trace --env coq` there")]


NODE_NEEDS = CoqNodeNeeds()
