"""A search's value from a policy-value checkpoint (:class:`generator.hf.ValueHead`): one typed
value from the command line to the prover, written to config.json as its fields, and a missing or
damaged checkpoint refused in one line that names it and the command that writes one. Loading a
real checkpoint is tested in tests/integration/test_policy_value.py (it needs a trained model)."""

from __future__ import annotations

import json

import pytest

from generator.hf import VALUE_REBUILD, ValueCheckpointError, ValueHead
from prover.cli import main
from prover.commands.eval import parse_search_options
from prover.registry import ComponentSpec, ProverConfig, RegistryError, build_prover, check_names, with_defaults
from search_tree.errors import UserError


def test_the_command_line_reads_learned_path_once_into_a_value_head():
    """Fails if ``value=learned:PATH`` stays a string past the command line, if another value is
    changed, or if ``learned:`` without a path is taken."""
    assert parse_search_options(["value=learned:runs/p/hf", "timeout=5"]) == {"value": ValueHead("runs/p/hf"),
                                                                             "timeout": 5}
    assert parse_search_options(["value=heuristic"]) == {"value": "heuristic"}
    with pytest.raises(UserError, match="value=learned:PATH needs PATH"):
        parse_search_options(["value=learned:"])


def test_a_value_head_is_written_as_its_fields_and_read_back_as_itself(tmp_path):
    """Fails if a spec holding a ValueHead cannot be written as JSON, or if config.json's form (the
    fields) and the producer's (the object) stop being one configuration."""
    spec = ComponentSpec("mcts", {"value": ValueHead(str(tmp_path))})
    written = json.loads(json.dumps(spec.to_json()))
    assert written == {"name": "mcts", "options": {"value": {"checkpoint": str(tmp_path)}}}
    config = ProverConfig(ComponentSpec("synthetic"), spec, ComponentSpec("synthetic"))
    again = ProverConfig(ComponentSpec("synthetic"), ComponentSpec.from_json(written), ComponentSpec("synthetic"))
    assert with_defaults(config) == with_defaults(again)
    assert with_defaults(config).prover.options["value"] == {"checkpoint": str(tmp_path)}


def _damaged(path):
    path.mkdir()
    (path / "policy_config.json").write_text("{}")
    (path / "value_head.pt").write_bytes(b"\x00not weights")
    return path


@pytest.mark.parametrize("make, reason", [
    (lambda path: path, r"is not a policy-value export \(no policy_config.json or value_head.pt\); build one"),
    (_damaged, r"is unreadable \('max_input_len'\); rebuild"),
], ids=["missing", "damaged"])
def test_a_missing_or_damaged_checkpoint_is_one_line_naming_it_and_the_command(tmp_path, make, reason):
    """Fails if a bad checkpoint raises a bare torch/JSON error, spans lines, or does not say which
    checkpoint and how to write one; both as the options give it (fields) and as an object."""
    path = make(tmp_path / "hf")
    for value in (ValueHead(str(path)), {"checkpoint": str(path)}):
        with pytest.raises(ValueCheckpointError, match=reason) as info:
            build_prover(ComponentSpec("mcts", {"value": value}), tac_gen=None)
        message = str(info.value)
        assert "\n" not in message and message.startswith(f"value checkpoint {path} ")
        assert message.endswith(VALUE_REBUILD)


def test_eval_refuses_a_missing_checkpoint_before_any_search(tmp_path, capsys):
    """Fails if ``dojo-prover eval`` starts a run with a value checkpoint that is not there, or
    says so in more than one line or without the exit status of bad input."""
    missing = tmp_path / "nothing"
    out = tmp_path / "run"
    code = main(["eval", "--env", "synthetic", "--benchmark", "synthetic:30", "--limit", "1", "--search", "mcts",
                 "--search-opt", f"value=learned:{missing}", "--generator", "synthetic", "--no-progress",
                 "--out", str(out)])
    lines = capsys.readouterr().err.splitlines()
    assert code == 2 and len(lines) == 1 and f"value checkpoint {missing} is not a policy-value export" in lines[0]
    assert "dojo-prover train-policy" in lines[0] and not (out / "results.jsonl").exists()


def test_a_value_head_with_other_fields_is_refused_in_one_line():
    with pytest.raises(RegistryError, match=r'option value=\{"path": "x"\}: a ValueHead takes the fields checkpoint'):
        check_names(ProverConfig(ComponentSpec("synthetic"), ComponentSpec("mcts", {"value": {"path": "x"}}),
                                 ComponentSpec("synthetic")))
