"""Many independent runs: a local pool by default, a Dask cluster when given one.

The engine releases the GIL while it simulates, so a thread pool keeps every core busy
without pickling scenarios or results. With ``scheduler="tcp://host:8786"`` (needs the
optional ``dask[distributed]``), the same tasks run on a Dask cluster instead (``_dask.py``).

    tasks = [Task(key=("s1", seed), scenario="scenarios/keshav91/s1-jk-fcfs.toml", seed=seed)
             for seed in range(1, 6)]
    for task, result in run_many(tasks, progress=True):
        ...
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator


@dataclass
class Task:
    key: Any
    scenario: Any  # path, TOML text, dict or ccsim.Scenario
    seed: int | None = None
    duration: str | None = None
    edit: Callable[[dict], dict] | None = None  # applied to the scenario dict before running
    meta: dict = field(default_factory=dict)


def _execute(task: Task, stop: threading.Event | None = None):
    from . import api

    scenario = task.scenario
    if task.edit is not None:
        import copy

        data = api._resolve(scenario)
        # The edit gets a copy of its own: the caller's dict, and the other tasks sharing it,
        # must not see one task's change.
        data = api._core.load_toml(data) if isinstance(data, str) else copy.deepcopy(data)
        data.update(api._overrides(seed=task.seed, duration=task.duration))
        edited = task.edit(data)
        if not isinstance(edited, dict):
            raise TypeError(f"task {task.key!r}: its edit returned {type(edited).__name__}; expected the "
                            f"scenario dict (an edit that changes it in place must return it too)")
        return api.run(edited, progress=False, stop=stop)
    return api.run(scenario, seed=task.seed, duration=task.duration, progress=False, stop=stop)


def run_many(tasks: list[Task], *, workers: int | None = None, progress: bool | str = True,
             scheduler: str | None = None) -> Iterator[tuple[Task, Any]]:
    """Run every task; yield (task, Results) as they finish (any order).

    A task that raises yields (task, exception) instead, so one bad run does not lose the
    others.
    """
    if scheduler:
        from ._dask import run_dask

        yield from run_dask(tasks, scheduler, progress)
        return
    workers = workers or os.cpu_count() or 1
    bar = _progress(len(tasks), progress if isinstance(progress, str) else "simulating") if progress else None
    # Set when the caller stops early (Ctrl-C, or it stops reading): the runs under way end at
    # their next slice and the ones not started are dropped, so an interrupted sweep stops at
    # once instead of running everything it had queued.
    stop = threading.Event()
    pool = ThreadPoolExecutor(max_workers=workers)
    # At most two runs per worker are submitted ahead of the caller: a caller slower than the
    # pool (one that reduces each run's packet trace) would otherwise have every finished
    # run's results waiting in memory at once.
    ahead = 2 * workers
    todo = iter(tasks)
    running: dict = {}
    try:
        while True:
            while len(running) < ahead:
                t = next(todo, None)
                if t is None:
                    break
                running[pool.submit(_execute, t, stop)] = t
            if not running:
                break
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            while done:
                fut = done.pop()
                t = running.pop(fut)
                try:
                    res = fut.result()
                except Exception as e:  # reported to the caller, not raised
                    res = e
                del fut
                if bar:
                    bar.advance()
                yield t, res
                del res
    finally:
        stop.set()
        pool.shutdown(wait=True, cancel_futures=True)
        if bar:
            bar.stop()


class _progress:
    """A rich progress bar on a terminal. Elsewhere (a log file, a pipe) silent, unless
    ``LINES_OFF_TERMINAL`` (the ``ccsim`` command sets it): then a line on standard error as a
    run finishes, at most every REPORT_EVERY_S seconds, so a long reproduction redirected to a
    file shows it is alive."""

    REPORT_EVERY_S = 30.0
    LINES_OFF_TERMINAL = False

    def __init__(self, total: int, label: str):
        import sys
        import time

        self._p = None
        self._total, self._done, self._label = total, 0, label
        self._start = self._last = time.monotonic()
        if sys.stderr.isatty():
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn, TimeRemainingColumn

            self._p = Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                               TimeElapsedColumn(), TimeRemainingColumn(), transient=True)
            self._p.start()
            self._t = self._p.add_task(label, total=total)

    def advance(self):
        self._done += 1
        if self._p:
            self._p.advance(self._t)
            return
        import sys
        import time

        now = time.monotonic()
        if self.LINES_OFF_TERMINAL and now - self._last >= self.REPORT_EVERY_S and self._done < self._total:
            self._last = now
            elapsed = now - self._start
            left = elapsed * (self._total - self._done) / self._done
            print(f"ccsim: {self._label}: {self._done} of {self._total} runs done, {_clock(elapsed)} elapsed, "
                  f"about {_clock(left)} left", file=sys.stderr, flush=True)

    def stop(self):
        if self._p:
            self._p.stop()


def _clock(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 60} min {s % 60:02d} s" if s >= 60 else f"{s} s"


# -- parameter sweeps over a scenario file ------------------------------------------------------

import hashlib
import itertools
import json
import re as _re
import tomllib as _tomllib

from ._core import __version__


def parse_path(path: str) -> list:
    """ "links[0].buffer" -> ["links", 0, "buffer"]. Raises ValueError with the reason."""
    parts: list = []
    for m in _re.finditer(r"([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|(\.)", path):
        if m.group(1):
            parts.append(m.group(1))
        elif m.group(2):
            parts.append(int(m.group(2)))
    rebuilt = "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else p) for i, p in enumerate(parts))
    if not parts or rebuilt != path:
        raise ValueError(f"expected a field path such as links[0].buffer, got {path!r}")
    return parts


def parse_value(text: str):
    """A TOML value if it parses as one (5, 2.5, true, "x", [1, 2]), else the bare string."""
    try:
        return _tomllib.loads(f"v = {text}")["v"]
    except _tomllib.TOMLDecodeError:
        return text


def parse_set(spec: str) -> tuple[str, list]:
    """ "flows[0].max_window=5,10,20" -> ("flows[0].max_window", [5, 10, 20])."""
    if "=" not in spec:
        raise ValueError(f"--set: expected PATH=VALUE[,VALUE...], got {spec!r}")
    path, values = spec.split("=", 1)
    if parse_path(path.strip()) == ["seed"]:
        raise ValueError("--set seed: the seed is varied with --seeds (e.g. --seeds 1..5)")
    vals = [parse_value(v.strip()) for v in _split_top(values) if v.strip()]
    if not vals:
        raise ValueError(f"--set {path}: no values")
    return path.strip(), vals


def _split_top(text: str) -> list[str]:
    """Split on commas outside brackets, braces and quotes ("[1, 2],3" -> ["[1, 2]", "3"])."""
    parts, depth, quote, cur = [], 0, "", []
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return parts


MAX_SEEDS = 1_000_000  # a range past this is a typo, not a sweep


def parse_seeds(spec: str) -> list[int]:
    """ "1..5" -> [1, 2, 3, 4, 5]; "1,3,7" -> [1, 3, 7]."""
    from .api import check_seed

    m = _re.fullmatch(r"\s*(\d+)\s*\.\.\s*(\d+)\s*", spec)
    if m:
        a, b = (check_seed(int(g), "--seeds") for g in m.groups())
        if b < a:
            raise ValueError(f"--seeds: empty range {spec!r}")
        if b - a >= MAX_SEEDS:
            raise ValueError(f"--seeds: expected at most {MAX_SEEDS} seeds, got {b - a + 1}")
        return list(range(a, b + 1))
    try:
        seeds = [int(x) for x in spec.split(",")]
    except ValueError:
        raise ValueError(f"--seeds: expected A..B or a comma list of integers, got {spec!r}") from None
    return [check_seed(x, "--seeds") for x in seeds]


def set_path(data: dict, path: str, value, *, label: str = "--set") -> None:
    """Set a field by path, creating tables on the way; list indices must exist. A path that
    indexes a table, names a field of a list or goes through a plain value is a ValueError
    that says which part (after ``label``, the option or argument the path came from)."""
    parts = parse_path(path)
    cur = data
    for i, p in enumerate(parts):
        where = "".join(f"[{q}]" if isinstance(q, int) else (f".{q}" if j else q) for j, q in enumerate(parts[:i]))
        last = i == len(parts) - 1
        if isinstance(p, int):
            if not isinstance(cur, list):
                raise ValueError(f"{label} {path}: {where} is not a list, so [{p}] does not apply")
            if p >= len(cur):
                raise ValueError(f"{label} {path}: {where} has {len(cur)} element{'s' if len(cur) != 1 else ''}, no [{p}]")
        elif not isinstance(cur, dict):
            kind = "a list: index it first, e.g. " + f"{where}[0].{p}" if isinstance(cur, list) else "a value, not a table"
            raise ValueError(f"{label} {path}: {where} is {kind}")
        if last:
            cur[p] = value
        elif isinstance(p, str) and p not in cur:
            cur[p] = [] if isinstance(parts[i + 1], int) else {}
            cur = cur[p]
        else:
            cur = cur[p]


def check_grid(base: dict, sets: list[tuple[str, list]], *, label: str = "--set") -> None:
    """Apply every combination of ``sets`` to ``base`` and validate it, before anything runs: a
    typo fails before hours of runs and before the output directory is made. A bad path is a
    ValueError (after ``label``); a value the engine refuses its ScenarioError, naming the
    combination."""
    import copy

    from . import api
    from ._core import ScenarioError

    for combo in itertools.product(*[v for _, v in sets]):
        data = copy.deepcopy(base)
        for (path, _), value in zip(sets, combo):
            set_path(data, path, value, label=label)
        try:
            api.validate(data)
        except ScenarioError as e:
            if not sets:
                raise
            given = ", ".join(f"{p}={v!r}" for (p, _), v in zip(sets, combo))
            raise ScenarioError(f"{e} (with {given})") from None


def engine_build() -> str:
    """Which engine ran: ccsim's version and its compiled extension's size and modification
    time (the version alone does not change between builds of a checkout)."""
    from . import _core

    try:
        st = os.stat(_core.__file__)
        return f"{__version__}:{st.st_size}:{st.st_mtime_ns}"
    except (OSError, AttributeError, TypeError):
        return __version__


def _stored(f) -> bool:
    """True if ``f`` holds a finished run's record; a missing, truncated or foreign file is
    run again (and then replaced whole)."""
    try:
        rec = json.loads(f.read_text())
    except (OSError, ValueError):
        return False
    return isinstance(rec, dict) and isinstance(rec.get("flows"), list)


def sweep(base: dict, sets: list[tuple[str, list]], seeds: list[int], out_dir, *, workers=None,
          scheduler=None, progress=True):
    """Run every combination of the `sets` values for every seed. Each finished run is saved
    as out_dir/runs/<key>.json at once (written atomically), the key a hash of the whole
    scenario the run simulates; a run whose file exists is not run again, so an interrupted
    sweep resumes where it stopped, and a changed scenario runs afresh. Returns the per-flow table
    of every run (pandas), also written to out_dir/sweep.parquet, and the failed runs as
    (params, seed, message): ``(table, failures)``. :func:`ccsim.run_sweep` is the friendlier
    entry (any scenario form, a dict of values, checked before anything runs)."""
    import copy
    from pathlib import Path

    import pandas as pd

    from ._files import atomic_write_text

    out = Path(out_dir)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    names = [p for p, _ in sets]
    engine = engine_build()
    tasks, planned, queued = [], [], set()
    for combo in itertools.product(*[v for _, v in sets]) if sets else [()]:
        params = dict(zip(names, combo))
        for seed in seeds:
            data = copy.deepcopy(base)
            for p, v in params.items():
                set_path(data, p, v)
            data["seed"] = seed
            # A run is known by the whole scenario it ran, not by its parameters alone: an
            # edited base file, or another scenario sweeping into the same directory, must run
            # afresh rather than pick up a stored result of something else. Combinations that
            # make the same scenario share one run.
            # The engine's build is part of the key: after an upgrade or a rebuild a sweep runs
            # afresh rather than return the old engine's results as the new one's.
            key = hashlib.sha1(json.dumps({"scenario": data, "engine": engine}, sort_keys=True,
                                          default=str).encode()).hexdigest()[:16]
            f = out / "runs" / f"{key}.json"
            planned.append((params, seed, f))
            if not _stored(f) and key not in queued:
                queued.add(key)
                tasks.append(Task(key=key, scenario=data, meta={"params": params, "seed": seed, "file": f}))
    failures = []
    for task, res in run_many(tasks, workers=workers, progress=progress, scheduler=scheduler):
        if isinstance(res, Exception):
            failures.append((task.meta["params"], task.meta["seed"], str(res)))
            continue
        record = {"params": task.meta["params"], "seed": task.meta["seed"], "ccsim": __version__, "engine": engine,
                  "run": res.summary()["run"],
                  "flows": json.loads(res.flows.to_json(orient="records"))}
        atomic_write_text(task.meta["file"], json.dumps(record))
    # Rows carry this sweep's parameters: a stored run may have been made by another sweep
    # that reached the same scenario by other settings.
    rows = []
    for params, seed, f in planned:
        if not _stored(f):  # the run failed
            continue
        rec = json.loads(f.read_text())
        for fl in rec["flows"]:
            rows.append({**{f"param:{k}": (json.dumps(v) if isinstance(v, (list, dict)) else v) for k, v in params.items()},
                         "seed": seed, **fl})
    table = pd.DataFrame(rows)
    # A metric no run measured (a CBR flow's delay) comes back from JSON as None: keep it a
    # float column of NaN, as in the run's own table.
    for c in [c for c in table.columns if not c.startswith("param:") and c.endswith(("_pps", "_bps", "_s", "_rate", "_sd"))]:
        if table[c].dtype == object:
            table[c] = pd.to_numeric(table[c], errors="coerce").astype("float64")
    # The scenario's name travels with the table (pandas keeps attrs in the parquet file), so
    # `ccsim plot` can title a redrawn figure as the sweep did.
    table.attrs["scenario"] = str(base.get("name") or "")
    if len(table):
        tmp = out / ".tmp-sweep.parquet"
        table.to_parquet(tmp, index=False)
        tmp.replace(out / "sweep.parquet")
    return table, failures
