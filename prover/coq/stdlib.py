"""The Coq standard library and Coq projects as benchmarks and corpora: the public names in one place.

The standard library is the Coq benchmark and the source of its traced data. Each job has its own
module; this one gathers their public names so that ``from prover.coq.stdlib import ...`` is the
one import callers need:

* :mod:`prover.coq.install`: the installed Coq (version, ``theories/`` root) and the cache directory;
* :mod:`prover.coq.project`: a project (root and load-path flags), the stdlib being one;
* :mod:`prover.coq.build`: compiling a project's stale ``.vo`` files;
* :mod:`prover.coq.vernacular`: vernacular keywords and what a sentence declares, opens or ends;
* :mod:`prover.coq.records`: the index records (files, declarations, theorems);
* :mod:`prover.coq.scanner`: the text scan of one ``.v`` file;
* :mod:`prover.coq.index`: the index of all files with its JSON cache;
* :mod:`prover.coq.split`: the file-level train/val/test split and the benchmark's theorems.
"""

from __future__ import annotations

from .build import BuildReport, build_project, project_index
from .index import CoqIndex, code_version, load_index
from .install import cache_dir, coq_version, stdlib_root
from .project import CoqProject, ProjectError, load_project, stdlib_project
from .records import Declaration, SourceFile, StdlibScanError, TheoremEntry, to_theorem
from .scanner import logical_modules, resolve_require, scan_file, source_hash
from .split import SPLIT_FILE, SPLITS, compute_split, load_split, project_theorems, split_of, stdlib_theorems
from .vernacular import DEFINITION_KEYWORDS, PROOF_ENDS, THEOREM_KEYWORDS, block_sentence

__all__ = [
    "DEFINITION_KEYWORDS", "PROOF_ENDS", "SPLITS", "SPLIT_FILE", "THEOREM_KEYWORDS", "BuildReport", "CoqIndex",
    "CoqProject", "Declaration", "ProjectError", "SourceFile", "StdlibScanError", "TheoremEntry",
    "block_sentence", "build_project", "cache_dir", "code_version", "compute_split", "coq_version", "load_index",
    "load_project", "load_split", "logical_modules", "project_index", "project_theorems", "resolve_require",
    "scan_file", "source_hash", "split_of", "stdlib_project", "stdlib_root", "stdlib_theorems", "to_theorem",
]
