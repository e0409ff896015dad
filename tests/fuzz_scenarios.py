"""Fuzzing the scenario input: the project's own scenarios, mutated, as dicts, TOML text and
files. Every input must get an answer: a ScenarioError (the message naming a field), or a run
that ends (within a wall-clock limit, as an interrupted run if it must) and whose results
write out; nothing else (no other exception, no crash, no memory blow-up: the run's own
limits keep memory bounded).

    python tests/fuzz_scenarios.py --count 100000 --seed 1     # the long run (make fuzz)

tests/test_fuzz.py runs a short pass of it in the default suite. A failing input is saved
(``--keep DIR``) as the dict it was, to reproduce it with ``ccsim.run``.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import random
import re
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path

import ccsim
from ccsim.builder import dumps_toml

# Values a mutation may put anywhere: wrong types, edge numbers, unit strings good and bad,
# names that markup and math renderers read, empty and nested containers.
STRINGS = ["", "0s", "1s", "-1s", "1e-12s", "1e6s", "1e7s", "10ms", "1us", "1Mbps", "1e15bps", "1e16bps", "0bps",
           "80kbps", "1000B", "65535B", "65536B", "0B", "1pkt", "0pkt", "unlimited", "1e12pps", "1e13pps", "NaN",
           "inf", "-inf", "1e400s", "[/]", "[bold]x", "$\\frac{$", "$x$", "a->b", "a#2", "é", "\u202e", "x" * 300,
           "none", "all", "switches", "ftp", "cbr", "telnet", "poisson", "onoff", "pareto", "fq", "red", "decbit",
           "droptail", "sq_router", "rem", "adpm", "mark", "jk", "reno", "newreno", "vegas", "pp", "pp2", "sq", "generic", "dec", "fast",
           "sack", "cubic", "bic", "stcp", "hstcp", "htcp", "hybla", "westwood",
           "cycle", "infinite", "pushed_out", "flight", "first", "last", "latest"]
NUMBERS = [0, 1, -1, 2, 3, 7, 40, 1000, 65535, 65536, 2**31, 2**32, 2**53, 2**63 - 1, -(2**63), 0.0, 0.5, -0.5, 1e-300,
           1e300, 1.5, 1e-9, 1e9, float("inf"), float("-inf"), float("nan")]


def corpus() -> list[dict]:
    """The project's scenarios: the examples and Keshav 1991's reproduction files."""
    root = resources.files("ccsim").joinpath("scenarios")
    files = sorted(Path(str(root)).glob("*/*.toml"))
    return [ccsim.load_scenario(f) for f in files]


def _nodes(tree, path=()):
    """Every (path, value) in a dict/list tree."""
    yield path, tree
    if isinstance(tree, dict):
        for k, v in tree.items():
            yield from _nodes(v, path + (k,))
    elif isinstance(tree, list):
        for i, v in enumerate(tree):
            yield from _nodes(v, path + (i,))


def _get(tree, path):
    for p in path:
        tree = tree[p]
    return tree


def _random_value(rng: random.Random, depth: int = 0):
    r = rng.random()
    if r < 0.4:
        return rng.choice(STRINGS)
    if r < 0.75:
        return rng.choice(NUMBERS)
    if r < 0.82:
        return rng.choice([True, False])
    if r < 0.9 or depth > 2:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {rng.choice(["x", "name", "rate", "buffer", "size", "share"]): _random_value(rng, depth + 1)}


FACTORS = [0, 1e-9, 1e-3, 0.1, 0.5, 2, 10, 1e3, 1e6, 1e12, -1]


def _perturb(value, rng: random.Random):
    """A plausible change: the same kind of value, scaled (a unit string keeps its unit)."""
    if isinstance(value, bool):
        return not value
    f = rng.choice(FACTORS)
    if isinstance(value, int):
        return int(value * f) if abs(value * f) < 2**63 else value
    if isinstance(value, float):
        return value * f
    if isinstance(value, str):
        m = re.match(r"^\s*([0-9.eE+-]+)\s*(.*)$", value)
        if m:
            try:
                return f"{float(m.group(1)) * f:g}{m.group(2)}"
            except ValueError:
                pass
    return value


def mutate(data: dict, rng: random.Random, n: int) -> dict:
    """`n` random changes to a deep copy of `data`."""
    data = copy.deepcopy(data)
    for _ in range(n):
        nodes = [(p, v) for p, v in _nodes(data) if p]
        if not nodes:
            break
        path, value = rng.choice(nodes)
        parent = _get(data, path[:-1])
        key = path[-1]
        op = rng.random()
        if op < 0.45:
            parent[key] = _perturb(value, rng)
        elif op < 0.55:
            del parent[key]
        elif op < 0.7:
            parent[key] = _random_value(rng)
        elif op < 0.8 and isinstance(value, list) and value:
            value.append(copy.deepcopy(rng.choice(value)))  # a duplicate flow, link, node...
        elif op < 0.9 and isinstance(parent, dict):
            parent[rng.choice(["params", "queue_params", "class", "loss", "packet_sizes", "route", "jitter", "x"])] = \
                _random_value(rng)
        else:
            other_path, other = rng.choice(nodes)
            parent[key] = copy.deepcopy(other)  # a value from elsewhere in the scenario
    return data


TIME = re.compile(r"^\s*([0-9.eE+-]+)\s*(s|ms|us|ns|min)\s*$")


def _shorten(data: dict, target_s: float) -> dict:
    """Every time in the scenario scaled so that its duration is `target_s` (starts, stops,
    intervals and delays keep their proportions)."""
    m = TIME.match(str(data.get("duration", "")))
    if not m:
        return data
    unit = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "min": 60.0}
    try:
        duration = float(m.group(1)) * unit[m.group(2)]
    except ValueError:
        return data
    if not duration > target_s:
        return data
    factor = target_s / duration

    def scale(v):
        if isinstance(v, dict):
            return {k: scale(x) for k, x in v.items()}
        if isinstance(v, list):
            return [scale(x) for x in v]
        t = TIME.match(v) if isinstance(v, str) else None
        if t:
            try:
                return f"{float(t.group(1)) * unit[t.group(2)] * factor:g}s"
            except ValueError:
                return v
        return v

    return scale(data)


class Failure(Exception):
    pass


def check(data: dict, rng: random.Random, tmp: Path, time_limit: float) -> str:
    """Run one input in one of three forms; returns the outcome ("error", "ran", "stopped"),
    or raises Failure."""
    form = rng.random()
    try:
        if form < 0.5:
            scenario = data
        else:
            try:
                text = dumps_toml(data)
            except (TypeError, ValueError):
                scenario = data  # a value TOML cannot write: the dict is the input
            else:
                if form < 0.75:
                    scenario = text
                else:
                    path = tmp / "input.toml"
                    path.write_text(text, encoding="utf-8")
                    scenario = path
        res = ccsim.run(scenario, time_limit=time_limit, progress=False)
    except ccsim.ScenarioError as e:
        if not str(e):
            raise Failure("a ScenarioError with no message") from None
        return "error"
    except Exception as e:  # anything else is a failure of ccsim's
        raise Failure(f"{type(e).__name__}: {e}") from e
    if not res.run["conserved"]:
        raise Failure("packet conservation violated")
    if rng.random() < 0.02:  # sometimes write everything out, plots included
        try:
            res.write(tmp / "out")
        except Exception as e:
            raise Failure(f"writing the results: {type(e).__name__}: {e}") from e
    return "stopped" if res.run["interrupted"] else "ran"


def fuzz(count: int | None = None, seconds: float | None = None, seed: int = 1, time_limit: float = 0.5,
         keep: Path | None = None, progress: bool = False) -> dict:
    """Mutate and check inputs until `count` are done or `seconds` have passed; returns the
    tally, with the failures (input, message)."""
    rng = random.Random(seed)
    base = corpus()
    tally = {"inputs": 0, "error": 0, "ran": 0, "stopped": 0, "failures": []}
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        while (count is None or tally["inputs"] < count) and (seconds is None or time.monotonic() - t0 < seconds):
            data = mutate(rng.choice(base), rng, rng.choice([1, 1, 1, 2, 3]))
            # Keep runs short: most are scaled to a few simulated seconds at most.
            if rng.random() < 0.9:
                data = _shorten(data, rng.choice([0.2, 1.0, 3.0]))
            try:
                tally[check(data, rng, tmp, time_limit)] += 1
            except Failure as e:
                tally["failures"].append((data, str(e)))
                if keep is not None:
                    keep.mkdir(parents=True, exist_ok=True)
                    (keep / f"failure-{len(tally['failures'])}.json").write_text(
                        json.dumps({"error": str(e), "input": data}, default=str, indent=1))
            tally["inputs"] += 1
            if progress and tally["inputs"] % 1000 == 0:
                rate = tally["inputs"] / (time.monotonic() - t0)
                print(f"{tally['inputs']} inputs, {rate:.0f}/s, {len(tally['failures'])} failures", file=sys.stderr)
    tally["seconds"] = time.monotonic() - t0
    return tally


def main() -> int:
    p = argparse.ArgumentParser(description="Fuzz ccsim's scenario input with mutated project scenarios.")
    p.add_argument("--count", type=int, default=100_000)
    p.add_argument("--seconds", type=float, default=None, help="stop after this long instead")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--keep", type=Path, default=Path("results/fuzz-failures"), help="where failing inputs go")
    a = p.parse_args()
    t = fuzz(a.count, a.seconds, a.seed, keep=a.keep, progress=True)
    rate = t["inputs"] / t["seconds"] if t["seconds"] else math.nan
    print(f"{t['inputs']} inputs in {t['seconds']:.0f} s ({rate:.0f}/s): {t['error']} refused with an error, "
          f"{t['ran']} ran, {t['stopped']} stopped at the time limit, {len(t['failures'])} failures")
    for data, msg in t["failures"][:10]:
        print(f"  {msg}")
    return 1 if t["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
