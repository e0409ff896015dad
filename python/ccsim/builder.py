"""Build scenarios in Python.

The builder produces exactly the structure a TOML scenario file has (docs/scenario-format.md),
so ``Scenario.to_toml()`` writes a file that ``ccsim run`` accepts and that gives the same
results. Values with units are strings ("80kbps", "2s", "1000B", "40pkt"); bare numbers are
read in the base unit (bit/s, seconds, bytes, packets).
"""

from __future__ import annotations

import copy
import json
import math
import numbers
import os
from typing import Any

from ._files import atomic_write_text


class Scenario:
    """A scenario under construction. Every method returns the scenario, so calls chain.

    Quantities are strings with units ("10Mbps", "20ms", "1000B", "40pkt"); a bare number is
    read in the base unit: bit/s for bandwidths and rates, seconds for times, bytes for sizes,
    packets for buffers (``delay=10`` is ten seconds). :meth:`load` starts from a file or a
    dict (a shipped example, say) to edit and save.

    >>> sc = Scenario("demo", duration="10s", seed=3)
    >>> sc = sc.hosts("a", "b").switches("s")
    >>> sc = sc.link("a", "s", bandwidth="10Mbps", delay="1ms")
    >>> sc = sc.link("s", "b", bandwidth="1Mbps", delay="10ms", buffer="20pkt")
    >>> sc = sc.flow("a", "b", app="ftp", cc="newreno", name="bulk")
    >>> sc.validate()["flows"]
    1
    """

    def __init__(self, name: str = "scenario", *, duration: Any, seed: int = 1, description: str = ""):
        """``duration``: the simulated time ("60s"); ``seed``: the run's random streams."""
        self._data: dict[str, Any] = {"name": name, "seed": seed, "duration": duration}
        if description:
            self._data["description"] = description
        self._data["nodes"] = {"hosts": [], "switches": []}
        self._data["links"] = []
        self._data["flows"] = []

    @classmethod
    def load(cls, source: Any) -> "Scenario":
        """A builder holding a scenario: a file's path (shipped paths such as
        ``scenarios/examples/dumbbell.toml`` included), its TOML text, or a dict of the same
        structure, to change and run or save. Raises ScenarioError for text that does not parse."""
        from .api import scenario_dict

        data = scenario_dict(source)
        if not isinstance(data.get("nodes", {}), dict) or not isinstance(data.get("links", []), list) \
                or not isinstance(data.get("flows", []), list):
            raise ValueError("Scenario.load: expected nodes to be a table and links and flows lists")
        nodes = data.setdefault("nodes", {})
        nodes.setdefault("hosts", [])
        nodes.setdefault("switches", [])
        data.setdefault("links", [])
        data.setdefault("flows", [])
        sc = cls.__new__(cls)
        sc._data = data
        return sc

    def __repr__(self) -> str:
        d = self._data
        nodes = d.get("nodes", {})
        return (f"<ccsim.Scenario {d.get('name')!r}: {len(nodes.get('hosts', []))} hosts, "
                f"{len(nodes.get('switches', []))} switches, {len(d.get('links', []))} links, "
                f"{len(d.get('flows', []))} flows, duration {d.get('duration')!r}, seed {d.get('seed')}>")

    # -- topology -------------------------------------------------------------------------
    def hosts(self, *names: str) -> "Scenario":
        """End systems (flows start and end at hosts)."""
        self._data["nodes"]["hosts"].extend(names)
        return self

    def switches(self, *names: str) -> "Scenario":
        """Routers/switches: they forward packets and hold the queues of their links."""
        self._data["nodes"]["switches"].extend(names)
        return self

    def link(self, a: str, b: str, *, bandwidth: Any, delay: Any = None, buffer: Any = None,
             queue: str | None = None, queue_params: dict | None = None, count_in_service: bool | None = None,
             forward: dict | None = None, reverse: dict | None = None, changes: list | None = None,
             jitter: Any = None, channels: int | None = None, channel_buffers: str | None = None,
             loss: Any = None) -> "Scenario":
        """A full-duplex link between nodes ``a`` and ``b``: ``bandwidth`` in bit/s ("10Mbps"),
        ``delay`` the propagation delay ("10ms"), ``buffer`` the waiting room of each direction
        ("40pkt" or "64KB"), ``queue`` its discipline (``ccsim list`` names them) with
        ``queue_params``. Queue settings apply to both directions unless ``forward``
        (a->b) or ``reverse`` (b->a) override them. ``changes`` schedules new propagation
        delays: ``[{"at": "50s", "delay": "450ms"}]``. ``channels`` makes it a trunk of that
        many channels at ``bandwidth`` each (a DWDM output trunk), ``channel_buffers``
        ("shared" or "private") arranges its buffer; ``loss`` is the probability that a packet
        leaving the line is lost (both directions). Dicts and lists are copied: changing one afterwards does not change the
        scenario."""
        d: dict[str, Any] = {"between": [a, b], "bandwidth": bandwidth}
        for k, v in (("delay", delay), ("buffer", buffer), ("queue", queue), ("queue_params", queue_params),
                     ("count_in_service", count_in_service), ("forward", forward), ("reverse", reverse),
                     ("changes", changes), ("jitter", jitter), ("channels", channels),
                     ("channel_buffers", channel_buffers), ("loss", loss)):
            if v is not None:
                d[k] = copy.deepcopy(v)
        self._data["links"].append(d)
        return self

    # -- traffic --------------------------------------------------------------------------
    def flow(self, src: str, dst: str, *, app: str = "ftp", cc: str | None = None, name: str | None = None,
             params: dict | None = None, **fields: Any) -> "Scenario":
        """A flow from ``src`` to ``dst``. Other fields (max_window, packet_size or packet_sizes,
        ack_size, start, start_spread, stop, mean_gap, rate, bitrate, on, packets, shape,
        mean_on, burst, mean_off, renewal, source_buffer, sink, nagle, nagle_header, nagle_segment,
        nagle_full_segments, profile_rate, profile_burst, reserved_rate, route, reverse_route, fq_weight, and ``class`` as
        ``**{"class": 1}``) go in as given; docs/scenario-format.md describes each. ``cc`` is
        the window algorithm (``ccsim list``; ``params`` its parameters), ``app`` the source
        ("ftp", "telnet", "cbr", "poisson", "onoff", "pareto"); times are durations ("2s"),
        ``rate`` packets per second ("10pps"), ``bitrate`` bits per second ("40kbps")."""
        d: dict[str, Any] = {"src": src, "dst": dst, "app": app}
        if name is not None:
            d["name"] = name
        if cc is not None:
            d["cc"] = cc
        d.update({k: copy.deepcopy(v) for k, v in fields.items() if v is not None})
        if params:
            if not isinstance(params, dict):
                raise ValueError(f"params: expected a dict of transport parameters, got {type(params).__name__}")
            d["params"] = copy.deepcopy(params)
        self._data["flows"].append(d)
        return self

    def measure(self, **fields: Any) -> "Scenario":
        """Measurement settings: interval, discard, trace_period, trace_cwnd, trace_queues,
        trace_drops, port_stats, trace_departures, departures_from (docs/scenario-format.md's
        [measure])."""
        self._data.setdefault("measure", {}).update({k: copy.deepcopy(v) for k, v in fields.items() if v is not None})
        return self

    def parallel(self, *second: str) -> "Scenario":
        """Run on two threads, the nodes named here on the second (the scenario's
        ``[parallel]``: the links between the two halves need a delay; no traces)."""
        self._data["parallel"] = {"second": list(second)}
        return self

    def set(self, **fields: Any) -> "Scenario":
        """Set top-level fields (name, seed, duration, description, or a table such as
        limits={...})."""
        self._data.update(copy.deepcopy(fields))
        return self

    # -- output ---------------------------------------------------------------------------
    def to_dict(self) -> dict:
        """The scenario as a dict of a scenario file's structure (a copy)."""
        return copy.deepcopy(self._data)

    def to_toml(self) -> str:
        """The scenario as the text of a scenario file."""
        return dumps_toml(self._data)

    def save(self, path: str | os.PathLike) -> None:
        """Write the scenario as TOML (to a temporary file, then renamed)."""
        atomic_write_text(path, self.to_toml())

    def validate(self) -> dict:
        """Check the scenario without running it: a summary dict (nodes, links, flows,
        duration_s), or ScenarioError naming the field at fault."""
        from .api import validate
        return validate(self)

    def run(self, *, seed: int | None = None, duration: str | None = None, progress: Any = None,
            time_limit: float | None = None, stop: Any = None):
        """Run it: :func:`ccsim.run` (its ``seed`` and ``duration`` override the scenario's;
        ``time_limit`` in wall seconds and ``stop``, a threading.Event, end it early) returns
        :class:`ccsim.Results`."""
        from .api import run
        return run(self, seed=seed, duration=duration, progress=progress, time_limit=time_limit, stop=stop)


