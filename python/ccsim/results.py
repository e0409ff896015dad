"""Results of a run: pandas DataFrames in memory; Parquet, JSON and PNG on disk.

Every file is written under a temporary name and renamed, so an interrupted run never
leaves a half-written file behind.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._files import atomic_write


def _clean(v: Any) -> Any:
    """NaN/inf -> None so summary.json is strict JSON."""
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return None
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_clean(x) for x in v]
    return v


FIGURES = (("cwnd.png", "cwnd", "plot_cwnd"), ("queues.png", "queues", "plot_queues"),
           ("probes.png", "probes", "plot_probes"))


def write_figures(res, out: Path, *, draw: bool = True) -> list[Path]:
    """Draw the window, queue and probe figures of ``res`` (Results or LoadedResults) into
    ``out``, each whose trace has rows. A figure already there that this run does not draw
    (another run's, or every one when ``draw`` is false) is removed, so the figures in a
    directory always show the data beside them. Returns the figures written."""
    from . import plots as _plots

    written = []
    for name, trace, fn in FIGURES:
        p = out / name
        frame = getattr(res, trace)
        if draw and len(frame):
            atomic_write(p, lambda t, frame=frame, fn=fn: getattr(_plots, fn)(frame, t, title=res.run["name"]))
            written.append(p)
        else:
            p.unlink(missing_ok=True)
    return written


# The columns of the per-flow and per-port tables, for runs with none (a scenario may have no
# flows or no links): code that selects columns keeps working on the empty frames.
FLOW_COLUMNS = ["name", "src", "dst", "app", "cc", "packet_size"] + [
    m + sd for m in ("goodput_pps", "original_pps", "goodput_bps", "delay_s", "owd_s", "drop_rate", "retx_rate")
    for sd in ("", "_sd")] + ["intervals_used", "sent", "retransmitted", "delivered", "delivered_bytes", "received",
                             "originals", "data_dropped", "acks_sent", "acks_received", "acks_dropped",
                             "data_in_network", "acks_in_network", "timeouts", "source_discards", "nagle_writes",
                             "nagle_held_bytes", "control_sent",
                             "control_received", "control_dropped", "control_unroutable", "control_in_network",
                             "final_cwnd", "price_estimate", "conserved"]
PORT_COLUMNS = ["name", "bandwidth_bps", "channels", "delay_s", "departures", "bytes_departed", "drops", "utilisation",
                "max_queue_packets", "max_queue_bytes", "marks", "control_drops", "lost", "state_name", "final_state"]
PORT_INTERVAL_COLUMNS = ("port", "interval", "start_s", "end_s", "utilisation", "departures", "bytes", "drops",
                         "marks", "control_drops", "lost", "mean_queue_packets", "mean_queue_bytes")
DEPARTURE_COLUMNS = ("port", "time_s", "flow", "class", "kind", "size", "wait_s")
PACKET_KINDS = ("data", "ack", "control")
PROBE_COLUMNS_EMPTY = {c: [] for c in ("flow", "time_s", "probe", "probe_gap_s", "rate_est_pps",
                                         "send_rate_pps", "alpha")}
DROP_COLUMNS = ("time_s", "port", "flow", "seq", "ack", "retransmission", "queue_packets",
                "conv_queued", "longest_other")


def _take(labels, ids, index=None) -> pd.Series:
    """labels[i] for each i in ids, as a text column. pyarrow's take builds it without a Python
    object per row: a departure log has millions of rows, and converting an object array to
    pandas' text dtype cost 0.03 s a million rows and column, half of a Hua chapter 5 run."""
    import pyarrow as pa

    taken = pa.array([None if x is None else str(x) for x in labels], pa.string()).take(pa.array(np.asarray(ids, dtype=np.int64)))
    return pd.Series(taken, index=index, dtype="str")


def _drops_frame(raw: dict | None, flow_names: list[str], port_names: list[str]) -> pd.DataFrame:
    d = pd.DataFrame(raw or {c: [] for c in DROP_COLUMNS})
    # Typed as text even with no drops, so an empty drops.parquet has the usual schema.
    d.insert(2, "port_name", _take(port_names, d["port"].to_numpy(), d.index))
    d.insert(4, "flow_name", _take(flow_names, d["flow"].to_numpy(), d.index))
    return d


def _mark_discarded(intervals: pd.DataFrame, run: dict) -> pd.DataFrame:
    """``intervals`` with ``discarded`` after ``interval``: the first ``run["discard"]``
    intervals, which the flows' batch means leave out."""
    if "interval" in intervals.columns and "discarded" not in intervals.columns:
        intervals.insert(intervals.columns.get_loc("interval") + 1, "discarded",
                         intervals["interval"] < run.get("discard", 0))
    return intervals


class Results:
    """What one run produced.

    Attributes (DataFrames): ``flows`` (one row per flow: batch means and totals; rates are
    per second: ``goodput_pps`` packets/s, ``goodput_bps`` bit/s, ``drop_rate`` and
    ``retx_rate`` the flow's data packets dropped and retransmitted per second, not fractions;
    ``delay_s`` the RTT and ``owd_s`` the one-way delay, in seconds; each is the mean of the
    interval means after the discarded ones, ``<metric>_sd`` their standard deviation and
    ``intervals_used`` how many there were; the rest are totals over the whole run: ``sent``,
    ``delivered``, ``timeouts``, ...),
    ``intervals`` (one row per flow and measurement interval, with the same metrics, ``interval``
    numbering them from 0 and ``discarded`` true for the first ``run["discard"]``, which the
    flows' means leave out), ``ports`` (per link
    direction; ``bandwidth_bps`` is each channel's rate, ``channels`` their number, and
    ``utilisation`` busy channel-time over channels x time), ``cwnd`` and ``queues`` (decimated traces; ``queues`` has the packets and bytes waiting
    and ``state``, the discipline's own control variable, named by ``state_name``: RED's and RIO's
    ``avg_queue``, DECbit's ``avg_in_system``, BLUE's ``mark_prob``, REM's ``price``, BBN's
    ``ration_bps``, the SEIF router's ``feedback_armed``, as of the discipline's last update (docs/scenario-format.md); the ports
    table has the same name and the ``final_state``), ``probes`` (every probe of the
    traced packet-pair flows). ``run`` is a dict with the run's metadata: ``name``, ``seed``,
    ``duration_s`` (simulated), ``interrupted`` (stopped early: the tables cover
    ``duration_s``), ``interval_s`` and ``discard`` (the measurement intervals), ``events``,
    ``wall_seconds``, ``peak_packets`` (packets alive at once, at most), ``jain_goodput``
    (Jain's index of the flows' goodputs) and ``conserved`` (every packet accounted for).

    ``cwnd`` has one row per traced flow and trace period: ``cwnd``, ``ssthresh``,
    ``outstanding``, ``srtt_s`` (the sender's smoothed RTT), and the columns the traced
    flows' algorithms declare of their own (``ccsim.algorithms()`` lists them): packet-pair's
    estimator state held at that instant, ``probe_gap_s`` (the last probe's inter-ACK gap),
    ``rate_est_pps`` (the predicted bottleneck rate), ``send_rate_pps`` (the sending rate)
    and ``alpha`` (the fuzzy predictor's averaging constant); NaN for flows of other
    algorithms and before a value is first measured. ``events`` holds the algorithms' event
    logs, one DataFrame per table: ``probes`` (also an attribute of its own) has one row per
    probe as it happened (``probe`` numbers them; the log keeps at most 64 per trace period,
    the latest).

    ``drops`` has one row per packet dropped at a port ``[measure] trace_drops`` selects
    (none by default): ``time_s``, ``port``/``port_name``, ``flow``/``flow_name``, ``seq``
    (an ACK's is its ACK number), ``ack`` and ``retransmission`` (what was dropped), and a
    census of the port's waiting packets right after the drop: ``queue_packets`` in all, ``conv_queued`` of the dropped
    packet's conversation (its flow and direction) and ``longest_other``, the most any other
    conversation has waiting. ``conv_queued + 1 >= longest_other`` says the drop hit a
    longest queue, as Fair Queueing's chapter 2 policy should.

    ``port_intervals`` (ports ``[measure] port_stats`` selects) has one row per port and
    interval: ``utilisation``, ``departures``, ``bytes``, ``drops``, ``marks``, ``control_drops``,
    ``lost`` and the time-averaged queue ``mean_queue_packets`` / ``mean_queue_bytes``.
    ``departures`` (ports ``trace_departures`` selects) has one row per packet that started
    transmission there: ``time_s``, ``flow``, ``class``, ``kind`` (data, ack, control), ``size``
    and ``wait_s``, the time it waited at that port.
    """

    def __init__(self, raw: dict):
        self.raw = raw
        self.run: dict = dict(raw["run"])
        names = [f["name"] for f in raw["flows"]]
        rows = []
        for f in raw["flows"]:
            row = {k: f[k] for k in ("name", "src", "dst", "app", "cc", "packet_size")}
            for metric in ("goodput_pps", "original_pps", "goodput_bps", "delay_s", "owd_s", "drop_rate", "retx_rate"):
                row[metric] = f[metric]["mean"]
                row[metric + "_sd"] = f[metric]["sd"]
            row["intervals_used"] = f["goodput_pps"]["intervals"]
            row.update(f["totals"])
            row["final_cwnd"] = f["final_cwnd"]
            row["price_estimate"] = f["price_estimate"]
            row["conserved"] = f["conserved"]
            rows.append(row)
        self.flows = pd.DataFrame(rows, columns=FLOW_COLUMNS if not rows else None)
        self.ports = pd.DataFrame(raw["ports"], columns=PORT_COLUMNS if not raw["ports"] else None)
        pnames = list(self.ports["name"])

        def named(frame: pd.DataFrame, index: str, column: str, labels: list) -> pd.DataFrame:
            # The name column is there even when the table is empty, so code that groups by
            # it works on every run. Labels are taken by index in pyarrow (`_take`: a departure
            # log has millions of rows; a Python loop over them held the GIL for seconds).
            ids = frame[index].to_numpy() if index in frame.columns else []
            values = _take(labels, ids, frame.index) if len(ids) else pd.Series([], dtype=str)
            frame.insert(1 if len(frame.columns) else 0, column, values)
            return frame

        self.intervals = _mark_discarded(named(pd.DataFrame(raw["intervals"]), "flow", "flow_name", names),
                                         self.run)
        self.cwnd = named(pd.DataFrame(raw["cwnd_trace"]), "flow", "flow_name", names)
        # The algorithms' event logs, one table each; packet-pair's is ``probes``.
        self.events = {name: named(pd.DataFrame(t), "flow", "flow_name", names)
                       for name, t in (raw.get("event_traces") or {}).items()}
        self.probes = self.events.get("probes")
        if self.probes is None:
            self.probes = named(pd.DataFrame(PROBE_COLUMNS_EMPTY), "flow", "flow_name", names)
        qt = named(pd.DataFrame(raw["queue_trace"]), "port", "port_name", pnames)
        # What each port's `state` is (RED's average queue, BBN's ration, ...; None: nothing).
        if "state" in qt.columns:
            qt.insert(qt.columns.get_loc("state") + 1, "state_name",
                      _take([p.get("state_name") for p in raw["ports"]], qt["port"].to_numpy(), qt.index))
        self.queues = qt
        # Statistics per interval of the ports `[measure] port_stats` selects, and every
        # departure at the ports `trace_departures` selects (kind: data, ack or control).
        self.port_intervals = named(pd.DataFrame(raw.get("port_intervals") or {c: [] for c in PORT_INTERVAL_COLUMNS}),
                                    "port", "port_name", pnames)
        dep = pd.DataFrame(raw.get("departures") or {c: [] for c in DEPARTURE_COLUMNS})
        dep = named(dep, "port", "port_name", pnames)
        dep.insert(4, "flow_name", _take(names, dep["flow"].to_numpy(), dep.index))
        dep["kind"] = _take(PACKET_KINDS, dep["kind"].to_numpy(), dep.index)
        self.departures = dep
        self.drops = _drops_frame(raw.get("drop_trace"), names, list(self.ports["name"]))

    def __repr__(self) -> str:
        r = self.run
        return (f"<ccsim.Results {r.get('name')!r}: seed {r.get('seed')}, {r.get('duration_s', 0):g} s"
                + (" (interrupted)" if r.get("interrupted") else "") + f", {len(self.flows)} flows>")

    @property
    def jain(self) -> float:
        """Jain's fairness index of the flows' goodputs (``run["jain_goodput"]``)."""
        return self.run["jain_goodput"]

    def summary(self) -> dict:
        """The JSON summary: run metadata, per-flow results, per-port statistics."""
        return _clean({
            "run": self.run,
            "flows": self.raw["flows"],
            "ports": self.raw["ports"],
        })

    def flow(self, name: str) -> pd.Series:
        """One flow's row of ``flows`` by name."""
        m = self.flows[self.flows["name"] == name]
        if m.empty:
            raise KeyError(f"no flow named {name!r}; flows are: {', '.join(self.flows['name'])}")
        return m.iloc[0]

    def write(self, out_dir: str | os.PathLike, *, plots: bool = True) -> list[Path]:
        """Write summary.json, intervals.parquet, flows.parquet, ports.parquet, cwnd.parquet,
        queues.parquet, probes.parquet, drops.parquet and (if there are traces) cwnd.png / queues.png /
        probes.png into ``out_dir``."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        written: list[Path] = []

        def put(name: str, write) -> None:
            p = out / name
            atomic_write(p, write)
            written.append(p)

        summary = json.dumps(self.summary(), indent=2, allow_nan=False)
        put("summary.json", lambda t: Path(t).write_text(summary + "\n", encoding="utf-8"))
        for name, df in (("flows", self.flows), ("intervals", self.intervals), ("ports", self.ports),
                         ("cwnd", self.cwnd), ("queues", self.queues), ("probes", self.probes),
                         ("drops", self.drops)):
            put(f"{name}.parquet", lambda t, df=df: df.to_parquet(t, index=False))
        # Written when the scenario asked for them ([measure] port_stats, trace_departures);
        # otherwise an earlier run's table in this directory is removed, as its figures are,
        # so Results.read never returns another run's rows beside this run's summary.
        for name, df in (("port_intervals", self.port_intervals), ("departures", self.departures)):
            if len(df):
                put(f"{name}.parquet", lambda t, df=df: df.to_parquet(t, index=False))
            else:
                (out / f"{name}.parquet").unlink(missing_ok=True)
        written += write_figures(self, out, draw=plots)
        return written

    @classmethod
    def read(cls, out_dir: str | os.PathLike) -> "LoadedResults":
        return LoadedResults(out_dir)


_NUMERIC_RUN_KEYS = frozenset({"duration_s", "interval_s", "wall_seconds", "jain_goodput"})


class LoadedResults(Results):
    """Results read back from a directory written by :meth:`Results.write`: a
    :class:`Results` with the same frames, ``run``, ``jain``, ``flow()``, ``summary()`` and
    ``write()`` (the algorithms' event logs other than ``probes`` are not written)."""

    def __init__(self, out_dir: str | os.PathLike):
        from ._core import ScenarioError

        out = Path(out_dir)
        if not (out / "summary.json").exists():
            raise ScenarioError(f"{out}: no summary.json here; expected a directory written by `ccsim run --out`")

        def read(name: str, load, optional=False):
            p = out / name
            if optional and not p.exists():
                return None
            try:
                return load(p)
            except FileNotFoundError:
                raise ScenarioError(f"{p}: missing; expected every file `ccsim run --out` writes "
                                    f"(run the scenario again)") from None
            except Exception as e:  # a damaged file: say which, whatever the reader raised
                raise ScenarioError(f"{p}: cannot read ({type(e).__name__}: {e}); run the scenario again") from None

        self._summary = read("summary.json", lambda p: json.loads(p.read_text(encoding="utf-8")))
        if not isinstance(self._summary, dict) or "run" not in self._summary:
            raise ScenarioError(f"{out / 'summary.json'}: not a ccsim summary (no \"run\" entry)")
        # summary.json writes NaN (a Jain index with no goodput, say) as null: read it back as
        # the number it was, so arithmetic on it works as on a run's.
        self.run = {k: (math.nan if v is None and k in _NUMERIC_RUN_KEYS else v)
                    for k, v in self._summary["run"].items()}
        self.flows = read("flows.parquet", pd.read_parquet)
        # (Directories written before the `discarded` column get it here.)
        self.intervals = _mark_discarded(read("intervals.parquet", pd.read_parquet), self.run)
        self.ports = read("ports.parquet", pd.read_parquet)
        self.cwnd = read("cwnd.parquet", pd.read_parquet)
        self.queues = read("queues.parquet", pd.read_parquet)
        # Directories written before the disciplines' state was traced: the same columns, empty.
        if "state" not in self.queues.columns:
            self.queues["state"] = np.nan
            self.queues["state_name"] = pd.Series([None] * len(self.queues), dtype="str", index=self.queues.index)
        if "state_name" not in self.ports.columns:
            self.ports["state_name"] = pd.Series([None] * len(self.ports), dtype="str", index=self.ports.index)
            self.ports["final_state"] = np.nan
        # Absent in directories written before probe and drop traces existed.
        probes = read("probes.parquet", pd.read_parquet, optional=True)
        self.probes = probes if probes is not None else pd.DataFrame(PROBE_COLUMNS_EMPTY)
        # Not written when empty: read back with a run's columns, names included, so code that
        # groups by port_name works on every run.
        for name, columns, named in (("port_intervals", PORT_INTERVAL_COLUMNS, ("port_name",)),
                                     ("departures", DEPARTURE_COLUMNS, ("port_name", "flow_name"))):
            frame = read(f"{name}.parquet", pd.read_parquet, optional=True)
            if frame is None:
                frame = pd.DataFrame({c: [] for c in columns})
                for at, c in zip((1, 4), named):
                    frame.insert(at, c, pd.Series([], dtype="str"))
            setattr(self, name, frame)
        self.events = {}  # the algorithms' event logs are not written; probes are
        drops = read("drops.parquet", pd.read_parquet, optional=True)
        self.drops = drops if drops is not None else _drops_frame(None, list(self.flows["name"]),
                                                                  list(self.ports["name"]))

    def summary(self) -> dict:
        """The JSON summary as written (summary.json)."""
        return self._summary
