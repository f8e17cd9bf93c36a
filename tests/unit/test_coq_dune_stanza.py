"""How a ``coq.theory`` stanza is read without running dune (:mod:`prover.coq.dune`): dune's
ordered set language for ``(flags ...)`` and ``(modules ...)``, which files a theory holds, and
which fields are read, accepted unread or refused. Only files are written; no Coq runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from prover.coq.dune import DuneError, dune_load_paths, ordered_set, read_sexps, read_theories


@pytest.mark.parametrize("text, standard, expected", [
    ("a b c", [], ["a", "b", "c"]),
    (":standard -w -all", ["-q"], ["-q", "-w", "-all"]),
    (r":standard \ B", ["A", "B", "C"], ["A", "C"]),
    (r"(:standard \ B) D", ["A", "B", "C"], ["A", "C", "D"]),
    (r"a b c \ b \ b", [], ["a", "b", "c"]),  # the right side is read whole: a b c less (b less b)
    (r"a b c \ (b c) \ c", [], ["a", "c"]),  # a b c less (b c less c)
    (r"\ a", [], []),
    ("(-a (-b -c)) -a", [], ["-a", "-b", "-c", "-a"]),
    pytest.param("a b" + r" \ b" * 3001, [], ["a"], id="a-b-less-3001-times-b"),  # read without recursing per \\
])
def test_the_ordered_set_language_reads_as_dune_reads_it(text, standard, expected):
    """Fails if ``:standard``, nested lists or ``\\`` (whose right side extends to the end of its
    list) give other elements, or another order, than dune gives."""
    [(_, body)] = read_sexps(f"({text})", "x")
    assert ordered_set(body, standard, "field", "x") == expected


@pytest.mark.parametrize("item", [":include", ":common", "%{coq:version}"])
def test_what_only_dune_evaluates_is_refused_in_one_line(item):
    with pytest.raises(DuneError, match=rf"^x: \(flags ...\) uses {item}, which depends on what dune alone evaluates"):
        ordered_set(["-w", [item, "f"] if item == ":include" else item], [], "flags", "x")


def _project(root: Path, dune: str, files: list[str], subdirs: bool = False) -> Path:
    (root / "dune-project").write_text("(lang dune 3.8)\n(using coq 0.8)\n")
    (root / "th").mkdir()
    (root / "th" / "dune").write_text(("(include_subdirs qualified)\n" if subdirs else "") + dune)
    for f in files:
        (root / "th" / f).parent.mkdir(parents=True, exist_ok=True)
        (root / "th" / f).write_text("")
    return root


def test_modules_choose_the_theorys_files_by_their_dotted_names(tmp_path):
    """Fails if ``(modules ...)`` is not read with ``A/b.v`` named ``A.b`` (under
    ``include_subdirs``), if an excluded file stays in the theory, or if the order of the list
    changes which files there are."""
    root = _project(tmp_path, r"(coq.theory (name T) (modules :standard \ A.b Skip))",
                    ["A/b.v", "A/c.v", "Skip.v", "Keep.v"], subdirs=True)
    [theory] = read_theories(root)
    assert theory.files == ("th/A/c.v", "th/Keep.v")


def test_a_theory_without_the_stdlib_and_the_accepted_fields(tmp_path):
    """Fails if ``(stdlib no)``, or ``-noinit`` among the flags, does not mark the theory as
    compiled without the Prelude (and ``-noinit`` stays a project-wide option), if a field that
    changes no file (``package``, ``synopsis``, ``mode``, ``coqdoc_flags``, ``coqdep_flags``...)
    is refused, or if ``plugins`` and its older name ``libraries`` are not both read."""
    root = _project(tmp_path, "(coq.theory (name T) (stdlib no) (package coq-t) (synopsis \"t\") (mode vos) "
                              "(coqdoc_flags :standard --body-only) (coqdep_flags :standard) "
                              "(coqdoc_header h.html) (generate_project_file) (plugins a.b) (libraries c))", ["X.v"])
    [theory] = read_theories(root)
    assert (theory.noinit, theory.plugins, theory.files) == (True, ("a.b", "c"), ("th/X.v",))
    (root / "th" / "dune").write_text("(coqlib (name T) (flags :standard -noinit -w -all))")
    [theory] = read_theories(root)
    assert (theory.name, theory.noinit, theory.flags) == ("T", True, ("-w", "-all"))


def _two_theories(root: Path, flags_a: str, flags_b: str) -> Path:
    (root / "dune-project").write_text("(lang dune 3.8)\n(using coq 0.8)\n")
    for name, flags in (("A", flags_a), ("B", flags_b)):
        (root / name).mkdir()
        (root / name / "dune").write_text(f"(coq.theory (name {name}) (flags {flags}))\n")
        (root / name / "F.v").write_text("Lemma t : True. Proof. exact I. Qed.\n")
    return root


@pytest.mark.parametrize("flags_a, flags_b", [
    (":standard -w -notation-overridden", ":standard -q -w -deprecated"),
    (":standard -impredicative-set", "-impredicative-set -w -all"),
])
def test_theories_may_differ_in_warnings_only(tmp_path, flags_a, flags_b):
    load = dune_load_paths(_two_theories(tmp_path, flags_a, flags_b))
    assert load.files == ("A/F.v", "B/F.v")


@pytest.mark.parametrize("flags_a, flags_b", [
    (":standard -impredicative-set", ":standard"),
    (":standard", ":standard -type-in-type"),
    ("-set \"Universe Polymorphism\"", "-w -all"),
])
def test_theories_whose_flags_change_the_logic_differently_are_one_line(tmp_path, flags_a, flags_b):
    with pytest.raises(DuneError) as refused:
        dune_load_paths(_two_theories(tmp_path, flags_a, flags_b))
    message = str(refused.value)
    assert "\n" not in message and "B/dune" in message and "cannot share" in message


@pytest.mark.parametrize("where, content", [
    ("_CoqProject", b'-Q theories "P\ntheories/C.v\n'),        # an unclosed quote
    ("_CoqProject", b"-Q theories P\n-arg \"-w '\"\ntheories/C.v\n"),  # one inside -arg
    ("_CoqProject", b"-Q theories P\n\xff\xfe\ntheories/C.v\n"),      # not UTF-8
    ("dune-project", b"(lang dune 3.8)\n(using coq 0.8)\n\xff"),
    ("theories/dune", b"(coq.theory (name P) \xff)"),
    pytest.param("theories/dune", b"(coq.theory (name P) (flags " + b"(" * 3000 + b"-w" + b")" * 3000 + b"))",
                 id="dune-nested-3000-deep"),
])
def test_a_project_file_that_cannot_be_read_is_one_line_naming_it(tmp_path, where, content):
    """Fails if a ``_CoqProject`` or dune file with an unclosed quote, bytes that are not UTF-8, or
    parentheses nested thousands deep ends in a traceback (``ValueError``,
    ``UnicodeDecodeError``, ``RecursionError``) instead of the project's one-line error naming the file."""
    from prover.coq.project import ProjectError, load_project
    (tmp_path / "theories").mkdir()
    (tmp_path / "theories" / "C.v").write_text("Lemma target : 0 = 0. Proof. Admitted.\n")
    if where != "_CoqProject":
        (tmp_path / "dune-project").write_text("(lang dune 3.8)\n(using coq 0.8)\n")
        (tmp_path / "theories" / "dune").write_text("(coq.theory (name P))\n")
    (tmp_path / where).write_bytes(content)
    with pytest.raises((ProjectError, DuneError)) as caught:
        load_project(str(tmp_path))
    message = str(caught.value)
    assert "\n" not in message and (where.split("/")[-1] in message or "-arg" in message), message
