"""The environment a Coq process gets (:func:`prover.coq.sandbox.sandbox_env`) and what it may write
(:func:`prover.coq.sandbox.confined`, the kernel's Landlock); no Coq needed."""

from __future__ import annotations

import os
import subprocess

import pytest

import prover.coq.build as build
from prover.coq.project import CoqProject, LoadPath, ProjectError
from prover.coq.sandbox import PREFIX, can_confine, confined, sandbox_dir, sandbox_env


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


def test_a_confined_process_and_its_children_write_only_inside_its_directory(tmp_path):
    """Fails if a confined command, or a process it starts in the background, can create, change
    or remove a file outside its directory (by absolute path), or cannot write inside it or to
    ``/dev/null``. The machines this runs on have Landlock: a project is built nowhere else."""
    assert can_confine()
    box, outside = tmp_path / "box", tmp_path / "outside"
    box.mkdir()
    outside.mkdir()
    (outside / "kept").write_text("mine")
    script = (f"echo in > {box}/made && echo quiet > /dev/null && echo made-in; "
              f"(echo out > {outside}/made) 2>/dev/null || echo refused-create; "
              f"(echo x >> {outside}/kept) 2>/dev/null || echo refused-append; "
              f"rm -f {outside}/kept 2>/dev/null || echo refused-remove; "
              f"sh -c 'echo child > {outside}/child' 2>/dev/null || echo refused-child")
    done = subprocess.run(confined(["sh", "-c", script], box, hammer=True), capture_output=True, text=True, check=False)
    assert done.stdout.split() == ["made-in", "refused-create", "refused-append", "refused-remove", "refused-child"], done
    assert (box / "made").read_text() == "in\n" and sorted(p.name for p in outside.iterdir()) == ["kept"]
    assert (outside / "kept").read_text() == "mine"


def test_a_confined_program_that_cannot_run_is_named(tmp_path):
    """Fails unless a program that is not there gives exit 127 and a line naming it."""
    done = subprocess.run(confined(["no-such-coq-program"], tmp_path), capture_output=True, text=True, check=False)
    assert done.returncode == 127 and "cannot run no-such-coq-program" in done.stderr, done


def test_a_project_is_not_built_where_the_kernel_cannot_confine(tmp_path, monkeypatch):
    """Fails if a project's files are compiled (running whatever code they choose) on a kernel
    without Landlock: the error must say so before anything runs."""
    monkeypatch.setattr(build, "can_confine", lambda: False)
    monkeypatch.setattr(build, "dependencies", lambda *a: pytest.fail("the project was looked at"))
    project = CoqProject(tmp_path, "project", (LoadPath("-Q", ".", "P"),))
    with pytest.raises(ProjectError, match="no Landlock"):
        build.build_project(project, progress=False)


def test_a_confined_process_opens_no_tcp_connection(tmp_path):
    """Fails if a confined process can connect to a TCP port on this machine (a Ray cluster's head
    takes tasks that run unconfined over TCP)."""
    import socket
    import sys

    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        probe = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5); print('connected')"
        done = subprocess.run(confined([sys.executable, "-c", probe], tmp_path), capture_output=True, text=True,
                              check=False)
    assert "connected" not in done.stdout and "PermissionError" in done.stderr, done


def test_a_confined_process_runs_only_the_programs_it_was_given(tmp_path):
    """Fails if a confined command can run a program it was not given (``ls``: any program that
    passes commands to a server through a UNIX socket would do), directly or through ``sh``, or
    cannot run ``sh`` where CoqHammer's programs are allowed. Without them, not even a shell."""
    done = subprocess.run(confined(["sh", "-c", "ls / > /dev/null && echo ran-ls; echo in-sh"], tmp_path, hammer=True),
                          capture_output=True, text=True, check=False)
    assert done.stdout.split() == ["in-sh"] and "Permission denied" in done.stderr, done
    done = subprocess.run(confined(["coqc", "-v"], tmp_path), capture_output=True, text=True, check=False)
    assert done.returncode == 0 and "Coq" in done.stdout, done
    probe = ["coqc", "-v"]
    shell = confined(probe, tmp_path)
    shell[shell.index("--") + 1:] = ["sh", "-c", "true"]
    done = subprocess.run(shell, capture_output=True, text=True, check=False)
    assert done.returncode == 127 and "cannot run sh" in done.stderr, done
