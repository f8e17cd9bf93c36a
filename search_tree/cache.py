"""The one reader of the cache root, where indexes, traced data and embeddings are kept.

Every package that caches (the Coq stdlib index, dense-retrieval embeddings) asks
:func:`cache_root` and adds its own sub-directory, so that ``$DOJO_PROVER_CACHE`` moves all of
them at once. It lives in :mod:`search_tree`, the package every other imports, and reads the
environment on each call so that a test (or a user) can point it elsewhere at run time.
"""

from __future__ import annotations

import os
from pathlib import Path

CACHE_VARIABLE = "DOJO_PROVER_CACHE"


def cache_root() -> Path:
    """``$DOJO_PROVER_CACHE`` when set and not empty, else ``~/.cache/dojo-prover``."""
    return Path(os.environ.get(CACHE_VARIABLE) or Path.home() / ".cache" / "dojo-prover")
