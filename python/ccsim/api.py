"""Running and validating scenarios from Python."""

from __future__ import annotations

import operator
import os
from pathlib import Path
from typing import Any, Mapping, Union

from . import _core
from ._core import ScenarioError

ScenarioLike = Union[str, os.PathLike, Mapping[str, Any], "Scenario"]  # noqa: F821


SEED_LIMIT = 2**63  # a scenario's seed is a TOML integer (i64), non-negative


def check_seed(value: int, what: str = "seed") -> int:
    """``value`` if it is a seed a scenario can hold (0 to 2^63 - 1), else ValueError naming
    ``what``."""
    if not 0 <= value < SEED_LIMIT:
        raise ValueError(f"{what}: expected an integer from 0 to 2^63 - 1, got {value}")
    return value


def _in_package(path: Union[str, os.PathLike]) -> Path | None:
    """Where a relative path such as ``scenarios/examples/dumbbell.toml`` (or
    ``examples/dumbbell.toml``, or ``scenarios``) lies among the scenarios the package ships,
    whether or not anything is there; None for an absolute or empty path."""
    p = Path(path)
    if p.is_absolute() or not p.parts:
        return None
    parts = p.parts[1:] if p.parts[0] == "scenarios" else p.parts
    return Path(__file__).parent / "scenarios" / Path(*parts)


def shipped_scenario(path: Union[str, os.PathLike]) -> Path | None:
    """The package's own copy of a relative path such as ``scenarios/examples/dumbbell.toml``
    (or ``examples/dumbbell.toml``), the paths the README and the files' headers give, so they
    work from any directory once ccsim is installed; None if the package has no such file."""
    candidate = _in_package(path)
    return candidate if candidate is not None and candidate.is_file() else None


def _is_shipped_dir(path: Path) -> bool:
    """True if a relative ``path`` names a folder of the package's scenarios
    (``scenarios``, ``scenarios/examples``, ``keshav91``)."""
    candidate = _in_package(path)
    return candidate is not None and candidate.is_dir()


def _read_text(path: Union[str, os.PathLike]) -> str:
    """A scenario file's text, without a byte-order mark (not TOML); a relative path that does
    not exist here is looked up among the scenarios the package ships. Raises ScenarioError
    naming the file."""
    p = Path(path)
    try:
        return p.read_text(encoding="utf-8").removeprefix("\ufeff")
    except FileNotFoundError:
        shipped = shipped_scenario(p)
        if shipped is not None:
            return shipped.read_text(encoding="utf-8").removeprefix("\ufeff")
        if _is_shipped_dir(p):
            listing = "ccsim scenarios" + ("" if p.name == "scenarios" else f" {p.name}")
            raise ScenarioError(f"{p}: is a directory (of the scenarios ccsim ships), expected a scenario file "
                                f"in it ({listing} lists them)") from None
        raise ScenarioError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise ScenarioError(f"{p}: is a directory, expected a scenario file") from None
    except UnicodeDecodeError as e:
        raise ScenarioError(f"{p}: cannot read: not UTF-8 text (byte {e.object[e.start]:#04x} at offset "
                            f"{e.start}); expected a TOML scenario file") from None
    except OSError as e:
        raise ScenarioError(f"{p}: cannot read: {e.strerror or e}") from None


def load_scenario(path: Union[str, os.PathLike]) -> dict:
    """Read a scenario file into a dict (the builder's structure), with the engine's TOML
    parser, the one `run` and `validate` use. Raises ScenarioError."""
    return _core.load_toml(_read_text(path))


def _resolve(scenario: ScenarioLike) -> Any:
    """A file path, TOML text, a dict or a Scenario builder -> what the engine accepts: TOML
    text (read by the engine's own parser) or a dict."""
    from .builder import Scenario

    if isinstance(scenario, Scenario):
        return scenario.to_dict()
    if isinstance(scenario, Mapping):
        return dict(scenario)
    if isinstance(scenario, (str, os.PathLike)):
        s = os.fspath(scenario)
        # One line without "=" cannot be a scenario's TOML: take it as a path, so a missing
        # file says so instead of failing to parse its name.
        if "\n" not in s and (s.endswith(".toml") or os.path.exists(s) or "=" not in s):
            return _read_text(s)
        return s  # TOML text
    raise ScenarioError(f"expected a scenario file path, TOML text, a dict or a ccsim.Scenario, got {type(scenario).__name__}")


def _overrides(**values) -> dict:
    return {k: v for k, v in values.items() if v is not None}


class RunInterrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C (or SIGTERM under the ``ccsim`` command) before its end.
    ``results`` holds what it measured up to then: ``results.run["duration_s"]`` is how far it
    got, ``results.run["interrupted"]`` is True, and the interval table has the intervals it
    closed."""

    def __init__(self, results):
        super().__init__("the run was interrupted")
        self.results = results


# A run shows its progress once it has taken this long and looks like taking this much longer.
PROGRESS_AFTER_S = 2.0
PROGRESS_IF_LEFT_S = 3.0


def run(scenario: ScenarioLike, *, seed: int | None = None, duration: str | None = None,
        progress: bool | str | None = None, time_limit: float | None = None, stop=None):
    """Validate and run a scenario; returns :class:`ccsim.Results`.

    ``scenario`` is a path to a TOML file, TOML text, a dict or a :class:`ccsim.Scenario`.
    ``seed`` and ``duration`` override the scenario's own values.

    The engine runs in slices of a fifth of a second, so a long run can show its progress
    (``progress``: a bar on standard error with the estimated time left, for runs that take
    more than a few seconds; the default shows it when standard error is a terminal;
    ``"notice"`` prints only a line with the estimate) and can
    be stopped: Ctrl-C raises :class:`RunInterrupted` carrying what was measured, and
    ``time_limit`` (wall seconds) ends the run there and returns those results, marked
    ``run["interrupted"]``. ``stop`` (a ``threading.Event``) does the same when another
    thread sets it (sweeps use it to stop their runs at once).
    """
    import sys
    import time

    from .results import Results

    if progress is None:
        progress = sys.stderr.isatty()
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
                                   or not time_limit >= 0):
        raise ValueError(f"time_limit: expected wall seconds, a non-negative number, got {time_limit!r}")
    if stop is not None and not callable(getattr(stop, "is_set", None)):
        raise TypeError(f"stop: expected an event with is_set() (threading.Event), got {type(stop).__name__}")
    with _duration_hint(duration):
        sim = _core.Simulation(_resolve(scenario), _overrides(seed=seed, duration=duration))
    t0 = time.monotonic()
    bar = None
    try:
        while not sim.advance(0.2):
            elapsed = time.monotonic() - t0
            if (time_limit is not None and elapsed >= time_limit) or (stop is not None and stop.is_set()):
                sim.stop()
                break
            if progress and elapsed >= PROGRESS_AFTER_S:
                if bar is None and _time_left(sim, elapsed) >= PROGRESS_IF_LEFT_S:
                    bar = _Progress(sim, elapsed, animate=progress is True)
                if bar is not None:
                    bar.update(sim, elapsed)
    except KeyboardInterrupt:
        sim.stop()
        raise RunInterrupted(Results(sim.results())) from None
    finally:
        if bar is not None:
            bar.close()
    return Results(sim.results())


def _time_left(sim, elapsed: float) -> float:
    """Wall seconds the run needs yet at its pace so far (inf before it has moved)."""
    done = sim.now_s
    return (sim.duration_s - done) * elapsed / done if done > 0 else float("inf")


class _Progress:
    """A line with the estimate, then (``animate``) a progress bar over simulated time with the
    pace and the time left."""

    def __init__(self, sim, elapsed: float, animate: bool = True):
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

        console = Console(stderr=True)
        console.print(f"ccsim: this run needs about {_duration_text(_time_left(sim, elapsed))} more at "
                      f"{sim.events / elapsed:,.0f} events per wall second "
                      f"({sim.events / max(sim.now_s, 1e-12):,.3g} per simulated second); Ctrl-C stops it "
                      f"and keeps what it measured", highlight=False, markup=False)
        self.bar = None
        if animate:
            self.bar = Progress(TextColumn("simulated {task.completed:.3g} of {task.total:g} s"), BarColumn(),
                                TextColumn("{task.fields[pace]}"), TimeRemainingColumn(), transient=True,
                                console=console)
            self.task = self.bar.add_task("run", total=sim.duration_s, pace="")
            self.bar.start()

    def update(self, sim, elapsed: float) -> None:
        if self.bar is not None:
            rate = sim.now_s / elapsed if elapsed > 0 else 0.0
            self.bar.update(self.task, completed=sim.now_s, pace=f"{rate:.3g} simulated s per wall s")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def _duration_text(seconds: float) -> str:
    if seconds == float("inf"):
        return "an unknown time"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class _duration_hint:
    """Adds to a measurement error that the duration was overridden: an interval the file
    sets may no longer fit the shortened run."""

    def __init__(self, duration):
        self.duration = duration

    def __enter__(self):
        return self

    def __exit__(self, kind, err, tb):
        if (self.duration is not None and isinstance(err, ScenarioError)
                and str(err).startswith(("measure.interval:", "measure.discard:"))):
            raise ScenarioError(f"{err} (the run's duration is overridden to {self.duration}; set "
                                f"[measure] interval and discard to fit it)") from None
        return False


def validate(scenario: ScenarioLike, *, seed: int | None = None, duration: str | None = None) -> dict:
    """Check a scenario (routing included) without running it; returns a short description.
    ``seed`` and ``duration`` override the scenario's own values, as in :func:`run`."""
    with _duration_hint(duration):
        return dict(_core.validate(_resolve(scenario), _overrides(seed=seed, duration=duration)))


