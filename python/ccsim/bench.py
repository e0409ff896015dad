"""The benchmark cases of ``ccsim bench`` (issue 2; issue 22 for the DWDM case).

- ``dumbbell``: the engine's standard N-flow NewReno dumbbell (crates/ccsim/src/bench.rs).
- ``cui``: Cui chapter 3's network at its target scale (experiments/cui_buffers/network.py):
  two input trunks of K channels (M = 2K edge routers) into one output trunk of K channels of
  40 Gb/s, N = K x 40 Gb/s / share paced ns-2 NewReno flows (4000 a channel at the default
  10 Mb/s), RTTs 60-180 ms, B shared buffer slots. K = 1, 16, 64 and 100 are the issue's
  yardsticks; a short run (the start-up) by default, a long one with ``--duration``.

Each case runs in a fresh interpreter that imports only the engine, so the peak resident set
is the simulator's, and prints one JSON line.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

CUI_PORT = "sw->d"


def cui_text(channels: int, duration: float, buffer: int = 10, share_bps: float = 10e6, seed: int = 1,
             threads: int = 1) -> str:
    """The ``cui`` case's scenario TOML (on two threads with ``threads=2``)."""
    from .builder import dumps_toml
    from .experiments.cui_buffers.direct import packet_budget_mb
    from .experiments.cui_buffers.make_scenarios import PACING_SRTT, TRANSPORT
    from .experiments.cui_buffers.network import Network, on_two_threads, scenario

    flows = max(1, round(channels * 40e9 / share_bps))
    net = Network(flows=flows, inputs=2 * channels, channels=channels, buffer=buffer, channel_bps=40e9,
                  duration=duration, warmup=0.0, interval=duration / 2,
                  transport=TRANSPORT | PACING_SRTT)   # the yardstick's workload since issue 22
    body = scenario(net, f"bench-cui-k{channels}", f"Cui ch. 3 at scale: K = {channels}, {flows} flows", seed=seed)
    body["measure"]["discard"] = 0
    body["limits"] = {"packet_memory": f"{packet_budget_mb(net)}MB"}   # three trunk BDPs (direct.py)
    if threads == 2:
        body = on_two_threads(body)
    return dumps_toml(body)


# Memory a flow of the cui case takes before its packets: scenario text, the parsed value tree
# (3.7 kB, docs/performance.md) and the engine's state (1.8 kB at K = 64), rounded up; a second
# thread builds a second copy of the engine's state.
CUI_BYTES_PER_FLOW = 8_000
CUI_BYTES_PER_FLOW_SECOND_THREAD = 2_000


def cui_memory_bytes(channels: int, share_bps: float, threads: int = 1) -> float:
    """What the cui case needs at most: its flows and half its packet budget (the arena's
    64-byte slots of the 128 bytes a packet is counted)."""
    from .experiments.cui_buffers.direct import packet_budget_mb
    from .experiments.cui_buffers.network import Network

    flows = max(1, round(channels * 40e9 / share_bps))
    net = Network(flows=flows, inputs=2 * channels, channels=channels, buffer=0, channel_bps=40e9)
    per_flow = CUI_BYTES_PER_FLOW + (threads - 1) * CUI_BYTES_PER_FLOW_SECOND_THREAD
    return flows * per_flow + packet_budget_mb(net) * 1e6 / 2


