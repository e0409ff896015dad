"""Cui chapter 3's target systems simulated directly (issue 22): ``ccsim experiment cui-direct``.

The thesis could simulate at most 10 Gb/s with 1 000 flows and extrapolated everything faster
from slower runs (§3.3; make_scenarios.e32 and families.py repeat that method). Here the
target systems run as they are, at 40 Gb/s a channel, and their trunk utilisation U and loss
P_B sit beside the thesis's extrapolation, ccsim's own extrapolation (when a ``ccsim
reproduce cui-buffers`` output is at hand) and, for Table 3.4, the rule's target and the
closed-loop model:

- ``e3.2-b2``, ``e3.2-b10``: E3.2's target (§3.3.2, Figs 3.6-3.9): 40 Gb/s, 4 000 flows,
  M = 2, K = 1, B = 2 and 10, 100 simulated seconds (10 s discarded). The thesis extrapolated
  U = 31.7 % and 70.3 %, P_B = 10^-3.04 and 10^-3.71.
- ``t3.4-k16``, ``t3.4-k64``: Table 3.4 (§3.8.1, Fig 3.51): K = 16 (M = 32, 64 000 flows) and
  K = 64 (M = 128, 256 000 flows) with B from the rule (3.23) for 80 % (16 and 9), RTT_H
  100 ms; 10 simulated seconds (4 s discarded). The same networks as families.py's
  ``e38-t34-*`` families at their target point.
- ``k100``: the stretch case, K = 100 (4 Tb/s, M = 200, 400 000 flows), B from the rule for
  80 %; not in the thesis.

The networks are the reproduction's own (network.py, families.py), ns-2's paced NewReno
(make_scenarios.TRANSPORT, whose pacing follows Wei's ns-2 patch; ``--pacing-rtt srtt`` spreads
each window over the smoothed RTT instead). Runs go to a local pool (``--jobs``) or a Dask cluster
(``--scheduler``); ``--threads 2`` runs each on two threads (network.on_two_threads).
"""

from __future__ import annotations

import math
import resource
from dataclasses import dataclass, replace
from pathlib import Path

from .network import Network

TARGET_U = 0.8


@dataclass(frozen=True)
class Case:
    name: str
    title: str
    net: Network
    thesis_util: float | None = None        # the thesis's extrapolated U at this system
    thesis_log10_loss: float | None = None
    extrapolation: tuple[str, str] | None = None   # (file, row name) of ccsim's fit in a reproduction
    family: str | None = None                # families.py stem, for the closed-loop model
    target_util: float | None = None         # the buffer rule's target


def _e32(b: int, util: float, log10_loss: float) -> Case:
    from .make_scenarios import TRANSPORT

    net = Network(flows=4000, inputs=2, channels=1, buffer=b, channel_bps=40e9, duration=100.0, warmup=10.0,
                  interval=10.0, transport=TRANSPORT)
    return Case(f"e3.2-b{b}", f"E3.2 target, B = {b}: 40 Gb/s, 4 000 flows, M = 2, K = 1", net, util, log10_loss,
                (f"e32-b{b}-x10", f"990000 B = {b} fit at 40 Gb/s"))


def _table34(k: int) -> Case:
    from .families import E38_SETTINGS, e38_buffer, Family, TARGET_GBPS
    from .make_scenarios import TRANSPORT

    stem, m, _, n, rtt_h, _note = next(s for s in E38_SETTINGS if s[0] == f"e38-t34-k{k}")
    b = e38_buffer(m, k, n, rtt_h, TARGET_U)
    fam = Family(f"{stem}-b{b}", m, k, b, k * TARGET_GBPS * 1e9 / n, rtt_h=rtt_h)
    net = replace(fam.network(n, TRANSPORT), duration=10.0, warmup=4.0, interval=2.0)
    return Case(f"t3.4-k{k}", f"Table 3.4, K = {k}: {k * 40 / 1000:g} Tb/s, {n:,} flows, M = {m}, B = {b} (rule, 80 %)",
                net, extrapolation=(fam.file(max(fam.flows)), "990000 fit at 40 Gb/s"), family=fam.stem,
                target_util=TARGET_U)