def scenario_dict(scenario: ScenarioLike) -> dict:
    """Any form of scenario (a :class:`ccsim.Scenario`, a dict, a file's path or TOML text) as
    a dict of the file structure, a copy. Raises ScenarioError."""
    import copy

    from .builder import Scenario

    if isinstance(scenario, Scenario):
        return scenario.to_dict()
    resolved = _resolve(scenario)
    return copy.deepcopy(dict(resolved)) if isinstance(resolved, Mapping) else _core.load_toml(resolved)


def _is_collection(v) -> bool:
    """A list of values (a list, tuple, range, numpy array or pandas Series), not one value."""
    return not isinstance(v, (str, bytes, Mapping)) and hasattr(v, "__iter__")


def _items(v) -> list:
    return list(v.tolist() if hasattr(v, "tolist") else v)


def _plain(v):
    """numpy's scalars as the Python values they are (the runs' records are JSON)."""
    return v.item() if type(v).__module__ == "numpy" and hasattr(v, "item") else v


def run_sweep(scenario: ScenarioLike, grid, *, out: Union[str, os.PathLike], seeds=(1,),
              workers: int | None = None, scheduler: str | None = None, progress: bool = True):
    """Run ``scenario`` (a :class:`ccsim.Scenario`, a dict, or a scenario file's path) for every
    combination of the values in ``grid`` and every seed, as ``ccsim sweep`` does, and return
    the per-flow table (pandas): one row per flow, combination and seed, with a
    ``param:<path>`` column per swept field, ``seed``, and the columns of
    :attr:`ccsim.Results.flows`.

    ``grid`` maps a field path, written as in error messages (``"links[0].buffer"``,
    ``"flows[1].params.beta"``), to its values (a list, range or array, or one value); a list
    of (path, values) pairs keeps the order too. ``seeds``: the seeds each combination runs
    with (a list, range or array of integers, or one seed). Every combination is checked before anything
    runs: a bad path or value raises :class:`ScenarioError` naming it. Each finished run is
    kept in ``out/runs/`` (keyed by the whole scenario and the engine's build), so running
    the same sweep again, or after an interruption, runs only what is missing; the table is
    also written to ``out/sweep.parquet``. Runs that failed are listed in
    ``table.attrs["failures"]`` as (params, seed, message). ``workers``: parallel runs (one
    per core by default); ``scheduler``: a Dask scheduler's address; ``progress``: a bar on a
    terminal (silent elsewhere). Draw the result with
    :func:`ccsim.plots_sweep.plot_sweep`.
    """
    from . import sweep as _sweep

    base = scenario_dict(scenario)
    pairs = list(grid.items()) if isinstance(grid, Mapping) else list(grid)
    sets = []
    for item in pairs:
        if not (isinstance(item, (tuple, list)) and len(item) == 2 and isinstance(item[0], str)):
            raise ScenarioError(f"run_sweep: grid: expected {{path: values}} or (path, values) pairs, got {item!r}")
        path, values = item
        if path.strip() == "seed":
            raise ScenarioError("grid seed: the seeds are run_sweep's seeds=, not a grid entry")
        values = [_plain(v) for v in (_items(values) if _is_collection(values) else [values])]
        if not values:
            raise ScenarioError(f"grid {path}: no values")
        sets.append((path, values))
    try:
        seeds = [check_seed(operator.index(s)) for s in (_items(seeds) if _is_collection(seeds) else [seeds])]
    except (TypeError, ValueError) as e:
        raise ScenarioError(f"run_sweep: seeds: expected integers (a list, range or array), {e}") from None
    if not seeds:
        raise ScenarioError("run_sweep: seeds: expected at least one seed")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ScenarioError(f"run_sweep: workers: expected a positive integer, got {workers!r}")
    if Path(out).exists() and not Path(out).is_dir():
        raise ScenarioError(f"run_sweep: out: {out} is a file; expected a directory for the runs and the table")
    try:
        _sweep.check_grid(base, sets, label="grid")
    except ScenarioError:
        raise
    except ValueError as e:
        raise ScenarioError(str(e)) from None
    table, failures = _sweep.sweep(base, sets, seeds, out, workers=workers, scheduler=scheduler,
                                   progress=progress)
    table.attrs["failures"] = failures
    return table