def run_isolated(call: str, label: str) -> int:
    """Run ``_core.<call>`` in a fresh interpreter and print its JSON line with ``scenario``."""
    code = ("import json, sys\nfrom ccsim import _core\ntry:\n"
            f"    r = dict(_core.{call})\n"
            "except _core.ScenarioError as e:\n    print(f'ccsim: error: {e}', file=sys.stderr); sys.exit(2)\n"
            f"r['scenario'] = {label!r}; print(json.dumps(r))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if proc.returncode != 0:
        print(proc.stderr, file=sys.stderr, end="")
        return proc.returncode if proc.returncode == 2 else 1
    print(proc.stdout, end="")
    return 0


def run_cui(channels: int, duration: float, buffer: int, share_bps: float, seed: int, threads: int = 1) -> int:
    """Write the case's scenario to a temporary file and bench it in a fresh interpreter."""
    text = cui_text(channels, duration, buffer, share_bps, seed, threads)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench-cui.toml"
        path.write_text(text, encoding="utf-8")
        del text
        call = f"bench_text(open({str(path)!r}, encoding='utf-8').read(), {CUI_PORT!r})"
        return run_isolated(call, f"cui-k{channels}" + ("-2threads" if threads == 2 else ""))


def command(a, err) -> int:
    """``ccsim bench``: check the options (``err`` reports one, exit 2), then run the case."""
    from . import _core

    if not (a.duration is None or 0 < a.duration <= 1e6):
        return err(f"--duration: expected seconds in (0, 1e6], got {a.duration}")
    if a.topology == "cui":
        if not 1 <= a.channels <= 4096:
            return err(f"--channels: expected an integer in [1, 4096], got {a.channels}")
        if a.buffer < 0:
            return err(f"--buffer: expected packets >= 0, got {a.buffer}")
        if not 1e3 <= a.share <= 40e9:
            return err(f"--share: expected bit/s in [1e3, 4e10], got {a.share:g}")
        if a.threads not in (1, 2):
            return err(f"--threads: expected 1 or 2, got {a.threads}")
        duration = a.duration if a.duration is not None else 0.5
        need, avail = cui_memory_bytes(a.channels, a.share, a.threads), _core.available_memory()
        if avail is not None and need > avail:
            return err(f"--channels {a.channels} (with --share {a.share:g}): the case needs about "
                       f"{need / 1e9:.1f} GB and this machine has {avail / 1e9:.1f} GB available; "
                       "use fewer channels or a larger share")
        if a.print_scenario:
            print(cui_text(a.channels, duration, a.buffer, a.share, a.seed, a.threads), end="")
            return 0
        return run_cui(a.channels, duration, a.buffer, a.share, a.seed, a.threads)
    if a.flows < 1 or a.flows > 1_000_000:
        return err(f"--flows: expected an integer in [1, 1000000], got {a.flows}")
    duration = a.duration if a.duration is not None else 30.0
    if a.print_scenario:
        print(_core.dumbbell_toml(a.flows, duration, a.seed), end="")
        return 0
    return run_isolated(f"bench_dumbbell({a.flows}, {duration!r}, {a.seed})", "dumbbell")


def add_command(sub, seed_type, err) -> None:
    """The ``bench`` subcommand's parser (``seed_type``: the CLI's --seed check)."""
    b = sub.add_parser("bench", help="run a benchmark case and print one JSON line")
    b.add_argument("topology", choices=["dumbbell", "cui"],
                   help="dumbbell: N NewReno flows on one 100 Mb/s line; cui: Cui ch. 3's DWDM network at 40 Gb/s "
                        "a channel (ccsim/bench.py)")
    b.add_argument("--flows", type=int, default=100, help="dumbbell: flows (default 100)")
    b.add_argument("--duration", type=float, default=None,
                   help="simulated seconds (default 30 for dumbbell, 0.5 for cui: its start-up)")
    b.add_argument("--channels", type=int, default=1, help="cui: K, channels of 40 Gb/s (default 1)")
    b.add_argument("--buffer", type=int, default=10, help="cui: B, shared buffer slots (default 10)")
    b.add_argument("--share", type=float, default=10e6, help="cui: bit/s a flow, N = K x 40e9 / share (default 1e7)")
    b.add_argument("--threads", type=int, default=1,
                   help="cui: 2 runs the network on two threads, hosts on one, routers and sink on the other (default 1)")
    b.add_argument("--seed", type=seed_type, default=1)
    b.add_argument("--print-scenario", action="store_true", help="print the benchmark's scenario TOML instead")
    b.set_defaults(func=lambda a: command(a, err))