def _k100() -> Case:
    from .families import MU_40G
    from .make_scenarios import TRANSPORT
    from ccsim.models.cui import dwdm_buffer, uniform_rtts_for_harmonic_mean

    k, m, n = 100, 200, 400_000
    b = dwdm_buffer(m, k, MU_40G, TARGET_U, n, 0.1)
    lo, hi = uniform_rtts_for_harmonic_mean(0.1)
    net = Network(flows=n, inputs=m, channels=k, buffer=b, channel_bps=40e9, rtt_min=lo, rtt_max=hi,
                  duration=10.0, warmup=4.0, interval=2.0, transport=TRANSPORT)
    return Case("k100", f"K = 100: 4 Tb/s, 400 000 flows, M = 200, B = {b} (rule, 80 %)", net, target_util=TARGET_U)


def cases() -> dict[str, Case]:
    out = [_e32(2, 0.317, -3.04), _e32(10, 0.70341, -3.7145382), _table34(16), _table34(64), _k100()]
    return {c.name: c for c in out}


DEFAULT_CASES = ("e3.2-b2", "e3.2-b10")


def packet_budget_mb(net: Network) -> int:
    """limits.packet_memory for a direct run: three times the trunk's bandwidth-delay product
    (K mu RTT_H packets; the data in flight and the ACKs coming back stay near one, the start-up
    overshoots) at the engine's 128 bytes a packet, and at least the default 1 GiB."""
    from ccsim.models.cui import harmonic_mean_rtt_uniform

    bdp = net.channels * net.packets_per_s * harmonic_mean_rtt_uniform(net.rtt_min, net.rtt_max)
    return max(1074, math.ceil(3 * bdp * 128 / 1e6))


def run_cases(names, *, seed: int = 1, duration: float | None = None, jobs: int | None = None,
              scheduler: str | None = None, progress: bool = True, threads: int = 1,
              pacing_rtt: str | None = None):
    """Run the named cases; one row per case: U, P_B, log10 P_B, drops, departures, the
    flows' goodput percentiles and Jain index, wall seconds, events, simulated seconds.
    ``pacing_rtt`` replaces the reproduction's pacing rule (make_scenarios.TRANSPORT)."""
    import numpy as np
    import pandas as pd

    from ccsim.sweep import Task, run_many

    from .extrapolate import trunk_measure
    from .make_scenarios import TRANSPORT
    from .network import on_two_threads, scenario

    table = cases()
    tasks = []
    for name in names:
        c = table[name]
        net = c.net if duration is None else replace(c.net, duration=duration, warmup=min(c.net.warmup, duration / 2),
                                                     interval=min(c.net.interval, duration / 4))
        if pacing_rtt is not None:
            net = replace(net, transport={**net.transport, "pacing_rtt": pacing_rtt})
        body = scenario(net, f"cui-direct-{name}", c.title, seed=seed)
        body["limits"] = {"packet_memory": f"{packet_budget_mb(net)}MB"}
        if threads == 2:
            body = on_two_threads(body)
        tasks.append(Task(key=name, scenario=body, meta={"warmup_s": net.warmup}))
    rows = []
    if len(tasks) == 1 and scheduler is None:
        # One run: its own progress bar (simulated time, events per second, time left).
        from ccsim import api

        done = [(tasks[0], api.run(tasks[0].scenario, progress=None if progress else False))]
    else:
        done = run_many(tasks, workers=jobs, progress="direct runs" if progress else False, scheduler=scheduler)
    for task, res in done:
        if isinstance(res, Exception):
            raise res
        m = trunk_measure(res)
        # The flows as a group (a row per flow would be 256 000 lines): goodput percentiles
        # over the measured intervals, and Jain's index.
        good = res.flows["goodput_bps"].to_numpy(float)
        pct = np.nanpercentile(good, [5, 50, 95]) if len(good) else [math.nan] * 3
        rows.append({"case": task.key, "seed": seed, "warmup_s": task.meta["warmup_s"], "util": m["U"],
                     "goodput_p5_bps": pct[0], "goodput_p50_bps": pct[1], "goodput_p95_bps": pct[2],
                     "jain": res.run.get("jain_goodput", math.nan), "loss": m["P_B"],
                     "log10_loss": math.log10(m["P_B"]) if m["P_B"] > 0 else -math.inf,
                     "departures": m["departures"], "drops": m["drops"], "sim_seconds": res.run["duration_s"],
                     "wall_seconds": res.run["wall_seconds"], "events": res.run["events"],
                     "peak_packets": res.run["peak_packets"], "interrupted": res.run["interrupted"],
                     "threads": threads, "pacing_rtt": pacing_rtt or TRANSPORT["pacing_rtt"]})
        del res
    order = {n: i for i, n in enumerate(names)}
    return pd.DataFrame(rows).sort_values("case", key=lambda s: s.map(order)).reset_index(drop=True)


