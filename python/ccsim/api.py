"""Running and validating scenarios from Python."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Mapping, Union

from . import _core
from ._core import ScenarioError

ScenarioLike = Union[str, os.PathLike, Mapping[str, Any], "Scenario"]  # noqa: F821


def load_scenario(path: Union[str, os.PathLike]) -> dict:
    """Read a scenario file into a dict (the builder's structure). Raises ScenarioError."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise ScenarioError(f"{p}: is a directory, expected a scenario file") from None
    except (PermissionError, UnicodeDecodeError) as e:
        raise ScenarioError(f"{p}: cannot read: {e}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"not valid TOML: {e}") from None


def _resolve(scenario: ScenarioLike, overrides: Mapping[str, Any] | None) -> Any:
    """TOML text, a dict, or a Scenario builder -> what the engine accepts."""
    from .builder import Scenario

    if isinstance(scenario, Scenario):
        data: Any = scenario.to_dict()
    elif isinstance(scenario, Mapping):
        data = dict(scenario)
    elif isinstance(scenario, (str, os.PathLike)):
        s = os.fspath(scenario)
        if "\n" not in s and (s.endswith(".toml") or os.path.exists(s)):
            if not overrides:
                try:
                    return Path(s).read_text(encoding="utf-8")
                except FileNotFoundError:
                    raise ScenarioError(f"{s}: no such file") from None
                except IsADirectoryError:
                    raise ScenarioError(f"{s}: is a directory, expected a scenario file") from None
                except (PermissionError, UnicodeDecodeError) as e:
                    raise ScenarioError(f"{s}: cannot read: {e}") from None
            data = load_scenario(s)
        else:
            if not overrides:
                return s  # TOML text
            try:
                data = tomllib.loads(s)
            except tomllib.TOMLDecodeError as e:
                raise ScenarioError(f"not valid TOML: {e}") from None
    else:
        raise ScenarioError(f"expected a scenario file path, TOML text, a dict or a ccsim.Scenario, got {type(scenario).__name__}")
    if overrides:
        data.update({k: v for k, v in overrides.items() if v is not None})
    return data


def run(scenario: ScenarioLike, *, seed: int | None = None, duration: str | None = None):
    """Validate and run a scenario; returns :class:`ccsim.Results`.

    ``scenario`` is a path to a TOML file, TOML text, a dict or a :class:`ccsim.Scenario`.
    ``seed`` and ``duration`` override the scenario's own values.
    """
    from .results import Results

    data = _resolve(scenario, {"seed": seed, "duration": duration})
    return Results(_core.run(data))


def validate(scenario: ScenarioLike, *, seed: int | None = None, duration: str | None = None) -> dict:
    """Check a scenario (routing included) without running it; returns a short description.
    ``seed`` and ``duration`` override the scenario's own values, as in :func:`run`."""
    overrides = {k: v for k, v in (("seed", seed), ("duration", duration)) if v is not None}
    return dict(_core.validate(_resolve(scenario, overrides or None)))
