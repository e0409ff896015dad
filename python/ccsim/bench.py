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


def cui_text(channels: int, duration: float, buffer: int = 10, share_bps: float = 10e6, seed: int = 1) -> str:
    """The ``cui`` case's scenario TOML."""
    from .builder import dumps_toml
    from .experiments.cui_buffers.make_scenarios import TRANSPORT
    from .experiments.cui_buffers.network import Network, scenario

    flows = max(1, round(channels * 40e9 / share_bps))
    net = Network(flows=flows, inputs=2 * channels, channels=channels, buffer=buffer, channel_bps=40e9,
                  duration=duration, warmup=0.0, interval=duration / 2, transport=TRANSPORT)
    body = scenario(net, f"bench-cui-k{channels}", f"Cui ch. 3 at scale: K = {channels}, {flows} flows", seed=seed)
    body["measure"]["discard"] = 0
    return dumps_toml(body)


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


def run_cui(channels: int, duration: float, buffer: int, share_bps: float, seed: int) -> int:
    """Write the case's scenario to a temporary file and bench it in a fresh interpreter."""
    text = cui_text(channels, duration, buffer, share_bps, seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench-cui.toml"
        path.write_text(text, encoding="utf-8")
        del text
        call = f"bench_text(open({str(path)!r}, encoding='utf-8').read(), {CUI_PORT!r})"
        return run_isolated(call, f"cui-k{channels}")
