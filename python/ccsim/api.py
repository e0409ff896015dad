"""Running and validating scenarios from Python."""

from __future__ import annotations

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


def _read_text(path: Union[str, os.PathLike]) -> str:
    """A scenario file's text, without a byte-order mark (not TOML). Raises ScenarioError
    naming the file."""
    p = Path(path)
    try:
        return p.read_text(encoding="utf-8").removeprefix("\ufeff")
    except FileNotFoundError:
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


def run(scenario: ScenarioLike, *, seed: int | None = None, duration: str | None = None):
    """Validate and run a scenario; returns :class:`ccsim.Results`.

    ``scenario`` is a path to a TOML file, TOML text, a dict or a :class:`ccsim.Scenario`.
    ``seed`` and ``duration`` override the scenario's own values.
    """
    from .results import Results

    with _duration_hint(duration):
        return Results(_core.run(_resolve(scenario), _overrides(seed=seed, duration=duration)))


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
