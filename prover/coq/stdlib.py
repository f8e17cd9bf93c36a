"""The Coq standard library as this project's benchmark and corpus: the public names in one place.

The standard library is the Coq benchmark and the source of its traced data. Each job has its own
module; this one gathers their public names so that ``from prover.coq.stdlib import ...`` is the
one import callers need:

* :mod:`prover.coq.install`: the installed Coq (version, ``theories/`` root) and the cache directory;
* :mod:`prover.coq.vernacular`: vernacular keywords and what a sentence declares, opens or ends;
* :mod:`prover.coq.records`: the index records (files, declarations, theorems);
* :mod:`prover.coq.scanner`: the text scan of one ``.v`` file;
* :mod:`prover.coq.index`: the index of all files with its JSON cache;
* :mod:`prover.coq.split`: the file-level train/val/test split and the benchmark's theorems.
"""

from __future__ import annotations

from .index import StdlibIndex, code_version, load_index
from .install import cache_dir, coq_version, module_name, stdlib_root
from .records import Declaration, SourceFile, StdlibScanError, TheoremEntry, to_theorem
from .scanner import logical_modules, resolve_require, scan_file, source_hash
from .split import SPLIT_FILE, SPLITS, compute_split, load_split, split_of, stdlib_theorems
from .vernacular import DEFINITION_KEYWORDS, PROOF_ENDS, THEOREM_KEYWORDS, block_sentence

__all__ = [
    "DEFINITION_KEYWORDS", "PROOF_ENDS", "SPLITS", "SPLIT_FILE", "THEOREM_KEYWORDS", "Declaration", "SourceFile",
    "StdlibIndex", "StdlibScanError", "TheoremEntry", "block_sentence", "cache_dir", "code_version",
    "compute_split", "coq_version", "load_index", "load_split", "logical_modules", "module_name", "resolve_require",
    "scan_file", "source_hash", "split_of", "stdlib_root", "stdlib_theorems", "to_theorem",
]
