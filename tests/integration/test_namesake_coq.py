"""The namesake generator on really traced stdlib files: ``NDivProp`` restates ``NZDivProp``'s
lemmas, and its proofs apply them by their short names with the file's own ``auto'``."""

import pytest

from search_tree import ProofFinished, linear_proof
from traced_fixtures import traced_stdlib

FILES = ["Numbers/NatInt/NZDiv.v", "Numbers/Natural/Abstract/NDiv.v"]
THEOREM = "NDivProp.mod_small"  # Proof. intros. apply mod_small; auto'. Qed.


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    with traced_stdlib(tmp_path_factory, FILES) as (index, out, summary):
        assert summary.failed == []
        yield index, out


@pytest.mark.coq
def test_a_namesake_template_proves_the_theorem_and_passes_the_check(traced):
    """Fails if the generator learns no template from the file's earlier lemmas or fills it with
    another name (checked: the learned templates dropped, where the fixed ``apply mod_small.``
    leaves the side conditions open): after ``intros.``, one of its first suggestions closes
    ``NDivProp.mod_small``, and the proof passes the final check (coqc and coqchk)."""
    from generator.namesake import NamesakeGenerator
    from prover.coq.default_generator import NAMESAKE_TACTICS
    from prover.coq.env import CoqEnvironment

    index, out = traced
    gen = NamesakeGenerator.from_traced([out / f"{s}.json" for s in ("train", "val", "test")],
                                        fixed=NAMESAKE_TACTICS)
    assert gen is not None
    name = f"{index.file(FILES[1]).module}.{THEOREM}"
    theorem = index.theorem(name)
    assert gen.namesakes(theorem) == ["NZDivProp.mod_small"]
    with CoqEnvironment(index=index) as env:
        with env.open(theorem) as (session, state):
            state = session.run_tac(state, "intros.")
            closing = [t for t, _ in gen.generate(state, theorem, 6)
                       if isinstance(session.run_tac(state, t), ProofFinished)]
        assert closing, gen.generate(state, theorem, 6)
        verdict = env.verify(theorem, linear_proof(["intros", closing[0].removesuffix(".")]))
    assert verdict.ok, verdict.message


@pytest.mark.coq
def test_the_default_has_the_member_unless_ablated(traced):
    """Fails if the default leaves the namesake member out, or if ``namesakes=False`` (the
    benchmark's ``default-no-namesakes``) does not."""
    from prover.coq.default_generator import coq_default

    _, out = traced
    assert "namesake" in coq_default(traces=str(out), hammer=False).names
    assert "namesake" not in coq_default(traces=str(out), hammer=False, namesakes=False).names
