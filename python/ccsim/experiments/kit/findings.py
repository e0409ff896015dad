"""Findings: the investigated reasons why reproduced cells or checks differ from the thesis.

Each file in a thesis's findings/*.toml holds [[finding]] entries (format: docs/adding-a-thesis.md
and the thesis's findings/README.md). A finding covers the cells whose scenario, pair (or
curve), table, metric and source match its scope, and the qualitative checks it names. The
report prints each failure with the findings that explain it and counts the failures no
finding explains.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

KINDS = ("phase", "model-choice", "thesis-inconsistent", "engine-limitation", "open")


@dataclass
class Finding:
    id: str
    scenario: str
    kind: str
    explanation: str
    evidence: str
    pairs: list[str] = field(default_factory=list)
    tables: list[str] = field(default_factory=list)
    metrics: list[str] = field(default_factory=list)
    sources: list[int] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)
    file: str = ""

    def covers_cell(self, scenario: str, table: str, pair: str, metric: str, source: int | None) -> bool:
        """Does the finding cover this cell? ``pair`` is a curve's name for a curve cell;
        ``source`` None for a cell that reads no single flow (which a `sources` scope leaves out)."""
        return (self.scenario == scenario
                and (not self.pairs or pair in self.pairs)
                and (not self.tables or table in self.tables)
                and (not self.metrics or metric in self.metrics)
                and (not self.sources or source in self.sources))


def load(directory: Path, scenario_ids: list[str] | None = None) -> list[Finding]:
    """Every finding in ``directory``, checked: a malformed file, or one that names a scenario
    not among ``scenario_ids`` (when given), raises ValueError naming the file and field."""
    out: list[Finding] = []
    seen: set[str] = set()
    for f in sorted(directory.glob("*.toml")):
        with open(f, "rb") as fh:
            data = tomllib.load(fh)
        for i, d in enumerate(data.get("finding", [])):
            where = f"{f.name}: finding[{i}]"
            for key in ("id", "scenario", "kind", "explanation", "evidence"):
                if key not in d:
                    raise ValueError(f"{where}: missing {key!r}")
            if not isinstance(d["scenario"], str) or (scenario_ids is not None and d["scenario"] not in scenario_ids):
                expected = f"one of {', '.join(scenario_ids)}" if scenario_ids else 'a scenario id such as "S1"'
                raise ValueError(f"{where}.scenario: expected {expected}, got {d['scenario']!r}")
            if d["kind"] not in KINDS:
                raise ValueError(f"{where}.kind: expected one of {', '.join(KINDS)}, got {d['kind']!r}")
            if d["id"] in seen:
                raise ValueError(f"{where}.id: {d['id']!r} is used twice")
            unknown = set(d) - {"id", "scenario", "kind", "explanation", "evidence", "pairs", "tables",
                                "metrics", "sources", "checks"}
            if unknown:
                raise ValueError(f"{where}: unknown keys {sorted(unknown)}")
            seen.add(d["id"])
            out.append(Finding(id=d["id"], scenario=d["scenario"], kind=d["kind"],
                               explanation=d["explanation"].strip(), evidence=d["evidence"].strip(),
                               pairs=list(d.get("pairs", [])), tables=[str(t) for t in d.get("tables", [])],
                               metrics=list(d.get("metrics", [])), sources=[int(s) for s in d.get("sources", [])],
                               checks=list(d.get("checks", [])), file=f.name))
    return out


def annotate_cells(cells, findings: list[Finding]):
    """Add a `finding` column: the ids of the findings covering each cell (comma-separated)."""
    if not len(cells):
        cells["finding"] = []
        return cells
    cells["finding"] = [
        ", ".join(f.id for f in findings if f.covers_cell(r.scenario, str(r.table), r.pair, r.metric, _source(r.source)))
        for r in cells.itertuples()
    ]
    return cells


def _source(v) -> int | None:
    return None if v is None or v != v else int(v)


def annotate_checks(q, findings: list[Finding]):
    """Add a `finding` column: the ids of the findings naming each check."""
    if not len(q):
        q["finding"] = []
        return q
    q["finding"] = [", ".join(f.id for f in findings if r.id in f.checks) for r in q.itertuples()]
    return q
