"""Printed proof states as text, for every layer: what the backends' syntax modules share.

Each backend's own syntax lives in its folder (:mod:`prover.coq.syntax`, :mod:`prover.lean.syntax`)
and reaches the layers below the backends as a :class:`search_tree.language.Language`. Here:

* :mod:`search_tree.syntax.common`: the one :class:`~search_tree.syntax.common.GoalParseError`,
  bracket-aware splitting, and the two layouts of a let-bound hypothesis;
* :mod:`search_tree.syntax.printed`: goals of a printed state in either layout, for traced data
  and retrieval queries, where the backend's own parse is not at hand.

This package imports nothing outside :mod:`search_tree`.
"""