def ccsim_extrapolation(repro_dir: Path | None) -> dict[tuple[str, str], dict]:
    """ccsim's own fits at 40 Gb/s, from a ``ccsim reproduce cui-buffers`` output directory:
    (file, row name) -> {"util_40", "log10_loss_40"} (seed 1)."""
    if repro_dir is None or not (repro_dir / "flows.parquet").exists():
        return {}
    import pandas as pd

    f = pd.read_parquet(repro_dir / "flows.parquet")
    f = f[f["name"].astype(str).str.startswith("990000")]
    out = {}
    for r in f.itertuples():
        if int(r.seed) == 1:
            out[(str(r.file), str(r.name))] = {k: getattr(r, k, math.nan) for k in ("util_40", "log10_loss_40")}
    return out


def _pacing_words(rule) -> str:
    return {"srtt": "; paced over the smoothed RTT", "ns2_wei": "; paced by Wei's ns-2 rule"}.get(rule, "")


def _pct(v) -> str:
    return "-" if v is None or not math.isfinite(v) else f"{100 * v:.1f} %"


def _dec(v) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"10^{v:.2f}"


def report(rows, repro_dir: Path | None = None) -> str:
    """The direct results beside the extrapolations, as text."""
    table = cases()
    fits = ccsim_extrapolation(repro_dir)
    lines = ["Cui chapter 3's target systems simulated directly (ccsim experiment cui-direct)", ""]
    for r in rows.itertuples():
        c = table[r.case]
        fit = fits.get(c.extrapolation) if c.extrapolation else None
        lines += [f"{c.name}: {c.title}",
                  f"  direct ({r.sim_seconds:g} s simulated, the first {r.warmup_s:g} s discarded"
                  f"{_pacing_words(getattr(r, 'pacing_rtt', None))}): "
                  f"U = {_pct(r.util)}, P_B = {_dec(r.log10_loss)} ({r.drops:.0f} drops of {r.departures + r.drops:.0f})",
                  f"  run: {r.wall_seconds:.0f} wall s, {r.events / max(r.wall_seconds, 1e-9) / 1e6:.2f} M events/s, "
                  f"{r.departures / max(r.wall_seconds, 1e-9) / 1e6:.3f} M measured trunk packets per wall s, "
                  f"{r.peak_packets:,} packets alive at most" + (" (interrupted)" if r.interrupted else ""),
                  f"  flows: goodput 5th / 50th / 95th percentile {r.goodput_p5_bps / 1e6:.2f} / "
                  f"{r.goodput_p50_bps / 1e6:.2f} / {r.goodput_p95_bps / 1e6:.2f} Mb/s, Jain {r.jain:.3f}"]
        if c.thesis_util is not None:
            lines.append(f"  thesis's extrapolation: U = {_pct(c.thesis_util)}, P_B = {_dec(c.thesis_log10_loss)}; "
                         f"direct - thesis: {100 * (r.util - c.thesis_util):+.1f} points of U, "
                         f"{r.log10_loss - c.thesis_log10_loss:+.2f} decades of P_B")
        if fit:
            lines.append(f"  ccsim's extrapolation ({repro_dir}): U = {_pct(fit['util_40'])}, "
                         f"P_B = {_dec(fit['log10_loss_40'])}")
        elif c.extrapolation:
            lines.append("  ccsim's extrapolation: not at hand (pass --extrapolation DIR, the output of "
                         "`ccsim reproduce cui-buffers`)")
        if c.target_util is not None:
            lines.append(f"  the rule's target: U = {_pct(c.target_util)}; direct - target: "
                         f"{100 * (r.util - c.target_util):+.1f} points")
        if c.family:
            from .families import _by_stem

            lines.append(f"  closed-loop model (G1DM, §3.7) at this system: U = {_pct(_by_stem()[c.family].model_utilisation())}")
        lines.append("")
    return "\n".join(lines)


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def experiment(a) -> tuple[str, str | None]:
    """``ccsim experiment cui-direct``: run the cases of ``a.cases`` (comma-separated) and
    return (report text, an error naming the option or None). Writes ``direct.csv`` beside
    ``--out`` when given."""
    names = [s.strip() for s in (a.cases or ",".join(DEFAULT_CASES)).split(",") if s.strip()]
    known = cases()
    bad = [n for n in names if n not in known]
    if bad or not names:
        return "", f"--cases: expected names from {', '.join(known)}, got {', '.join(bad) or 'nothing'}"
    if a.duration is not None and not 0 < a.duration <= 1e5:
        return "", f"--duration: expected simulated seconds in (0, 1e5], got {a.duration}"
    if a.jobs is not None and a.jobs < 1:
        return "", f"--jobs: expected a positive integer, got {a.jobs}"
    if a.threads not in (1, 2):
        return "", f"--threads: expected 1 or 2, got {a.threads}"
    if a.scheduler:
        try:
            import distributed  # noqa: F401
        except ImportError:
            return "", "--scheduler needs the optional dependency: pip install 'ccsim[dask]'"
    repro = Path(a.extrapolation) if a.extrapolation else None
    if repro is not None and not (repro / "flows.parquet").exists():
        return "", f"--extrapolation {a.extrapolation!r}: expected the output directory of `ccsim reproduce cui-buffers`"
    # Two threads a run: one run at a time on this machine's two cores, unless asked.
    jobs = a.jobs if a.jobs is not None or a.threads == 1 else 1
    rows = run_cases(names, seed=a.seed, duration=a.duration, jobs=jobs, scheduler=a.scheduler, threads=a.threads,
                     pacing_rtt=a.pacing_rtt)
    text = report(rows, repro) + f"Peak resident memory of this process: {peak_rss_mib():,.0f} MiB.\n"
    if a.out:
        from ccsim._files import atomic_write_text

        atomic_write_text(str(Path(a.out).with_suffix(".csv")), rows.to_csv(index=False))
    return text, None


