"""Tactic generators: templates, kNN, fused, OpenAI-compatible client, Hugging Face models."""

import json
import math
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace
from typing import ClassVar

import pytest
from traced_fixtures import commutation_theorems, tactic, theorem, write

from generator import FixedTacticGenerator
from retrieval.corpus import Premise
from prover.coq.language import COQ
from prover.coq.templates import TEMPLATES
from generator.formatting import format_input, format_target
from generator.fused import FusedGenerator
from generator.knn import KNNGenerator, adapt_hypothesis_names
from generator.traced import TacticExample
from generator.registry import build_generator
from generator.state_parsing import hypotheses_of, parse_goals
from generator.template import TemplateGenerator, quantified_variables
from generator.traced import examples, load_theorems, remaining_steps, split_by_theorem
from search_tree.protocol import Goal, Hypothesis, TacticState, Theorem

THM = Theorem("t", file_path="Arith.v")
COQ_STATE = """  n, m : nat
  l : list nat
  H : n = length l
  ============================
  forall (k : nat) (A : Type), n + k = k + n"""


class ListRetriever:
    """A retriever over a fixed ranked list (the retrieval package's interface, by duck typing)."""

    def __init__(self, names):
        self.names = names
        self.calls = []

    def retrieve(self, state, context, k):
        self.calls.append((state, context, k))
        return [(Premise(n, f"{n} : stmt", "Other.lean", (1, 1), (1, 2)), 10.0 - i) for i, n in enumerate(self.names[:k])]


def logsumexp(xs):
    top = max(xs)
    return top + math.log(sum(math.exp(x - top) for x in xs))


# -- state parsing and formatting -------------------------------------------------------------------


def test_parses_coq_and_lean_states():
    (goal,) = parse_goals(COQ_STATE)
    assert [(h.name, h.type) for h in goal.hypotheses] == [("n", "nat"), ("m", "nat"), ("l", "list nat"),
                                                           ("H", "n = length l")]
    assert goal.target.startswith("forall (k : nat)")
    lean = "case h\nα : Type u_1\na b : α\nh : a ≤ b\nx : ℕ := 3\n⊢ a = b\n\ncase g\nα : Type u_1\n⊢ True"
    g1, g2 = parse_goals(lean)
    assert (g1.name, g2.name) == ("h", "g")
    assert [h.name for h in g1.hypotheses] == ["α", "a", "b", "h", "x"]
    assert g1.hypotheses[-1] == Hypothesis("x", "ℕ", "3")
    assert parse_goals("no goals") == ()


def test_one_formatting_function_prepends_premises_within_budget():
    premises = [SimpleNamespace(full_name="Nat.add_comm", code="theorem add_comm (n m : ℕ) : n + m = m + n"),
                SimpleNamespace(full_name="Nat.add_zero", code="x" * 500)]
    text = format_input("⊢ a + b = b + a", premises, max_bytes=120)
    assert text == "<a>Nat.add_comm</a> theorem add_comm (n m : ℕ) : n + m = m + n\n\n⊢ a + b = b + a"
    assert format_target("rw [<a>Nat.add_comm</a>]") == "rw [Nat.add_comm]"


# -- templates ---------------------------------------------------------------------------------------


def test_template_instantiates_premises_variables_and_hypotheses():
    retriever = ListRetriever(["Nat.add_comm", "Nat.add_0_r", "Nat.mul_comm"])
    gen = TemplateGenerator(TEMPLATES, retriever=retriever, num_premises=2)
    out = gen.generate(TacticState(COQ_STATE, 0), THM, 1000)
    tactics = [t for t, _ in out]
    scores = dict(out)
    for expected in ("auto.", "lia.", "apply Nat.add_comm.", "rewrite <- Nat.add_0_r.", "eauto using Nat.add_comm.",
                     "simpl; auto using Nat.add_0_r.", "induction k.", "destruct l.", "rewrite H."):
        assert expected in tactics
    assert "apply Nat.mul_comm." not in tactics  # only the top num_premises
    assert not any("A." in t for t in tactics)  # no induction on a sort
    assert retriever.calls[0][2] == 2
    # rank discount: the first premise scores above the second in the same template
    assert scores["apply Nat.add_comm."] - scores["apply Nat.add_0_r."] == pytest.approx(math.log(2))
    assert logsumexp([lp for _, lp in out]) == pytest.approx(0.0, abs=1e-9)  # a distribution
    assert [lp for _, lp in out] == sorted((lp for _, lp in out), reverse=True)
    assert len(gen.generate(TacticState(COQ_STATE, 0), THM, 5)) == 5


