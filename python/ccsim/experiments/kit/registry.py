"""The registered theses (:data:`ccsim.experiments.THESES`), by id.

A thesis's id is its folder's name, with hyphens for the underscores a Python module name
needs ("cui-buffers" is the folder ``cui_buffers``)."""

from __future__ import annotations

import importlib

from .thesis import Thesis


def thesis_ids() -> list[str]:
    from .. import THESES

    return [m.replace("_", "-") for m in THESES]


def get_thesis(thesis_id: str) -> Thesis:
    """The registered thesis ``thesis_id``; ValueError listing the known ones otherwise."""
    ids = thesis_ids()
    if thesis_id not in ids:
        raise ValueError(f"reproduce: unknown thesis {thesis_id!r}; expected one of: {', '.join(ids)} "
                         f"(ccsim reproduce --list)")
    module_name = f"ccsim.experiments.{thesis_id.replace('-', '_')}"
    module = importlib.import_module(module_name)
    thesis = getattr(module, "THESIS", None)
    if not isinstance(thesis, Thesis) or thesis.id != thesis_id:
        raise RuntimeError(f"{module_name} must define THESIS = Thesis(id={thesis_id!r}, ...)")
    return thesis


def all_theses() -> list[Thesis]:
    return [get_thesis(i) for i in thesis_ids()]
