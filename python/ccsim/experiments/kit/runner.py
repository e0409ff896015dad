"""Running a thesis's scenario files over seeds and collecting tidy tables.

A reproduction is a set of scenario files (one per experiment and protocol pair, or per point
of a sweep), shipped in the package under ``ccsim/scenarios/<thesis>/`` and run over several
seeds through :mod:`ccsim.sweep` (a local pool, or a Dask cluster). :func:`run_scenarios`
returns the tidy tables the judging reads: one row per (file, seed, flow) with the flow's
batch means, one per (file, seed, flow, interval), the periodic traces and the packet-pair
probe records of the runs that keep them, and one row per run with its error, if any.

Each run can be edited on the way (:func:`edit_scenario`): shortened (``--quick``), given
processing jitter on every link (``--jitter``), or given parameter overrides (``--param``,
:mod:`.params`). A flow's source number is the number its name starts with ("3 Telnet").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Mapping

import pandas as pd

from ...sweep import Task, run_many
from .params import apply_params
from .reference import scenario_runs


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
    """What :func:`run_files` collected: flows and intervals tables, the runs that failed
    (file stem, seed, error) and, when asked to keep them, the Results of each run."""
    flows: pd.DataFrame
    intervals: pd.DataFrame
    failures: list[tuple[str, int, str]]
    results: dict = field(default_factory=dict)


def shorten(data: dict, factor: float) -> dict:
    """Scale a scenario's duration, measurement interval, trace period and departure-trace
    start by ``factor`` (quick runs)."""
    from ...scenario_units import parse_seconds

    dur = parse_seconds(data["duration"]) * factor
    data["duration"] = f"{dur:g}s"
    m = data.setdefault("measure", {})
    if "interval" in m:
        m["interval"] = f"{parse_seconds(m['interval']) * factor:g}s"
    if "trace_period" in m:
        m["trace_period"] = f"{parse_seconds(m['trace_period']) * factor:g}s"
    if "departures_from" in m:
        m["departures_from"] = f"{parse_seconds(m['departures_from']) * factor:g}s"
    return data


def add_jitter(data: dict, jitter: str) -> dict:
    """Give every link of a scenario processing jitter ``jitter`` (a duration), unless the
    link sets its own: a phase-sensitivity run of a deterministic scenario."""
    for link in data.get("links", []):
        link.setdefault("jitter", jitter)
    return data


def edit_scenario(data: dict, quick_factor: float | None, jitter: str | None, params=()) -> dict:
    """A scenario's data as a variant run simulates it: shortened by ``quick_factor``, with
    ``jitter`` on every link and the ``params`` overrides applied."""
    if quick_factor:
        shorten(data, quick_factor)
    if jitter:
        add_jitter(data, jitter)
    if params:
        apply_params(data, params)
    return data


def run_files(files: list[Path], seeds: list[int], *, quick_factor: float | None = None,
              workers: int | None = None, progress: bool = True, scheduler: str | None = None,
              keep_results: bool = False, jitter: str | None = None, params=(),
              extra_rows=None) -> Collected:
    """Run every file over every seed (edited as :func:`edit_scenario` says). ``extra_rows``
    (a thesis's hook, :attr:`Thesis.extra_rows`) turns each run's results into more rows of
    the flows table: quantities of ports or classes that the thesis's cells read like flows'."""
    tasks = []
    params = tuple(params)
    for f in files:
        for s in seeds:
            edit = None
            if quick_factor or jitter or params:
                edit = lambda d, q=quick_factor, j=jitter, p=params: edit_scenario(d, q, j, p)
            tasks.append(Task(key=(f.stem, s), scenario=str(f), seed=s, edit=edit, meta={"file": f}))
    rows, irows, failures = [], [], []
    out = Collected(pd.DataFrame(), pd.DataFrame(), failures)
    for task, res in run_many(tasks, workers=workers, progress=progress, scheduler=scheduler):
        stem, seed = task.key
        if isinstance(res, Exception):
            failures.append((stem, seed, str(res)))
            continue
        if keep_results:
            out.results[task.key] = res
        fl = res.flows.copy()
        if extra_rows is not None:
            more = extra_rows(res)
            if more is not None and len(more):
                fl = pd.concat([fl, pd.DataFrame(more)], ignore_index=True)
        fl.insert(0, "file", stem)
        fl.insert(1, "seed", seed)
        fl.insert(2, "source", [source_number(n) for n in fl["name"]])
        rows.append(fl)
        iv = res.intervals.copy()
        if len(iv):
            iv.insert(0, "file", stem)
            iv.insert(1, "seed", seed)
            iv.insert(2, "source", [source_number(n) for n in iv["flow_name"]])
            iv["used"] = iv["interval"] >= int(res.run["discard"])  # what the batch means use
            irows.append(iv)
    if rows:
        out.flows = pd.concat(rows, ignore_index=True)
    if irows:
        out.intervals = pd.concat(irows, ignore_index=True)
    return out


def validate_file(path: Path) -> str | None:
    """None if the scenario file validates, else the engine's complaint (never raised)."""
    from ... import api

    if not path.exists():
        return f"{path.name}: no such scenario file"
    try:
        api.validate(path)
    except Exception as e:  # any engine complaint: reported, never raised
        return str(e)
    return None


@dataclass
class RunTables:
    """The tidy tables of a reproduction's runs (each frame has columns file, seed, source)."""
    flows: pd.DataFrame
    intervals: pd.DataFrame
    traces: pd.DataFrame       # periodic samples: window, outstanding packets, RTT, estimator state
    probes: pd.DataFrame       # every packet-pair probe of the traced runs
    runs: pd.DataFrame         # one row per run: scenario, pair, file, seeds_ok, error
    # periodic samples of the traced runs' traced ports: queue, discipline state (no source)
    queues: pd.DataFrame = field(default_factory=pd.DataFrame)


def _tagged(df: pd.DataFrame, stem: str, seed: int) -> pd.DataFrame:
    df = df.copy()
    df.insert(0, "file", stem)
    df.insert(1, "seed", seed)
    df.insert(2, "source", [source_number(n) for n in df["flow_name"]])
    return df


def _concat(frames: list[pd.DataFrame], columns: list[str]) -> pd.DataFrame:
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)


