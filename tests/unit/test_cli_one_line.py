"""The command line's contract for bad input: exit status 2 and exactly one line on stderr, whatever
the message holds (several lines, terminal escapes, nothing at all); warnings are one line too."""

from __future__ import annotations

import warnings

import pytest

import prover.commands.report as report_command
from prover.cli import main
from search_tree.errors import UserError


def _stderr_lines(capsys, monkeypatch, run, argv=("report", "some-run")) -> tuple[int, list[str]]:
    monkeypatch.setattr(report_command, "run", run)
    code = main(list(argv))
    return code, capsys.readouterr().err.splitlines()


def _raise(exc: Exception):
    def run(args):
        raise exc
    return run


@pytest.mark.parametrize("message, shown", [
    ("first line\n   second line\n\n", "first line second line"),
    ("\n  indented only  \n", "indented only"),
    ("colour \x1b[31mred\r\x07", "colour \\x1b[31mred \\x07"),  # a carriage return ends a line too
    ("column\tafter a tab", "column\\x09after a tab"),  # no layout character in a one-line place
    ("", "UserError"),
])
def test_an_error_message_is_folded_onto_one_escaped_line(capsys, monkeypatch, message, shown):
    """Fails if a multi-line message spans lines, its escapes reach the terminal, or an empty
    message prints an empty error."""
    code, lines = _stderr_lines(capsys, monkeypatch, _raise(UserError(message)))
    assert code == 2 and lines == [f"dojo-prover report: error: {shown}"]


def test_a_missing_file_is_bad_input_on_one_line(capsys, monkeypatch):
    code, lines = _stderr_lines(capsys, monkeypatch, _raise(FileNotFoundError(2, "No such file", "runs/x\ny")))
    assert code == 2 and lines == ["dojo-prover report: error: [Errno 2] No such file: 'runs/x\\ny'"]


def test_a_bug_is_not_folded_but_raised(monkeypatch):
    """Fails if the CLI turns a bug (a KeyError) into a one-line message that hides its traceback."""
    monkeypatch.setattr(report_command, "run", _raise(KeyError("k")))
    with pytest.raises(KeyError):
        main(["report", "some-run"])


def test_a_warning_is_one_line_and_the_command_still_succeeds(capsys, monkeypatch):
    def run(args):
        warnings.warn("skipped line 3:\n  not JSON\x1b[2J", stacklevel=1)
        return 0

    code, lines = _stderr_lines(capsys, monkeypatch, run)
    assert code == 0 and lines == ["dojo-prover report: warning: skipped line 3: not JSON\\x1b[2J"]


@pytest.mark.parametrize("argv, shown", [
    (["report", "a", "--no-such\nflag"], "unrecognized arguments: --no-such\\x0aflag"),
    (["no-such-command\x1b[2J"], "invalid choice: 'no-such-command\\x1b[2J'"),
])
def test_a_usage_error_is_one_escaped_line_pointing_to_help(capsys, argv, shown):
    """Fails if argparse's usage dump comes back, or an argument's control characters are printed raw."""
    code = main(argv)
    lines = capsys.readouterr().err.splitlines()
    assert code == 2 and len(lines) == 1, lines
    assert lines[0].startswith("dojo-prover: error: ") and shown in lines[0]
    assert lines[0].endswith("(see dojo-prover --help)")
