"""Optional step: the toy backend's ``trace`` (its ``Feature.TRACE``), which copies the lemmas of
its library whose names start with ``--lemma-prefix`` into ``--out``'s ``corpus.jsonl``."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable

from search_tree.errors import UserError
from toy_backend.env import CORPUS


class ToyTracer:
    """What a backend's tracer is (``prover.backend.Tracer``), at its smallest: one option, one run."""

    def configure(self, parser: argparse.ArgumentParser) -> list[argparse.Action]:
        return [parser.add_argument("--lemma-prefix", help="toy: copy only the lemmas whose names start so")]

    def run(self, args: argparse.Namespace, say: Callable[[str], None]) -> int:
        if args.out is None:
            raise UserError("--env toy needs --out DIR")
        files = [json.loads(line) for line in CORPUS.read_text().splitlines()]
        for f in files:
            f["premises"] = [p for p in f["premises"] if p["full_name"].startswith(args.lemma_prefix or "")]
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "corpus.jsonl").write_text("".join(json.dumps(f) + "\n" for f in files))
        say(f"traced {sum(len(f['premises']) for f in files)} lemmas -> {args.out}")
        return 0


TRACER = ToyTracer()