def run_scenarios(ref: dict, scenarios: list[str], seeds: list[int], scenario_dir: Path, *,
                  quick_factor: float | None = None, trace_scenarios=frozenset(), jobs: int | None = None,
                  scheduler: str | None = None, progress: bool = True, jitter: str | None = None,
                  params=(), extra_rows=None, quick_runs: bool = False,
                  scenario_seeds: Mapping[str, list[int]] | None = None,
                  port_traces: Mapping[tuple[str, str | None], set[str]] | None = None) -> RunTables:
    """Run the scenario files of the ``scenarios`` (ids) of ``ref`` over ``seeds`` (a scenario
    named in ``scenario_seeds`` over its own list; with ``quick_runs``, only the sweep points
    their ``quick`` lists name). A scenario
    with fixed ``phases`` is never shortened; the runs of ``trace_scenarios`` keep their traces
    and probe records, and of the ports ``port_traces`` names per (scenario, pair; None: every
    pair), their queue traces.
    A file that does not validate, or a run that fails, is reported in the
    runs table, never raised. A file two scenarios share runs once, over the longer seed list."""
    runs_rows, plan, kept_ports = [], {}, {}
    for sc in ref["scenarios"]:
        sid = sc["scenario"]
        if sid not in scenarios:
            continue
        own = list((scenario_seeds or {}).get(sid, seeds))
        for pair, stem in scenario_runs(sc, quick_runs).items():
            runs_rows.append({"scenario": sid, "pair": pair, "file": stem})
            for key in ((sid, pair), (sid, None)):
                kept_ports.setdefault(stem, set()).update((port_traces or {}).get(key, ()))
            factor = quick_factor if "phases" not in sc else None
            keep = sid in trace_scenarios
            if stem in plan:
                f0, k0, s0 = plan[stem]
                own_or_longer = own if len(own) > len(s0) else s0
                # a shared file is shortened only if neither scenario fixes its phases
                plan[stem] = (f0 if f0 == factor else None, k0 or keep, own_or_longer)
            else:
                plan[stem] = (factor, keep, own)
    groups: dict[tuple, list[str]] = {}
    for stem, (factor, keep, own) in plan.items():
        groups.setdefault((factor, keep, tuple(own)), []).append(stem)
    runs = pd.DataFrame(runs_rows, columns=["scenario", "pair", "file"])
    errors: dict[str, str] = {}
    flows, intervals, traces, probes, queues, failures = [], [], [], [], [], []
    for (factor, keep, group_seeds), stems in groups.items():
        todo = []
        for stem in stems:
            err = validate_file(scenario_dir / f"{stem}.toml")
            if err:
                errors[stem] = err
            else:
                todo.append(scenario_dir / f"{stem}.toml")
        if not todo:
            continue
        got = run_files(todo, list(group_seeds), quick_factor=factor, workers=jobs, progress=progress,
                        scheduler=scheduler, keep_results=keep, jitter=jitter, params=params,
                        extra_rows=extra_rows)
        if len(got.flows):
            flows.append(got.flows)
        if len(got.intervals):
            intervals.append(got.intervals)
        failures.extend(got.failures)
        for (stem, seed), res in got.results.items():
            if len(res.cwnd):
                traces.append(_tagged(res.cwnd, stem, seed))
            pr = getattr(res, "probes", None)
            if pr is not None and len(pr):
                probes.append(_tagged(pr, stem, seed))
            wanted = kept_ports.get(stem)
            if wanted and len(res.queues):
                q = res.queues[res.queues["port_name"].isin(wanted)]
                queues.append(q.assign(file=stem, seed=seed))
    key = ["file", "seed", "source"]
    flows_df, iv_df = _concat(flows, key), _concat(intervals, key)
    tr_df, pr_df = _concat(traces, key + ["time_s"]), _concat(probes, key + ["time_s"])
    seed_errors: dict[str, list[str]] = {}
    for stem, seed, msg in failures:
        seed_errors.setdefault(stem, []).append(msg)
    # per row: the seeds of that scenario's own list the file has rows for (a file shared with
    # a scenario of more seeds ran over more)
    ok_seeds = {f: set(v) for f, v in flows_df.groupby("file")["seed"].unique().items()} if len(flows_df) else {}
    runs["seeds_ok"] = [len(ok_seeds.get(f, set()) & set((scenario_seeds or {}).get(sid, seeds)))
                        for sid, f in zip(runs["scenario"], runs["file"])]
    runs["error"] = [errors.get(f) or "; ".join(dict.fromkeys(seed_errors.get(f, []))) for f in runs["file"]]
    q_df = _concat(queues, ["file", "seed", "port_name", "time_s"])
    return RunTables(flows_df, iv_df, tr_df, pr_df, runs, q_df)
