"""Where the installed Coq is: its version, its standard library sources, and this project's cache.

Every job that reads the stdlib (the index, the corpus, the tracer) finds it through here, so one
``coqc`` on PATH decides the version and the sources, and the cache is kept per Coq version.
"""

from __future__ import annotations

import functools
import re
import subprocess
from pathlib import Path

from search_tree.cache import cache_root


@functools.lru_cache(maxsize=1)
def coq_version() -> str:
    """The version of the ``coqc`` on PATH (``8.16.1``); names the cache directory."""
    out = _coqc("--version")
    m = re.search(r"version\s+(\S+)", out)
    if not m:
        raise RuntimeError(f"cannot read the Coq version from `coqc --version`: {out!r}")
    return m.group(1)


@functools.lru_cache(maxsize=1)
def stdlib_root() -> Path:
    """The ``theories/`` directory of the installed standard library."""
    root = Path(_coqc("-where").strip()) / "theories"
    if not root.is_dir():
        raise RuntimeError(f"no Coq standard library sources at {root} (install the `coq` package)")
    return root


def _coqc(arg: str) -> str:
    try:
        return subprocess.run(["coqc", arg], capture_output=True, text=True, check=True).stdout
    except FileNotFoundError:
        raise RuntimeError("coqc is not on PATH: install Coq (`apt-get install -y coq`)") from None


def cache_dir() -> Path:
    """Where indexes and traced data live: ``$DOJO_PROVER_CACHE`` or ``~/.cache/dojo-prover``, per Coq version."""
    base = cache_root()
    return base / f"coq-{coq_version()}"

