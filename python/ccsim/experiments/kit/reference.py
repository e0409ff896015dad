"""A thesis's reference data (``reference.toml``): loading, checking, and looking things up.

The schema (docs/adding-a-thesis.md has it with examples):

- ``[metrics]``: metric name -> ``{field, unit, meaning, family, scale, window}``; ``field`` is
  the column of the runs' flow tables a flow metric reads (absent for a metric only models
  compute), ``scale`` a factor on its values (units: 0.001 turns bit/s into kb/s),
  ``window`` "sum" or "rate" to read a per-interval count instead: its sum over the measured
  intervals, or that sum per second,
  ``family`` the tolerance numbers it is judged by (else ``[tolerance].default_family``).
- ``[tolerance]``: the classes D, S, P as numbers (:mod:`.judge`), ``seeds`` the default
  number of seeds.
- ``[[scenarios]]``: ``scenario`` (a string id such as "S1"), ``title``, optional ``name``
  (how the report heads it, default the id), ``phases`` and ``seeds`` (its own number of seeds
  in a full run, for runs whose randomness needs more than the default); ``[scenarios.runs]``: pair label
  -> scenario file stem; ``[[scenarios.sweeps]]``: curves, each ``{curve, param, values,
  file}`` with ``file`` a stem template such as "f5-red-n{x}": one run per value; an optional
  ``quick`` (a sublist of ``values``, possibly empty) is what a ``--quick`` run runs.
- ``[[tables]]``: ``id``, ``scenario``, ``title``, ``metrics``, optional ``kind`` and
  ``[[tables.rows]]``, each row one cell per metric it holds (:mod:`.cells`).
- ``[[qchecks]]``: ``id``, ``scenario``, ``statement``, ``check`` (:mod:`.checks`).

A large reference may be split: every ``reference.d/*.toml`` beside ``reference.toml`` is read
after it, in name order; their lists (scenarios, tables, qchecks) extend the main file's and
their ``[metrics]`` join it (a name defined twice is refused).

:func:`load_reference` refuses a reference that breaks the schema with a ValueError naming the
file and the field, so a typo fails before any run starts.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any, Iterable, Mapping

# What a table row (a set of cells) reads; "flow" unless the table or the row says otherwise.
#   flow       one flow's metric in one run: pair, source [, phase]
#   aggregate  an aggregate over flows of one run: pair, agg, sources [, where, phase]
#   curve      one point of a sweep: curve, x, and then source or agg + sources
#   model      a function of ccsim.models: function, args [, result]; no simulation
CELL_KINDS = ("flow", "aggregate", "curve", "model")
_NEEDS = {"flow": ("pair", "source"), "aggregate": ("pair", "agg", "sources"), "curve": ("curve", "x"),
          "model": ("function",)}


def point_label(curve: str, x: Any) -> str:
    """The run label of a sweep's point: "RED @ 10"."""
    return f"{curve} @ {x_text(x)}"


def x_text(x: Any) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def scenario_ids(ref: Mapping) -> list[str]:
    return [sc["scenario"] for sc in ref["scenarios"]]


def scenario(ref: Mapping, sid: str) -> dict:
    return next(sc for sc in ref["scenarios"] if sc["scenario"] == sid)


def scenario_name(sc: Mapping) -> str:
    """How the report heads a scenario: its ``name``, else its id."""
    return sc.get("name", sc["scenario"])


def scenario_runs(sc: Mapping, quick: bool = False) -> dict[str, str]:
    """Run label -> scenario file stem: the scenario's pairs, then every point of its sweeps
    (with ``quick``, only the points a sweep's ``quick`` list names, where it has one)."""
    runs = dict(sc.get("runs", {}))
    for sw in sc.get("sweeps", []):
        for x in (sw.get("quick", sw["values"]) if quick else sw["values"]):
            runs[point_label(sw["curve"], x)] = sw["file"].format(x=x)
    return runs


def metric_family(ref: Mapping, metric: str, *overrides: Mapping) -> str:
    """The tolerance family a cell of ``metric`` is judged by: a ``family`` given in the
    cell's row or table (``overrides``), else the metric's, else the default."""
    for o in overrides:
        if o.get("family"):
            return o["family"]
    fam = ref.get("metrics", {}).get(metric, {}).get("family") or ref.get("tolerance", {}).get("default_family")
    if not fam:
        raise ValueError(f"metric {metric!r} has no tolerance family: give [metrics.{metric}].family or "
                         f"[tolerance].default_family")
    return fam


def metric_fields(ref: Mapping) -> dict[str, str]:
    """Metric name -> column of the runs' flow tables, for the metrics that have one."""
    return {m: v["field"] for m, v in ref.get("metrics", {}).items() if "field" in v}


def row_kind(table: Mapping, row: Mapping) -> str:
    return row.get("kind") or table.get("kind") or "flow"


def parse_only(text: str | None, ids: Iterable[str]) -> list[str]:
    """``--only``: "S1,S3" -> ["S1", "S3"] (in the reference's order), every id when None.
    Ids match without regard to case, and a bare number names the one id that is letters
    followed by that number ("3" -> "S3"). ValueError naming the option otherwise."""
    ids = list(ids)
    if text is None:
        return ids
    chosen = []
    for part in text.split(","):
        sid = _match(part.strip(), ids)
        if sid is None:
            example = ",".join(ids[:2])
            raise ValueError(f"--only: expected scenarios among {','.join(ids)} (e.g. {example}), got {part.strip()!r}")
        chosen.append(sid)
    return [i for i in ids if i in chosen]


