"""The registered theses (:data:`ccsim.experiments.THESES`), by id."""

from __future__ import annotations

import importlib

from .thesis import Thesis


def thesis_ids() -> list[str]:
    from .. import THESES

    return list(THESES)


def get_thesis(thesis_id: str) -> Thesis:
    """The registered thesis ``thesis_id``; ValueError listing the known ones otherwise."""
    ids = thesis_ids()
    if thesis_id not in ids:
        raise ValueError(f"reproduce: unknown thesis {thesis_id!r}; expected one of: {', '.join(ids)} "
                         f"(ccsim reproduce --list)")
    module = importlib.import_module(f"ccsim.experiments.{thesis_id}")
    thesis = getattr(module, "THESIS", None)
    if not isinstance(thesis, Thesis) or thesis.id != thesis_id:
        raise RuntimeError(f"ccsim.experiments.{thesis_id} must define THESIS = Thesis(id={thesis_id!r}, ...)")
    return thesis


def all_theses() -> list[Thesis]:
    return [get_thesis(i) for i in thesis_ids()]