def test_template_without_retriever_and_goal_from_backend():
    state = TacticState("ignored", 0, goals=(Goal((Hypothesis("x", "nat"), Hypothesis("Hx", "x > 0")), "x <> 0"),))
    tactics = [t for t, _ in TemplateGenerator("coq").generate(state, THM, 1000)]
    assert "induction x." in tactics and "apply Hx." in tactics
    assert not any("{premise}" in t or "using" in t for t in tactics)
    assert "sauto." not in tactics
    assert "sauto." in [t for t, _ in build_generator("template", templates="coq:HAMMER").generate(state, THM, 1000)]


def test_quantified_variables_and_prior_fitting():
    assert quantified_variables("forall n m : nat, forall (l : list nat), P", ("forall",)) == [
        ("n", "nat"), ("m", "nat"), ("l", "list nat")]
    assert quantified_variables("∀ (x : ℕ) {y : ℕ}, x = y", ("∀",)) == [("x", "ℕ"), ("y", "ℕ")]
    fitted = TEMPLATES.fit_priors(["lia.", "lia.", "apply foo.", "lia."])
    prior = {t.text: t.log_prior for t in fitted.templates}
    assert prior["lia."] > prior["apply {premise}."] > prior["auto."]


# -- traced data -------------------------------------------------------------------------------------


def test_remaining_steps_follow_the_state_chain():
    linear = [tactic("a", "s0", "s1"), tactic("b", "s1", "s2"), tactic("c", "s2", "no goals")]
    assert remaining_steps(linear) == [3, 2, 1]
    # a nested block ("have") traced before the main line: chain by states, not by position
    nested = [tactic("have h : P", "s0", "s1"), tactic("exact p", "sP", "no goals"), tactic("simp [h]", "s1", "no goals")]
    assert remaining_steps(nested) == [2, 1, 1]
    broken = [tactic("a", "s0", "sX"), tactic("b", "s1", "s2"), tactic("c", "s2", "no goals")]
    assert remaining_steps(broken) == [3, 2, 1]  # chain breaks at sX: linear fallback


def test_split_by_theorem_is_deterministic_and_disjoint(tmp_path):
    thms = commutation_theorems(200)
    train, val = split_by_theorem(thms, 10.0)
    assert 5 <= len(val) <= 40 and len(train) + len(val) == 200
    assert not {t["full_name"] for t in train} & {t["full_name"] for t in val}
    assert split_by_theorem(list(reversed(thms)), 10.0)[1] == list(reversed(val))
    path = write(tmp_path / "t.json", thms[:3])
    exs = examples(load_theorems(path))
    assert [(e.tactic, e.remaining_steps) for e in exs[:2]] == [("intros.", 2), ("lia.", 1)]


# -- kNN ---------------------------------------------------------------------------------------------


def _knn_file(tmp_path):
    return write(tmp_path / "traced.json", [
        theorem("le_step", [tactic("apply Nat.le_trans with m; assumption.",
                                   "  n, m, p : nat\n  Hnm : n <= m\n  Hmp : m <= p\n  ============================\n  n <= p",
                                   "no goals", ["Nat.le_trans"])]),
        theorem("app_nil", [tactic("induction l; simpl; auto.",
                                   "  A : Type\n  l : list A\n  ============================\n  l ++ nil = l",
                                   "no goals")]),
        theorem("even", [tactic("destruct Hev as [k Hk].",
                                "  n : nat\n  Hev : exists k, n = 2 * k\n  ============================\n  even n",
                                "  n, k : nat\n  Hk : n = 2 * k\n  ============================\n  even n")]),
    ])


