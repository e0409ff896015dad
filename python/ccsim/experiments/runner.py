"""Running a thesis's scenario files over seeds and collecting tidy tables.

A reproduction is a set of scenario files (one per experiment and protocol pair), run over
several seeds. This module runs them (through :mod:`ccsim.sweep`) and returns two pandas
tables: one row per (file, seed, flow) with the flow's batch means, and one row per (file,
seed, flow, interval). Thesis-specific code compares these with the thesis's numbers.
"""

from __future__ import annotations

import re
import tomllib
from importlib import resources
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..sweep import Task, run_many


def package_scenarios() -> Path:
    """The scenario files shipped inside the package (ccsim/scenarios/), wherever it is
    installed: a checkout's python/ccsim/scenarios or site-packages/ccsim/scenarios."""
    return Path(str(resources.files("ccsim").joinpath("scenarios")))


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


# What a parameter override may name: a congestion-control algorithm (its flows' `params`), a
# queue discipline (the `queue_params` of the links and link directions that use it), or
# `links` (a key of every link itself: buffer, count_in_service, jitter).
CC_TARGETS = ("generic", "jk", "reno", "newreno", "dec", "pp", "pp2")
QUEUE_TARGETS = ("fq", "fqbit", "decbit", "droptail")
LINK_TARGET = "links"


@dataclass(frozen=True)
class ParamOverride:
    """One `--param TARGET.KEY=VALUE`: set KEY to VALUE in every flow whose `cc` is TARGET, in
    the queue parameters of every port whose discipline is TARGET, or (TARGET `links`) on
    every link. This is how the readings a thesis leaves open (each a named parameter) are
    tried over a whole reproduction without editing the scenario files."""
    target: str
    key: str
    value: object
    text: str

    def __str__(self) -> str:
        return self.text


def parse_param(text: str) -> ParamOverride:
    """"generic.retransmit=expired" -> ParamOverride; ValueError naming what was expected.
    VALUE is read as a TOML value (1.5, true, "2s") and otherwise taken as a bare string."""
    expected = (f"expected TARGET.KEY=VALUE with TARGET a flow's cc ({', '.join(CC_TARGETS)}), a queue "
                f"discipline ({', '.join(QUEUE_TARGETS)}) or {LINK_TARGET}, e.g. generic.retransmit=expired "
                f"or links.buffer=60pkt")
    m = re.fullmatch(r"\s*([A-Za-z0-9_]+)\.([A-Za-z0-9_]+)\s*=\s*(.*?)\s*", text)
    if not m or not m.group(3):
        raise ValueError(f"--param: {expected}; got {text!r}")
    target, key, raw = m.group(1).lower(), m.group(2), m.group(3)
    if target not in CC_TARGETS + QUEUE_TARGETS + (LINK_TARGET,):
        raise ValueError(f"--param {text}: unknown target {target!r}; {expected}")
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    return ParamOverride(target, key, value, f"{target}.{key}={raw}")


def apply_params(data: dict, overrides) -> int:
    """Apply ``overrides`` to a scenario's data in place; returns how many places were set."""
    n = 0
    for ov in overrides:
        if ov.target in CC_TARGETS:
            for flow in data.get("flows", []):
                if flow.get("cc") == ov.target:
                    flow.setdefault("params", {})[ov.key] = ov.value
                    n += 1
            continue
        if ov.target == LINK_TARGET:
            for link in data.get("links", []):
                link[ov.key] = ov.value
                n += 1
            continue
        for link in data.get("links", []):
            shared = link.get("queue", "droptail")
            if shared == ov.target:
                link.setdefault("queue_params", {})[ov.key] = ov.value
                n += 1
            # A direction table with its own discipline or parameters does not inherit the
            # link's queue_params (scenario format), so it is set on its own.
            for side in ("forward", "reverse"):
                d = link.get(side)
                if isinstance(d, dict) and ("queue" in d or "queue_params" in d) and d.get("queue", shared) == ov.target:
                    d.setdefault("queue_params", {})[ov.key] = ov.value
                    n += 1
    return n


def _edit(data: dict, quick_factor: float | None, jitter: str | None, params=()) -> dict:
    if quick_factor:
        shorten(data, quick_factor)
    if jitter:
        add_jitter(data, jitter)
    if params:
        apply_params(data, params)
    return data


def run_files(files: list[Path], seeds: list[int], *, quick_factor: float | None = None,
              workers: int | None = None, progress: bool = True, scheduler: str | None = None,
              keep_results: bool = False, jitter: str | None = None, params=()) -> Collected:
    tasks = []
    params = tuple(params)
    for f in files:
        for s in seeds:
            edit = None
            if quick_factor or jitter or params:
                edit = lambda d, q=quick_factor, j=jitter, p=params: _edit(d, q, j, p)
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
