"""Tactics from an OpenAI-compatible completions endpoint (a vLLM or SGLang server on a GPU box).

One HTTP request per batch of states: ``POST {base_url}/completions`` with a list of prompts,
``n`` samples each and ``logprobs`` requested; a sample's log-probability is the sum of its
tokens' log-probabilities. Prompts are written by :func:`generator.formatting.format_input` (with
the retriever's premises when one is given) inside ``prompt_template``, the same text a model
fine-tuned on our formatted data saw. Plain ``urllib``: no client library needed.
"""

from __future__ import annotations

import json
import math
import urllib.error
import urllib.request
from typing import Any

from generator.base import Suggestion, TacticGenerator
from generator.formatting import format_input
from search_tree.protocol import TacticState, Theorem


class CompletionServerError(RuntimeError):
    """The endpoint could not be reached or answered something other than completions."""


class OpenAICompletionGenerator(TacticGenerator):
    """Samples ``num_samples`` completions per state from ``{base_url}/completions``.

    ``base_url`` ends with the API version, e.g. ``http://gpu-box:8000/v1``. Completions cut by
    ``max_tokens`` (``finish_reason == "length"``) are dropped: a truncated tactic cannot run.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        prompt_template: str = "{input}",
        stop: list[str] | None = None,
        max_tokens: int = 128,
        temperature: float = 1.0,
        top_p: float = 1.0,
        retriever: Any | None = None,
        num_premises: int = 0,
        max_input_bytes: int | None = 2048,
        timeout: float = 120.0,
    ) -> None:
        self.url = base_url.rstrip("/") + "/completions"
        self.model = model
        self.api_key = api_key
        self.prompt_template = prompt_template
        self.stop = stop
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.top_p = top_p
        self.retriever = retriever
        self.num_premises = num_premises
        self.max_input_bytes = max_input_bytes
        self.timeout = timeout

    def prompt(self, state: TacticState, context: Theorem) -> str:
        premises = []
        if self.retriever is not None and self.num_premises > 0:
            premises = [p for p, _ in self.retriever.retrieve(state, context, self.num_premises)]
        return self.prompt_template.format(input=format_input(state, premises, self.max_input_bytes))

    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(self.url, data=json.dumps(body).encode(), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as e:
            raise CompletionServerError(f"{self.url}: HTTP {e.code}: {e.read()[:500]!r}") from e
        except (urllib.error.URLError, TimeoutError, json.JSONDecodeError) as e:
            raise CompletionServerError(f"{self.url}: {e}") from e

    def generate(self, state: TacticState, context: Theorem, num_samples: int) -> list[Suggestion]:
        return self.batch_generate([state], [context], num_samples)[0]

    def batch_generate(
        self, states: list[TacticState], contexts: list[Theorem], num_samples: int
    ) -> list[list[Suggestion]]:
        prompts = [self.prompt(s, c) for s, c in zip(states, contexts, strict=True)]
        body: dict[str, Any] = {
            "model": self.model, "prompt": prompts, "n": num_samples, "max_tokens": self.max_tokens,
            "temperature": self.temperature, "top_p": self.top_p, "logprobs": 1,
        }
        if self.stop:
            body["stop"] = self.stop
        choices = self._post(body).get("choices")
        if not isinstance(choices, list):
            raise CompletionServerError(f"{self.url}: no 'choices' in the answer")
        best: list[dict[str, float]] = [{} for _ in states]
        for position, choice in enumerate(choices):
            # choices come prompt-major: index = prompt * n + sample (OpenAI's and vLLM's order)
            prompt_index = int(choice.get("index", position)) // num_samples
            tactic = (choice.get("text") or "").strip()
            if not tactic or choice.get("finish_reason") == "length" or prompt_index >= len(states):
                continue
            token_logprobs = (choice.get("logprobs") or {}).get("token_logprobs") or []
            logprob = sum(lp for lp in token_logprobs if lp is not None and math.isfinite(lp))
            slot = best[prompt_index]
            slot[tactic] = max(logprob, slot.get(tactic, -math.inf))
        return [sorted(slot.items(), key=lambda s: -s[1])[:num_samples] for slot in best]
