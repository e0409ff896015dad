"""Many independent runs: a local pool by default, a Dask cluster when given one.

The engine releases the GIL while it simulates, so a thread pool keeps every core busy
without pickling scenarios or results. With ``scheduler="tcp://host:8786"`` (needs the
optional ``dask[distributed]``), the same tasks run on a Dask cluster instead.

    tasks = [Task(key=("s1", seed), scenario="scenarios/keshav91/s1-jk-fcfs.toml", seed=seed)
             for seed in range(1, 6)]
    for task, result in run_many(tasks, progress=True):
        ...
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor, as_completed
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


def _execute(task: Task):
    from . import api

    scenario = task.scenario
    if task.edit is not None:
        data = api._resolve(scenario, {"seed": task.seed, "duration": task.duration})
        if isinstance(data, str):
            import tomllib
            data = tomllib.loads(data)
        data = task.edit(data)
        return api.run(data)
    return api.run(scenario, seed=task.seed, duration=task.duration)


def run_many(tasks: list[Task], *, workers: int | None = None, progress: bool | str = True,
             scheduler: str | None = None) -> Iterator[tuple[Task, Any]]:
    """Run every task; yield (task, Results) as they finish (any order).

    A task that raises yields (task, exception) instead, so one bad run does not lose the
    others.
    """
    if scheduler:
        yield from _run_dask(tasks, scheduler, progress)
        return
    workers = workers or os.cpu_count() or 1
    bar = _progress(len(tasks), progress if isinstance(progress, str) else "simulating") if progress else None
    try:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(_execute, t): t for t in tasks}
            for fut in as_completed(futures):
                t = futures[fut]
                try:
                    res = fut.result()
                except Exception as e:  # reported to the caller, not raised
                    res = e
                if bar:
                    bar.advance()
                yield t, res
    finally:
        if bar:
            bar.stop()


def _run_dask(tasks, scheduler, progress):
    try:
        from distributed import Client, as_completed as dask_completed
    except ImportError:
        from ._core import ScenarioError
        raise ScenarioError("--scheduler needs the optional dependency: pip install 'ccsim[dask]'") from None
    client = Client(scheduler)
    try:
        futures = client.map(_execute, tasks, pure=False)
        index = {f.key: t for f, t in zip(futures, tasks)}
        bar = _progress(len(tasks), "simulating on dask") if progress else None
        for fut in dask_completed(futures):
            t = index[fut.key]
            try:
                res = fut.result()
            except Exception as e:
                res = e
            if bar:
                bar.advance()
            yield t, res
        if bar:
            bar.stop()
    finally:
        client.close()


class _progress:
    """A rich progress bar on a terminal; silent otherwise."""

    def __init__(self, total: int, label: str):
        import sys

        self._p = None
        if sys.stderr.isatty():
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn, TimeRemainingColumn

            self._p = Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                               TimeElapsedColumn(), TimeRemainingColumn(), transient=True)
            self._p.start()
            self._t = self._p.add_task(label, total=total)

    def advance(self):
        if self._p:
            self._p.advance(self._t)

    def stop(self):
        if self._p:
            self._p.stop()
