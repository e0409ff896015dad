"""``--param TARGET.KEY=VALUE``: one parameter set in every flow, port or link it names.

The readings a thesis leaves open are named parameters of the algorithms and disciplines;
an override tries one over a whole reproduction without editing the scenario files:
``generic.retransmit=expired`` sets ``params.retransmit`` in every flow whose ``cc`` is
"generic", ``fq.charge_drops=true`` the ``queue_params`` of every FQ port, ``links.buffer=60pkt``
a key of every link. :func:`check_params` tries the overrides together on the selected scenario
files first (some only make sense in pairs), so a mistake is an error naming the override that
broke a file, the file and the field, before any run.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

LINK_TARGET = "links"


@dataclass(frozen=True)
class Targets:
    """What an override may name: congestion-control algorithms (their flows' `params`) and
    queue disciplines (the `queue_params` of the links and link directions using them)."""
    cc: tuple[str, ...]
    queues: tuple[str, ...]


def param_targets() -> Targets:
    """The algorithms and disciplines ``--param`` may name: the engine's registry
    (:mod:`ccsim.registry`), the one place the kit learns them, so a new algorithm or
    discipline is a target as soon as it is registered."""
    from ... import registry

    return Targets(cc=tuple(a.name for a in registry.algorithms()),
                   queues=tuple(d.name for d in registry.disciplines()))


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
    scope: str = "cc"  # "cc", "queue" or "links": which kind of thing TARGET names

    def __str__(self) -> str:
        return self.text


def parse_param(text: str) -> ParamOverride:
    """"generic.retransmit=expired" -> ParamOverride; ValueError naming what was expected.
    VALUE is read as a TOML value (1.5, true, "2s") and otherwise taken as a bare string."""
    targets = param_targets()
    expected = (f"expected TARGET.KEY=VALUE with TARGET a flow's cc ({', '.join(targets.cc)}), a queue "
                f"discipline ({', '.join(targets.queues)}) or {LINK_TARGET}, e.g. generic.retransmit=expired "
                f"or links.buffer=60pkt")
    m = re.fullmatch(r"\s*([A-Za-z0-9_]+)\.([A-Za-z0-9_]+)\s*=\s*(.*?)\s*", text)
    if not m or not m.group(3):
        raise ValueError(f"--param: {expected}; got {text!r}")
    target, key, raw = m.group(1).lower(), m.group(2), m.group(3)
    scope = "cc" if target in targets.cc else "queue" if target in targets.queues else \
        "links" if target == LINK_TARGET else None
    if scope is None:
        raise ValueError(f"--param {text}: unknown target {target!r}; {expected}")
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    return ParamOverride(target, key, value, f"{target}.{key}={raw}", scope)


def apply_params(data: dict, overrides) -> int:
    """Apply ``overrides`` to a scenario's data in place; returns how many places were set."""
    n = 0
    for ov in overrides:
        if ov.scope == "cc":
            for flow in data.get("flows", []):
                if flow.get("cc") == ov.target:
                    flow.setdefault("params", {})[ov.key] = ov.value
                    n += 1
            continue
        if ov.scope == "links":
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


def _culprit(path: Path, overrides: list, counts: list[int]) -> str:
    """The override without which the file at ``path`` validates (the others applied), or all
    of those that touch it."""
    from ... import api

    touching = [ov for ov, n in zip(overrides, counts) if n]
    for ov in touching:
        with open(path, "rb") as f:
            data = tomllib.load(f)
        apply_params(data, [o for o in touching if o is not ov])
        try:
            api.validate(data)
        except Exception:
            continue
        return str(ov)
    return " ".join(map(str, touching))


def check_params(texts: Iterable[str], stems: Iterable[str], scenario_dir: Path, scenarios: list[str]) -> list:
    """Parse ``--param`` overrides and try them together on the scenario files ``stems`` (those
    of the selected ``scenarios``): ValueError if one is malformed, names nothing in them, or the
    set makes a file invalid. The message gives the engine's own words for the set (the field)
    and names the override without which the file validates, or every override if no single
    one is to blame."""
    from ... import api
    from .runner import validate_file

    overrides = [parse_param(t) for t in ([texts] if isinstance(texts, str) else texts)]
    if not overrides:
        return []
    hits = [0] * len(overrides)  # by position: a list or table VALUE makes an override unhashable
    for stem in dict.fromkeys(stems):
        path = scenario_dir / f"{stem}.toml"
        if validate_file(path) is not None:
            continue  # a file that is already invalid is reported as a run error
        with open(path, "rb") as f:
            data = tomllib.load(f)
        counts = [apply_params(data, [ov]) for ov in overrides]
        hits = [h + n for h, n in zip(hits, counts)]
        if not any(counts):
            continue
        try:
            api.validate(data)  # all together: some only make sense in pairs (red and jcc code_bits)
        except Exception as whole:  # the engine's own message, with the field's path
            raise ValueError(f"--param {_culprit(path, overrides, counts)}: {stem}.toml: {whole}") from None
    for ov, n in zip(overrides, hits):
        if n == 0:
            what = {"cc": f'flow with cc = "{ov.target}"', "queue": f'port with queue = "{ov.target}"',
                    "links": "link"}[ov.scope]
            raise ValueError(f"--param {ov}: no {what} in scenarios {', '.join(scenarios)}")
    return overrides