# -- a small TOML writer for the scenario structure -----------------------------------------

def _scalar(v: Any, path: str = "") -> str:
    """One value as TOML. numpy's scalars (np.int64, np.float64, np.bool_) are written as the
    plain numbers they are; anything else that is not a TOML value is a ValueError naming
    ``path``, so save() never writes a file the parser refuses."""
    if isinstance(v, bool) or (type(v).__module__ == "numpy" and type(v).__name__ in ("bool_", "bool")):
        return "true" if v else "false"
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        v = float(v)
        if math.isnan(v) or math.isinf(v):
            raise ValueError(f"{path}: cannot write {v} to TOML; expected a finite number")
        return repr(v)
    if isinstance(v, str):
        # JSON string escapes are valid TOML basic strings; TOML also refuses a raw DEL (U+007F).
        return json.dumps(v, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_scalar(x, f"{path}[{i}]") for i, x in enumerate(v)) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_scalar(x, f'{path}.{k}')}" for k, x in v.items()) + " }"
    raise ValueError(f"{path}: cannot write a {type(v).__name__} to TOML; expected a number, string, "
                     f"boolean, list or table")


def _key(k: str) -> str:
    return k if k and all(c.isalnum() or c in "_-" for c in k) else json.dumps(k)


def dumps_toml(data: dict) -> str:
    """Top-level scalars, then tables, then arrays of tables (inline tables inside them)."""
    lines: list[str] = []
    tables, arrays = [], []
    for k, v in data.items():
        if isinstance(v, dict):
            tables.append((k, v))
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            arrays.append((k, v))
        else:
            lines.append(f"{_key(k)} = {_scalar(v, k)}")
    for k, v in tables:
        lines.append("")
        lines.append(f"[{_key(k)}]")
        lines.extend(f"{_key(kk)} = {_scalar(vv, f'{k}.{kk}')}" for kk, vv in v.items())
    for k, items in arrays:
        for i, item in enumerate(items):
            lines.append("")
            lines.append(f"[[{_key(k)}]]")
            lines.extend(f"{_key(kk)} = {_scalar(vv, f'{k}[{i}].{kk}')}" for kk, vv in item.items())
    return "\n".join(lines) + "\n"
