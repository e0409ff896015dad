"""run_many's Dask side (``scheduler=``): tasks sent to a cluster a few at a time, each result
released once handed over, and a cluster-wide event that stops the runs under way when the
caller stops early (docs/cluster.md)."""

from __future__ import annotations

import os

from .sweep import Task, _execute, _progress


def _portable(task: Task) -> Task:
    """``task`` with a scenario file replaced by its text, so a worker on another machine (or
    in another directory) runs what the caller named; anything else is sent as it is. Raises
    what reading the file raises, here, where the file is."""
    import dataclasses

    from . import api

    if isinstance(task.scenario, (str, os.PathLike)):
        return dataclasses.replace(task, scenario=api._resolve(task.scenario))
    return task


def _execute_on_worker(task: Task, stop_name: str):
    """:func:`_execute` on a Dask worker; the caller stops the runs under way by setting the
    cluster-wide event ``stop_name`` (each run looks at it once a slice)."""
    from distributed import Event

    return _execute(task, Event(stop_name))


def run_dask(tasks, scheduler, progress):
    """As the local pool: tasks go to the cluster two per worker thread ahead of the caller,
    each result is released on the cluster once handed over (a long sweep holds about as many
    finished runs in the workers' memory as the local pool would here), a task that cannot be
    sent comes back as its error, and a caller that stops early stops the runs under way."""
    import uuid

    from ._core import ScenarioError

    try:
        from distributed import Client, Event, as_completed as dask_completed
    except ImportError:
        raise ScenarioError("--scheduler needs the optional dependency: pip install 'ccsim[dask]'") from None
    try:
        client = Client(scheduler)
    except ValueError as e:
        raise ConnectionError(f"--scheduler {scheduler}: not a Dask scheduler address ({e})") from None
    except (OSError, TimeoutError) as e:
        raise ConnectionError(f"--scheduler {scheduler}: cannot reach a Dask scheduler there ({e})") from None
    tasks = list(tasks)
    stop_name = f"ccsim-stop-{uuid.uuid4().hex}"
    stop = Event(stop_name, client=client)
    running: dict = {}
    refused: list = []   # (task, error) of tasks that could not be sent
    bar = None
    try:
        todo = iter(tasks)
        left = [len(tasks)]

        def top_up(queue) -> None:
            # The window follows the cluster: workers that join later get work too.
            ahead = 2 * max(1, sum(client.nthreads().values()))
            while left[0] and len(running) < ahead:
                t = next(todo)
                left[0] -= 1
                try:
                    fut = client.submit(_execute_on_worker, _portable(t), stop_name, pure=False)
                except Exception as e:  # unreadable file, unpicklable task: that task's result
                    refused.append((t, e))
                    continue
                running[fut] = t
                queue.add(fut)

        queue = dask_completed([])
        top_up(queue)
        bar = _progress(len(tasks), "simulating on dask") if progress else None

        def handed(t, res):
            if bar:
                bar.advance()
            return t, res

        while refused or running:
            while refused:
                yield handed(*refused.pop(0))
            if not running:
                top_up(queue)
                continue
            fut = next(queue)
            t = running.pop(fut)
            try:
                res = fut.result()
            except Exception as e:  # reported to the caller, not raised
                res = e
            fut.release()
            del fut
            top_up(queue)
            yield handed(t, res)
            del res
    finally:
        if running:
            stop.set()  # the runs under way end at their next slice
            for fut in running:
                fut.cancel()
        if bar:
            bar.stop()
        client.close()
