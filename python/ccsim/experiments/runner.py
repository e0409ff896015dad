"""Running a thesis's scenario files over seeds and collecting tidy tables.

A reproduction is a set of scenario files (one per experiment and protocol pair), run over
several seeds. This module runs them (through :mod:`ccsim.sweep`) and returns two pandas
tables: one row per (file, seed, flow) with the flow's batch means, and one row per (file,
seed, flow, interval). Thesis-specific code compares these with the thesis's numbers.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..sweep import Task, run_many


def repo_scenarios() -> Path:
    """The scenarios/ directory of the source tree this package was installed from."""
    return Path(__file__).resolve().parents[3] / "scenarios"


def source_number(flow_name: str) -> int | None:
    """Thesis source number from a flow name such as "3 Telnet" (None if it has none)."""
    m = re.match(r"\s*(\d+)\b", flow_name)
    return int(m.group(1)) if m else None


@dataclass
class Collected:
    flows: pd.DataFrame
    intervals: pd.DataFrame
    failures: list[tuple[str, int, str]]


def shorten(data: dict, factor: float) -> dict:
    """Scale a scenario's duration and measurement interval by ``factor`` (quick runs)."""
    from ..scenario_units import parse_seconds

    dur = parse_seconds(data["duration"]) * factor
    data["duration"] = f"{dur:g}s"
    m = data.setdefault("measure", {})
    if "interval" in m:
        m["interval"] = f"{parse_seconds(m['interval']) * factor:g}s"
    if "trace_period" in m:
        m["trace_period"] = f"{parse_seconds(m['trace_period']) * factor:g}s"
    return data


def add_jitter(data: dict, jitter: str) -> dict:
    """Give every link of a scenario processing jitter ``jitter`` (a duration), unless the
    link sets its own: a phase-sensitivity run of a deterministic scenario."""
    for link in data.get("links", []):
        link.setdefault("jitter", jitter)
    return data


def _edit(data: dict, quick_factor: float | None, jitter: str | None) -> dict:
    if quick_factor:
        shorten(data, quick_factor)
    if jitter:
        add_jitter(data, jitter)
    return data


def run_files(files: list[Path], seeds: list[int], *, quick_factor: float | None = None,
              workers: int | None = None, progress: bool = True, scheduler: str | None = None,
              keep_results: bool = False, jitter: str | None = None) -> Collected:
    tasks = []
    for f in files:
        for s in seeds:
            edit = None
            if quick_factor or jitter:
                edit = lambda d, q=quick_factor, j=jitter: _edit(d, q, j)
            tasks.append(Task(key=(f.stem, s), scenario=str(f), seed=s, edit=edit, meta={"file": f}))
    rows, irows, failures = [], [], []
    kept = {}
    for task, res in run_many(tasks, workers=workers, progress=progress, scheduler=scheduler):
        stem, seed = task.key
        if isinstance(res, Exception):
            failures.append((stem, seed, str(res)))
            continue
        if keep_results:
            kept[task.key] = res
        fl = res.flows.copy()
        fl.insert(0, "file", stem)
        fl.insert(1, "seed", seed)
        fl.insert(2, "source", [source_number(n) for n in fl["name"]])
        rows.append(fl)
        iv = res.intervals.copy()
        if len(iv):
            iv.insert(0, "file", stem)
            iv.insert(1, "seed", seed)
            iv.insert(2, "source", [source_number(n) for n in iv["flow_name"]])
            irows.append(iv)
    flows = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()
    intervals = pd.concat(irows, ignore_index=True) if irows else pd.DataFrame()
    out = Collected(flows, intervals, failures)
    if keep_results:
        out.results = kept  # type: ignore[attr-defined]
    return out


def load_reference(path: Path) -> dict:
    with open(path, "rb") as f:
        return tomllib.load(f)
