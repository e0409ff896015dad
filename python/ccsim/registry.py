"""What the engine has: its congestion-control algorithms and queue disciplines, each with its
parameters (name, what it takes, default, meaning).

The listing comes from the engine's registries (``ccsim._core.registry()``): an algorithm or
discipline declares each parameter once, where its decoder reads it, and this module, the
``ccsim list`` command, ``docs/parameters.md`` and ``ccsim reproduce --param``'s targets are
made from that declaration.

    >>> import ccsim
    >>> [a.name for a in ccsim.algorithms()][:3]
    ['generic', 'jk', 'reno']
    >>> ccsim.algorithm("jk").param("ssthresh_from").default
    '"cwnd"'
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class Param:
    name: str
    expects: str     # what values it takes
    default: str     # as a scenario file writes it
    doc: str         # one line of meaning


@dataclass(frozen=True)
class Component:
    """A registered algorithm (``kind`` "cc", set by a flow's ``cc``) or queue discipline
    (``kind`` "queue", set by a link's ``queue``)."""
    kind: str
    name: str
    summary: str
    params: tuple[Param, ...]
    trace_columns: tuple[str, ...] = ()
    event_log: str | None = None

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(f"{self.name} has no parameter {name!r}; it has: {', '.join(p.name for p in self.params)}")

    @property
    def table(self) -> str:
        """Where its parameters go in a scenario file."""
        return "params" if self.kind == "cc" else "queue_params"


@lru_cache(maxsize=1)
def _load() -> dict[str, tuple[Component, ...]]:
    from . import _core

    raw = _core.registry()

    def build(kind: str, entries) -> tuple[Component, ...]:
        return tuple(Component(kind, e["name"], e["summary"], tuple(Param(**p) for p in e["params"]),
                               tuple(e.get("trace_columns", ())), e.get("event_log"))
                     for e in entries)

    return {"cc": build("cc", raw["cc"]), "queue": build("queue", raw["queue"]), "app": tuple(raw["app"])}


def algorithms() -> tuple[Component, ...]:
    """Every congestion-control algorithm, in registration order."""
    return _load()["cc"]


def disciplines() -> tuple[Component, ...]:
    """Every queue discipline, in registration order."""
    return _load()["queue"]


def applications() -> tuple[str, ...]:
    """The application names a flow's ``app`` takes."""
    return _load()["app"]


def _find(items, name: str, what: str) -> Component:
    for c in items:
        if c.name == name:
            return c
    raise KeyError(f"no {what} named {name!r}; expected one of: {', '.join(c.name for c in items)}")


def algorithm(name: str) -> Component:
    return _find(algorithms(), name, "congestion control algorithm")


def discipline(name: str) -> Component:
    return _find(disciplines(), name, "queue discipline")


def component(name: str) -> Component:
    """An algorithm or a discipline by name (the names do not overlap)."""
    for c in algorithms() + disciplines():
        if c.name == name:
            return c
    names = [c.name for c in algorithms() + disciplines()]
    raise KeyError(f"no algorithm or discipline named {name!r}; expected one of: {', '.join(names)}")


def markdown() -> str:
    """The parameter reference (docs/parameters.md), made from the registry."""
    out = ["# Parameters of the algorithms and disciplines", "",
           "Made from the engine's registry by `ccsim list --markdown` (the test suite checks that this",
           "file matches it). A flow's algorithm takes its parameters in `params = {...}`; a link's",
           "discipline in `queue_params = {...}`. Every parameter is optional; the default is the",
           "source's value where it has one (see each mechanism's file for the reading taken).", ""]
    for title, items in (("Congestion control (`cc`)", algorithms()), ("Queue disciplines (`queue`)", disciplines())):
        out += [f"## {title}", ""]
        for c in items:
            out += [f"### `{c.name}`", "", c.summary + ".", ""]
            if c.trace_columns:
                out += [f"Trace columns of its own: {', '.join(f'`{t}`' for t in c.trace_columns)}."
                        + (f" Event log: the `{c.event_log}` table." if c.event_log else ""), ""]
            if not c.params:
                out += ["No parameters.", ""]
                continue
            out += ["| parameter | takes | default | meaning |", "|---|---|---|---|"]
            for p in c.params:
                out.append(f"| `{p.name}` | {p.expects} | `{p.default}` | {p.doc} |")
            out.append("")
    return "\n".join(out)