def _match(token: str, ids: list[str]) -> str | None:
    if not token:
        return None
    for i in ids:
        if i.lower() == token.lower():
            return i
    if token.isdigit():
        hits = [i for i in ids if re.fullmatch(r"[A-Za-z]+0*" + str(int(token)), i)]
        if len(hits) == 1:
            return hits[0]
    return None


# ------------------------------------------------------------------------------------------
# Loading and checking
# ------------------------------------------------------------------------------------------

def _read_toml(path: Path) -> dict:
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"{path}: {e}") from None


def load_reference(path: Path) -> dict:
    """The reference at ``path`` with its ``reference.d/*.toml`` parts, checked
    (:func:`check_reference`)."""
    path = Path(path)
    ref = _read_toml(path)
    parts = path.with_suffix(".d")
    for part in sorted(parts.glob("*.toml")) if parts.is_dir() else ():
        _merge_part(ref, _read_toml(part), f"{parts.name}/{part.name}")
    check_reference(ref, path.name)
    return ref


def _merge_part(ref: dict, part: dict, where: str) -> None:
    for key, value in part.items():
        if isinstance(value, list):
            ref.setdefault(key, []).extend(value)
        elif key == "metrics" and isinstance(value, dict):
            metrics = ref.setdefault("metrics", {})
            for name, m in value.items():
                if name in metrics:
                    raise ValueError(f"{where}: metrics.{name}: already defined in the reference")
                metrics[name] = m
        else:
            raise ValueError(f"{where}: {key}: a reference part holds only [metrics], [[scenarios]], [[tables]] "
                             f"and [[qchecks]]; set {key} in reference.toml")


def check_reference(ref: Mapping, where: str = "reference.toml") -> None:
    """Raise ValueError naming the field of the first thing that breaks the schema."""
    def fail(field: str, msg: str):
        raise ValueError(f"{where}: {field}: {msg}")

    for key in ("tolerance", "scenarios"):
        if key not in ref:
            fail(key, "missing")
    ids = []
    for i, sc in enumerate(ref["scenarios"]):
        sid = sc.get("scenario")
        if not isinstance(sid, str) or not sid:
            fail(f"scenarios[{i}].scenario", f'expected a string id such as "S1", got {sid!r}')
        if sid in ids:
            fail(f"scenarios[{i}].scenario", f"{sid!r} is used twice")
        ids.append(sid)
        n = sc.get("seeds", 1)
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 1000:
            fail(f"scenarios[{i}].seeds", f"expected an integer from 1 to 1000, got {n!r}")
        for j, sw in enumerate(sc.get("sweeps", [])):
            for key in ("curve", "param", "values", "file"):
                if key not in sw:
                    fail(f"scenarios[{i}].sweeps[{j}]", f"missing {key!r}")
            if "{x" not in sw["file"]:
                fail(f"scenarios[{i}].sweeps[{j}].file", f'expected a stem template with {{x}}, got {sw["file"]!r}')
            extra = [x for x in sw.get("quick", []) if x not in sw["values"]]
            if extra:
                fail(f"scenarios[{i}].sweeps[{j}].quick", f"expected a sublist of values; not among them: {extra}")

    def known_scenario(field: str, sid):
        if sid not in ids:
            fail(field, f"unknown scenario {sid!r}; expected one of {', '.join(ids)}")

    for name, m in ref.get("metrics", {}).items():
        if m.get("window") not in (None, "sum", "rate"):
            fail(f"metrics.{name}.window", f'expected "sum" or "rate", got {m["window"]!r}')
        if "scale" in m and (isinstance(m["scale"], bool) or not isinstance(m["scale"], (int, float))):
            fail(f"metrics.{name}.scale", f"expected a number, got {m['scale']!r}")
    classes = [c for c in ("D", "S", "P") if c in ref["tolerance"] or c == "P"]
    for t_i, t in enumerate(ref.get("tables", [])):
        here = f"tables[{t_i}] ({t.get('id', '?')})"
        known_scenario(f"{here}.scenario", t.get("scenario"))
        for r_i, row in enumerate(t.get("rows", [])):
            at = f"{here}.rows[{r_i}]"
            kind = row_kind(t, row)
            if kind not in CELL_KINDS:
                fail(f"{at}.kind", f"expected one of {', '.join(CELL_KINDS)}, got {kind!r}")
            for key in _NEEDS[kind]:
                if key not in row:
                    fail(at, f"a {kind} row needs {key!r}")
            if kind == "curve" and (isinstance(row["x"], bool) or not isinstance(row["x"], (int, float))):
                fail(f"{at}.x", f"expected the swept parameter's value as a number, got {row['x']!r}")
            if kind == "curve" and "source" not in row and "agg" not in row:
                fail(at, "a curve row needs 'source' (a flow) or 'agg' and 'sources' (an aggregate)")
            if kind == "model":
                _check_model(row["function"], f"{at}.function", fail)
            for m in t["metrics"]:
                spec = row.get(m)
                if spec is None:
                    continue
                if "mean" not in spec or "class" not in spec:
                    fail(f"{at}.{m}", "expected an inline table with mean and class")
                if spec["class"] not in classes:
                    fail(f"{at}.{m}.class", f"expected one of {', '.join(classes)}, got {spec['class']!r}")
                try:
                    metric_family(ref, m, row, t)
                except ValueError as e:
                    fail(f"{at}.{m}", str(e))
    for q_i, q in enumerate(ref.get("qchecks", [])):
        known_scenario(f"qchecks[{q_i}] ({q.get('id', '?')}).scenario", q.get("scenario"))


def _check_model(name: str, field: str, fail) -> None:
    from .cells import model_function

    try:
        model_function(name)
    except ValueError as e:
        fail(field, str(e))