def test_knn_proposes_tactic_of_nearest_state_with_renamed_hypotheses(tmp_path):
    gen = KNNGenerator.from_traced(_knn_file(tmp_path), COQ, k=3)
    state = TacticState("  a, b, c : nat\n  H1 : a <= b\n  H2 : b <= c\n  ============================\n  a <= c", 0)
    (best, lp), *rest = gen.generate(state, THM, 3)
    assert best == "apply Nat.le_trans with b; assumption."
    assert all(lp >= other for _, other in rest) and lp <= 0.0
    assert logsumexp([lp] + [o for _, o in rest]) == pytest.approx(0.0, abs=1e-6)
    # a list goal gets the list proof, with the list variable renamed
    list_state = TacticState("  B : Type\n  xs : list B\n  ============================\n  xs ++ nil = xs", 1)
    assert gen.batch_generate([state, list_state], [THM, THM], 1)[1][0][0] == "induction xs; simpl; auto."


def test_knn_never_proposes_bare_bullets_or_braces():
    state = "  n : nat\n  ============================\n  n + 0 = n"
    def example(tactic):
        return TacticExample("earlier", "F.v", 0, state, tactic, state, (), 1)
    gen = KNNGenerator([example("-"), example("{"), example("·"), example("lia.")], COQ, k=4)
    assert [t for t, _ in gen.generate(TacticState(state, 0), THM, 4)] == ["lia."]
    with pytest.raises(ValueError, match="bullets"):
        KNNGenerator([example("+"), example("}")], COQ)


def test_hypothesis_renaming_by_type_then_position():
    src = hypotheses_of("  n : nat\n  Hev : exists k, n = 2 * k\n  ============================\n  even n")
    dst = hypotheses_of("  m : nat\n  Hm : exists k, m = 2 * k\n  H0 : m > 0\n  ============================\n  even m")
    assert adapt_hypothesis_names("destruct Hev as [k Hk].", src, dst, COQ) == "destruct Hm as [k Hk]."
    assert adapt_hypothesis_names("lia.", src, dst, COQ) == "lia."
    # no hypothesis of the same type: position from the end
    dst2 = hypotheses_of("  x : nat\n  Hx : x < 3\n  ============================\n  even x")
    assert adapt_hypothesis_names("destruct Hev.", src, dst2, COQ) == "destruct Hx."


@pytest.mark.slow
def test_knn_dense_similarity(tmp_path):
    gen = KNNGenerator.from_traced(_knn_file(tmp_path), COQ, similarity="dense", k=2)
    state = TacticState("  C : Type\n  ys : list C\n  ============================\n  ys ++ nil = ys", 0)
    assert gen.generate(state, THM, 1)[0][0] == "induction ys; simpl; auto."


# -- fused and registry ------------------------------------------------------------------------------


def test_fused_mixture_adds_mass_of_agreeing_members():
    a = FixedTacticGenerator([("auto.", math.log(0.5)), ("lia.", math.log(0.5))])
    b = FixedTacticGenerator([("lia.", math.log(0.9)), ("simpl.", math.log(0.1))])
    out = dict(FusedGenerator([(a, 1.0), (b, 3.0)]).generate(TacticState("s", 0), THM, 10))
    assert math.exp(out["lia."]) == pytest.approx(0.25 * 0.5 + 0.75 * 0.9)
    assert math.exp(out["auto."]) == pytest.approx(0.125)
    assert math.exp(out["simpl."]) == pytest.approx(0.075)
    with pytest.raises(ValueError, match="FusedGenerator needs members with positive weights"):
        FusedGenerator([(a, 0.0)])


def test_registry_builds_by_name(tmp_path):
    retriever = ListRetriever(["Nat.add_comm"])
    template = build_generator("template", templates="coq", retriever=retriever)
    assert isinstance(template, TemplateGenerator)
    fused = build_generator("fused", retriever=retriever, language=COQ, members=[
        {"name": "template", "weight": 1.0, "templates": "coq"},
        {"name": "knn", "weight": 2.0, "paths": str(_knn_file(tmp_path))},
    ])
    tactics = [t for t, _ in fused.generate(TacticState(COQ_STATE, 0), THM, 100)]
    assert "apply Nat.add_comm." in tactics  # the retriever reached the template member
    with pytest.raises(KeyError, match="unknown generator 'nope'"):
        build_generator("nope")


