"""ssreflect in the default prover's baseline, on the stdlib's own ssreflect files (``Coq.ssr``):
the index marks the theorems whose context loads ssreflect, and the baseline proves them with
ssreflect's tactics, which it proposes nowhere else."""

from __future__ import annotations

from prover.coq.env import CoqEnvironment
from prover.coq.presets import baseline_config
from prover.registry import prover_from


def test_an_ssreflect_lemma_is_marked_and_proved_with_ssreflect_tactics():
    """Fails if ``negbK`` (ssrbool.v, which requires ssreflect) is not marked, if an Arith theorem
    or ssreflect.v itself (its context is before ssreflect exists) is, or if the baseline does not
    prove ``negbK`` with ssreflect's ``by case.`` (Coq's own proof), within its first expansion."""
    with CoqEnvironment() as env:
        theorem = env.theorem("Coq.ssr.ssrbool.negbK")
        assert theorem.extra.get("ssreflect") is True
        assert "ssreflect" not in env.theorem("Nat.add_0_l").extra
        assert not any(t.extra.get("ssreflect") for t in env.index.theorems(["ssr/ssreflect.v"]))
        result = prover_from(baseline_config(None, timeout=60)).search(env, theorem)
    assert result.status.value == "proved" and result.script == "by case.", (result.stop_reason, result.script)
