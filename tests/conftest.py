"""The test session's environment, set before any test module imports the package.

* Offline, local-only Ray and no remote caches, as in ``.ci/run``.
* Its own cache root, ``.test-cache/`` in the checkout (ignored by git): the tests never read or
  write the user's ``~/.cache/dojo-prover``, so what they see is what a fresh CI machine sees (no
  traced stdlib unless a test traces it), while the stdlib index, built on first use, is kept for
  the next run of this checkout. Parallel workers (``-n 2``) may build it at once: the index and
  corpus writers each write their own temporary file and rename it into place.
* The ``shared_data`` marker (:mod:`shared_data`): skipped where the data is absent, failed in CI.
"""

import os
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
TEST_CACHE = TESTS.parent / ".test-cache"

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("RAY_AUTH_MODE", "disabled")
os.environ.setdefault("DISABLE_REMOTE_CACHE", "1")
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # local Ray over loopback only
os.environ["DOJO_PROVER_CACHE"] = str(TEST_CACHE)  # not setdefault: a user's own cache stays untouched
sys.path.insert(0, str(TESTS))

pytest_plugins = ["shared_data", "pytester"]