# cui-direct's options (argparse dests) and the defaults that mean "not given".
OPTIONS = {"cases": None, "duration": None, "jobs": None, "scheduler": None, "threads": 1, "pacing_rtt": None,
           "extrapolation": None}


def options_given(a) -> list[str]:
    """The cui-direct options the command line set, as written (``--pacing-rtt``): another
    experiment refuses them rather than ignore them."""
    return [f"--{k.replace('_', '-')}" for k, unset in OPTIONS.items() if getattr(a, k, unset) != unset]


def add_options(parser) -> None:
    """cui-direct's options on ``ccsim experiment``'s parser (OPTIONS lists them)."""
    parser.add_argument("--cases", help="cui-direct: comma-separated cases (default e3.2-b2,e3.2-b10)")
    parser.add_argument("--duration", type=float, help="cui-direct: simulated seconds instead of each case's own")
    parser.add_argument("--jobs", type=int, help="cui-direct: parallel runs (default: one per core)")
    parser.add_argument("--scheduler", metavar="ADDR", help="cui-direct: run on a Dask cluster")
    parser.add_argument("--threads", type=int, default=1,
                        help="cui-direct: 2 runs each case on two threads (the engine's [parallel]; default 1)")
    parser.add_argument("--pacing-rtt", choices=("ns2_wei", "srtt"),
                        help="cui-direct: the round trip the flows' pacing spreads a window over (default the "
                             "reproduction's, ns2_wei; srtt: the smoothed RTT)")
    parser.add_argument("--extrapolation", metavar="DIR", help="cui-direct: a `ccsim reproduce cui-buffers` "
                                                               "output to read ccsim's own extrapolation from")
