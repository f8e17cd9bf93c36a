"""The environment a Coq process gets (:func:`prover.coq.sandbox.sandbox_env`); no Coq needed."""

from __future__ import annotations

import os

from prover.coq.sandbox import PREFIX, sandbox_dir, sandbox_env


def test_home_tmp_and_configuration_lie_inside_the_sandbox(tmp_path):
    """Fails if a Coq process could write into the caller's home, temporary directory or
    configuration (``coqrc``), run a program from its working directory through a relative PATH
    entry, or lose the user's installed libraries (``XDG_DATA_HOME``)."""
    base = {"HOME": "/home/user", "PATH": f"/usr/bin{os.pathsep}.{os.pathsep}{os.pathsep}bin{os.pathsep}/opt/x",
            "TMPDIR": "/tmp", "XDG_CONFIG_HOME": "/home/user/.config", "LANG": "C.UTF-8"}
    env = sandbox_env(tmp_path, base)
    root = str(tmp_path.resolve())
    assert env["HOME"] == root
    assert env["TMPDIR"] == env["TMP"] == env["TEMP"] == root + "/tmp" and (tmp_path / "tmp").is_dir()
    assert env["XDG_CONFIG_HOME"] == root + "/.config" and env["XDG_CACHE_HOME"] == root + "/.cache"
    assert env["XDG_DATA_HOME"] == "/home/user/.local/share"
    assert env["PATH"] == f"/usr/bin{os.pathsep}/opt/x"
    assert env["LANG"] == "C.UTF-8" and base["HOME"] == "/home/user"  # the rest kept, the base untouched
    assert sandbox_env(tmp_path, {**base, "XDG_DATA_HOME": "/data"})["XDG_DATA_HOME"] == "/data"


def test_sandbox_dir_is_private_and_removed():
    """Fails if the directory is shared (not 0700) or outlives its use."""
    with sandbox_dir("check") as path:
        assert path.name.startswith(PREFIX + "check-") and (path.stat().st_mode & 0o777) == 0o700
        (path / "left").write_text("x")
    assert not path.exists()