def test_generator_modules_stay_light():
    code = ("import sys, generator, generator.registry, generator.template, prover.coq.templates, generator.knn, "
            "generator.fused, generator.openai_compat, generator.hf, generator.formatting, generator.traced; "
            "print(sorted({'torch', 'transformers', 'lightning'} & set(sys.modules)))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "[]"


# -- OpenAI-compatible endpoint ----------------------------------------------------------------------


class _Completions(BaseHTTPRequestHandler):
    """A stand-in for a vLLM server: answers /v1/completions like the OpenAI API."""

    requests: ClassVar[list] = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append((self.path, dict(self.headers), body))
        if self.path != "/v1/completions":
            self.send_error(404)
            return
        choices = []
        for i, prompt in enumerate(body["prompt"]):
            for j in range(body["n"]):
                text, finish = [(" auto.", "stop"), (" apply foo.", "stop"), (" auto.", "stop"),
                                (" rewrite (", "length")][j % 4]
                if "list" in prompt and j == 1:
                    text = " induction l."
                choices.append({"index": i * body["n"] + j, "text": text, "finish_reason": finish,
                                "logprobs": {"tokens": ["a", "b"], "token_logprobs": [-0.5 * (j + 1), -0.25]}})
        payload = json.dumps({"id": "cmpl-1", "object": "text_completion", "model": body["model"],
                              "choices": choices}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


@pytest.fixture
def completion_server():
    _Completions.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Completions)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_openai_client_against_local_server(completion_server):
    from generator.openai_compat import CompletionServerError, OpenAICompletionGenerator

    retriever = ListRetriever(["Nat.add_comm"])
    gen = build_generator("openai", base_url=completion_server, model="tiny", api_key="k", retriever=retriever,
                          num_premises=1, prompt_template="{input}\nTACTIC:", stop=["\n"])
    states = [TacticState(COQ_STATE, 0), TacticState("  ============================\n  True", 1)]
    out = gen.batch_generate(states, [THM, THM], 4)
    assert out[0] == [("auto.", -0.75), ("induction l.", -1.25)]  # duplicate merged, truncated one dropped
    assert out[1] == [("auto.", -0.75), ("apply foo.", -1.25)]
    _, headers, body = _Completions.requests[0]
    assert headers["Authorization"] == "Bearer k"
    assert body["n"] == 4 and body["logprobs"] == 1 and body["stop"] == ["\n"] and body["model"] == "tiny"
    assert body["prompt"][0] == format_input(states[0], [SimpleNamespace(full_name="Nat.add_comm", code="Nat.add_comm : stmt")],
                                             2048) + "\nTACTIC:"
    with pytest.raises(CompletionServerError, match="404"):
        OpenAICompletionGenerator(completion_server.replace("/v1", "/v2"), "tiny").generate(states[0], THM, 2)


# -- Hugging Face checkpoints ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_checkpoints(tmp_path_factory):
    """Randomly initialised tiny seq2seq and causal checkpoints, with ByT5's byte tokenizer."""
    import torch
    from transformers import ByT5Tokenizer, GPT2Config, GPT2LMHeadModel, T5Config, T5ForConditionalGeneration

    torch.manual_seed(0)
    torch.set_num_threads(1)
    tok = ByT5Tokenizer()
    root = tmp_path_factory.mktemp("hf")
    t5 = T5ForConditionalGeneration(T5Config(vocab_size=len(tok), d_model=32, d_ff=64, d_kv=8, num_layers=1,
                                             num_heads=2, decoder_start_token_id=0, pad_token_id=0, eos_token_id=1))
    gpt = GPT2LMHeadModel(GPT2Config(vocab_size=len(tok), n_embd=32, n_layer=1, n_head=2, n_positions=1024,
                                     bos_token_id=1, eos_token_id=1, pad_token_id=0))
    for name, model in (("t5", t5), ("gpt", gpt)):
        # random weights may end at once or write bytes that are not UTF-8: make them write ASCII
        model.generation_config.min_new_tokens = 4
        model.generation_config.suppress_tokens = list(range(3 + 128, len(tok)))
        model.save_pretrained(root / name)
        tok.save_pretrained(root / name)
    return root


@pytest.mark.parametrize("kind,strategy", [("t5", "beam"), ("t5", "sample"), ("gpt", "beam"), ("gpt", "sample")])
def test_hf_generator_scores_are_finite_log_probabilities(tiny_checkpoints, kind, strategy):
    gen = build_generator("hf", model=str(tiny_checkpoints / kind), strategy=strategy, max_output_len=8,
                          max_input_len=256)
    assert gen.seq2seq == (kind == "t5")
    out = gen.batch_generate([TacticState(COQ_STATE, 0), TacticState("⊢ True", 1)], [THM, THM], 3)
    assert len(out) == 2
    for suggestions in out:
        assert 1 <= len(suggestions) <= 3
        for tactic_text, lp in suggestions:
            assert isinstance(tactic_text, str) and tactic_text == tactic_text.strip() and tactic_text
            assert math.isfinite(lp) and lp < 0.0


def test_hf_generator_prepends_retrieved_premises_as_in_training(tiny_checkpoints):
    retriever = ListRetriever(["Nat.add_comm", "Nat.add_0_r"])
    gen = build_generator("hf", model=str(tiny_checkpoints / "t5"), retriever=retriever, num_premises=1,
                          max_input_len=256)
    (text,) = gen.inputs([TacticState(COQ_STATE, 0)], [THM])
    assert text == format_input(COQ_STATE, [SimpleNamespace(full_name="Nat.add_comm", code="Nat.add_comm : stmt")], 256)
    assert retriever.calls[0][1] is THM and retriever.calls[0][2] == 1


# -- benchmark scripts -------------------------------------------------------------------------------


def test_pass_rate_script_runs_search_per_generator(tmp_path, capsys):
    from benchmarks.generator_pass_rate import main

    proof = [tactic("intros.", "s0", "s1"), tactic("auto.", "s1", "no goals")]
    traces = write(tmp_path / "test.json", [theorem("t0", proof)])
    # kNN learns from another theorem's proof: it never sees the proof of the theorem it proves
    train = write(tmp_path / "train.json", [dict(theorem("t_lib", proof), file_path="Lib.v")])
    graph = {"s0": {"intros.": "s1"}, "s1": {"auto.": "proved"}}
    main(["--env", "scripted_env:ScriptedEnv", "--env-option", f"graph={json.dumps(graph)}", "--theorems", str(traces),
          "--generators", "template,knn", "--train-traces", str(train), "--timeout", "10",
          "--out", str(tmp_path / "results.jsonl")])
    table = capsys.readouterr().out
    assert "| template | 1/1 | 1.000 |" in table and "| knn | 1/1 | 1.000 |" in table
    results = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert [(r["generator"], r["proof"]) for r in results] == [("template", ["intros.", "auto."]),
                                                               ("knn", ["intros.", "auto."])]
    main(["--env", "scripted_env:ScriptedEnv", "--env-option", f"graph={json.dumps(graph)}", "--theorems", str(traces),
          "--generators", "knn", "--train-traces", str(train), "--search", "mcts", "--value", "heuristic",
          "--timeout", "10"])
    assert "| knn | 1/1 | 1.000 |" in capsys.readouterr().out



def test_fitted_coq_priors_ship_as_an_opt_in_variant():
    """``coq:FITTED`` reads prover/coq/data/coq_template_priors.json (benchmarks/fit_template_priors.py);
    the default ``coq`` set keeps its hand-set priors (the fitted ones did not raise the pass rate)."""
    from prover.coq.templates import PRIORS_PATH, TEMPLATES
    from generator.template import load_templates

    fitted = load_templates("coq:FITTED")
    assert PRIORS_PATH.exists() and load_templates("coq") is TEMPLATES
    assert [t.text for t in fitted.templates] == [t.text for t in TEMPLATES.templates]
    assert fitted.templates != TEMPLATES.templates and all(t.log_prior < 0 for t in fitted.templates)
