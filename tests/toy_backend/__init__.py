"""A toy third backend, the worked example of ``docs/architecture.md``'s recipe "Add a backend".

Its prover proves conjunctions of atoms (``wet & cold``) from the lemmas of its library
(``corpus.jsonl``): ``split`` splits a conjunction, ``apply L`` closes an atom that lemma ``L``
states, ``cheat`` gives up. Four small modules, one per step of the recipe: ``language.py``,
``env.py``, ``templates.py``, ``backend.py``; and ``tracer.py``, a command feature it offers
(``trace``). ``tests/unit/test_toy_backend.py`` registers it and proves and traces through it.
"""
