"""What a thesis tells the kit: the :class:`Thesis` object each thesis module exposes.

A thesis is a folder ``ccsim/experiments/<id>/`` whose ``__init__.py`` defines ``THESIS =
Thesis(...)``; its data (``reference.toml``, ``findings/*.toml``) sit beside it and its
scenario files in ``ccsim/scenarios/<id>/``. The kit drives everything else: running, judging,
the report. Hooks let the thesis add what only it knows: figures drawn in its own forms,
report sections, derived trace quantities for its checks.

The module must stay light to import (``ccsim reproduce --list`` imports every registered
thesis): hooks import matplotlib and their drawing code only when called.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Callable, Mapping


@dataclass(frozen=True)
class Thesis:
    id: str
    """The command-line name (``ccsim reproduce <id>``), also the folder of its scenario
    files (``ccsim/scenarios/<id>``) and the default report directory (``results/<id>``)."""
    title: str
    """One line: what is reproduced, e.g. "Keshav 1991, Chapter 6"."""
    package: str
    """The thesis module's ``__name__``: its data files are found beside it."""
    quick_seeds: int = 2
    """Seeds of a ``--quick`` run."""
    quick_factor: float = 0.5
    """``--quick`` scales every duration by this (scenarios with fixed phases run in full)."""
    default_seeds: int | None = None
    """Seeds of a full run; None: the reference's ``[tolerance].seeds`` (else 5)."""
    trace_scenarios: frozenset[str] = frozenset()
    """Scenarios whose runs keep their traces for figures (those with trace or probe checks
    keep them anyway)."""
    derived_traces: Mapping[str, tuple] = field(default_factory=dict)
    """Trace quantities of the thesis's own for its checks: name -> (columns needed, function
    of the trace rows), beside :data:`ccsim.experiments.kit.frames.DERIVED_TRACES`."""
    extra_rows: Callable | None = None
    """``extra_rows(results)``: rows to add to a run's flows table (dicts or a DataFrame with a
    ``name`` that starts with a source number, and metric columns): quantities of ports or
    traffic classes that cells and checks then read as they read flows'. Called once per run,
    in the main process, with the run's :class:`ccsim.Results`."""
    sweep_rows: Callable | None = None
    """``sweep_rows(flows)``: rows computed across runs (a fit over a sweep's points, say),
    given the whole flows table (columns file, seed, source, name and the metrics) once every
    run is in; returns rows with ``file``, ``seed`` and a ``name`` starting with a source
    number (dicts or a DataFrame), which join the flows table as if that run had reported
    them, so cells and checks read them like any other."""
    figures: Callable | None = None
    """``figures(board, ctx)``: draw the thesis's figures into ``board``
    (:class:`ccsim.experiments.kit.report.FigureBoard`) from ``ctx``
    (:class:`ccsim.experiments.kit.report.ReportContext`)."""
    sections: Callable | None = None
    """``sections(doc, ctx)``: add report sections of the thesis's own (after the findings)."""
    runtime: str = ""
    """How long a full and a ``--quick`` run take on the 2-core reference machine
    (docs/reproductions.md), for ``ccsim reproduce --list``, e.g. "full 45 s, --quick 6 s"."""
    method_note: str = ""
    """A sentence for the report on how this thesis's values are read, beside the kit's own."""
    built_scenarios: Callable | None = None
    """``built_scenarios()`` -> {file name: TOML text}: scenario files the thesis builds when a
    reproduction needs them instead of shipping them (sweeps of hundreds of large files). A run
    that needs one writes the files it runs, built and shipped, to ``<out>/scenarios/`` and runs
    them from there, so the report directory keeps exactly what ran."""
    scenario_path: Path | None = None
    """Where its scenario files are; None: the package's ``ccsim/scenarios/<id>``. Set it (with
    ``dataclasses.replace``) to run the reproduction on edited copies of the files."""

    def data_path(self, *parts: str) -> Path:
        """A file of the thesis's folder (inside the installed package)."""
        return Path(str(resources.files(self.package).joinpath(*parts)))

    @property
    def reference(self) -> Path:
        return self.data_path("reference.toml")

    @property
    def findings_dir(self) -> Path:
        return self.data_path("findings")

    @property
    def scenario_dir(self) -> Path:
        from .runner import package_scenarios

        return Path(self.scenario_path) if self.scenario_path is not None else package_scenarios() / self.id
