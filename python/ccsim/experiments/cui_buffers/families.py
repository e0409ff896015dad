"""The extrapolated experiments of Cui chapter 3 as families of runs (thesis §3.3's method
applied to E3.3, E3.7 and E3.8; spec cui-buffers-fast-adpm.md §3, §5.1, targets S4, S8, S9).

A *family* is one target system (M input links, K channels of 40 Gb/s, B shared slots, a
per-flow share, a spread of RTTs) simulated at N = 50..400 flows (100 Mb/s shares: fewer) with
the per-channel rate scaled to keep the share: x = N x share / K. Each family is one sweep of
the reference (over N); its runs are built when a reproduction needs them
(``Thesis.built_scenarios``), never shipped: there are a few hundred and the larger hold 400
flows. :func:`family_fits` fits U and log10 P_B against x with the thesis's hyperbola and reads
them at 40 Gb/s (row 990000, attached to the family's largest run); it also carries the
closed-loop G1DM model's U for the target system (``util_model``, §3.7).

Readings where the thesis is silent or out of reach:
- Scale. The thesis simulated 0.4-10 Gb/s a channel (40-1000 flows at 10 Mb/s). Here every
  family starts at 50 flows (5 at 100 Mb/s a flow; E3.3's K = 16 at 100 Mb/s at 16, one flow a
  channel) and doubles its last point until a channel runs at REACH_GBPS (1 Gb/s): K = 1 and 4
  stop at 400 flows, K = 8 at 800, K = 16 at 1600, K = 64 at 6400 (at 100 Mb/s a flow: Table
  3.1's K = 1 at 40, Table 3.3's K = 8 at 80, E3.3's K = 16 at 192). With the four points up to
  400 flows alone, K = 16's channels ran at 31-250 Mb/s, a regime of a few flows a channel whose
  utilisation still falls with the rate, and the hyperbolas through them read -9.5 to 0.75 at
  40 Gb/s. The closed loop (3.22) depends on µ and N only through the share, so it predicts the
  same U at every simulated point. Issue 22 simulates the target systems directly.
- Host queues: the thesis's "large" buffers, read as 1000 packets (network.HOST_QUEUE; ns-2's
  default of 50 is network.NS2_HOST_QUEUE). Where the share is the access rate (100 Mb/s) the
  access link can be the bottleneck and decides U; elsewhere the queue only bounds a flow that
  the trunk seldom drops (unlimited, until 2026-11-27, let one flow of Table 3.4's K = 64, B = 0
  at 800 flows stay in slow start until its host held 207 603 packets and the run hit the
  live-packet limit).
- Topology. M input links each at the channel rate, flows spread over them in turn; access
  links 100 Mb/s; RTTs spread evenly over [a, 3a] with the stated harmonic mean (spec §6 item
  6); the ns-2 NewReno of make_scenarios.TRANSPORT, paced.
- B = K for "one packet of buffer per output link" (E3.3, Fig 3.11): the trunk's shared buffer.
- K = 64 (Table 3.4) starts at 50 flows over 128 edge routers (fewer than one a router), so
  its first points are the least faithful of any family; at 6400 flows it has 50 a router.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from . import network as _network
from .network import Network, WIRE_BITS

TARGET_GBPS = 40.0
MU_40G = TARGET_GBPS * 1e9 / WIRE_BITS          # packets/s a channel at the target
FLOWS_10M = (50, 100, 200, 400)                  # flows at a 10 Mb/s share: trunk 0.5-4 Gb/s
FLOWS_100M = (5, 10, 20, 40)                     # at a 100 Mb/s share: trunk 0.5-4 Gb/s
REACH_GBPS = 1.0                                 # points double until a channel runs this fast
DURATION, WARMUP, INTERVAL = 20.0, 5.0, 5.0      # s: three measured intervals after the start-up
FIT_ROW = 990_000
FAMILY_FILE = re.compile(r"^(?P<stem>e3[378]-.+)-n(?P<n>\d+)$")


@dataclass(frozen=True)
class Family:
    stem: str                    # file stems are f"{stem}-n{N}"
    m: int
    k: int
    b: int
    share_bps: float
    flows: tuple[int, ...] = FLOWS_10M   # the first points; __post_init__ doubles up to REACH_GBPS
    rtt_h: float | None = None   # None: the thesis's 60-180 ms; else [a, 3a] with this harmonic mean
    note: str = ""

    def __post_init__(self):
        if not self.flows or self.share_bps <= 0 or self.k < 1:
            raise ValueError(f"family {self.stem}: expected flows, a positive share and K >= 1")
        points = list(self.flows)
        while self.rate_gbps(points[-1]) < REACH_GBPS - 1e-9:
            points.append(2 * points[-1])
        object.__setattr__(self, "flows", tuple(points))

    @property
    def rtt_range(self) -> tuple[float, float]:
        from ccsim.models.cui import uniform_rtts_for_harmonic_mean

        return (0.060, 0.180) if self.rtt_h is None else uniform_rtts_for_harmonic_mean(self.rtt_h)

    @property
    def rtt_harmonic(self) -> float:
        from ccsim.models.cui import harmonic_mean_rtt_uniform

        return harmonic_mean_rtt_uniform(*self.rtt_range)

    @property
    def target_flows(self) -> float:
        """N of the target system: K channels of 40 Gb/s at this share."""
        return self.k * TARGET_GBPS * 1e9 / self.share_bps

    def rate_gbps(self, n: int) -> float:
        """x: the per-channel rate (Gb/s) at which n flows keep the share."""
        return n * self.share_bps / self.k / 1e9

    def file(self, n: int) -> str:
        return f"{self.stem}-n{n}"

    def network(self, n: int, transport: dict) -> Network:
        lo, hi = self.rtt_range
        return Network(flows=n, inputs=self.m, channels=self.k, buffer=self.b, channel_bps=self.rate_gbps(n) * 1e9,
                       rtt_min=lo, rtt_max=hi, duration=DURATION, warmup=WARMUP, interval=INTERVAL,
                       transport=transport, access_buffer=_network.HOST_QUEUE)

    def model_utilisation(self, model: str = "g1dm") -> float:
        """The closed loop (§3.7) at the target system (the same at every scaled point)."""
        return _closed_loop(self.m, self.k, self.b, self.target_flows, self.rtt_harmonic, model)


@lru_cache(maxsize=None)
def _closed_loop(m, k, b, n, rtt_h, model) -> float:
    from ccsim.models.cui import closed_loop

    try:
        return closed_loop(m, k, b, n, mu=MU_40G, rtt_h=rtt_h, model=model).utilisation
    except ValueError:
        return math.nan


# ---------------------------------------------------------------------------------------
# The experiments' families
# ---------------------------------------------------------------------------------------

E33_K = (1, 4, 16)
E37_K = (1, 4, 16)


def e33() -> list[Family]:
    """E3.3 (§3.4.1, Figs 3.10-3.11): four input trunks (M = 4K); 10 Mb/s a flow, B = 0 and
    B = K, against K; and K = 16 at 100 Mb/s a flow (N = 6400 at 40 Gb/s), B = 0 and 16, from
    one flow a channel."""
    out = [Family(f"e33-s10-b{b_name}-k{k}", 4 * k, k, b, 10e6)
           for b_name, bk in (("0", 0), ("k", 1)) for k in E33_K for b in (bk * k,)]
    out += [Family(f"e33-s100-b{b}-k16", 64, 16, b, 100e6, flows=(16, 24, 32, 48)) for b in (0, 16)]  # then 96, 192
    return out


def e37() -> list[Family]:
    """E3.7 (§3.7.2, Figs 3.42-3.47): two or sixteen input trunks (M = 2K, 16K), B = 0, 1, 10,
    10 Mb/s a flow (N = 4000K at 40 Gb/s), against K."""
    return [Family(f"e37-m{mk}-b{b}-k{k}", mk * k, k, b, 10e6)
            for mk in (2, 16) for b in (0, 1, 10) for k in E37_K]


# E3.8 (§3.8.1, Figs 3.48-3.51, Tables 3.1-3.4): the settings and, per target utilisation, B
# from the rule (3.23) (ccsim.models.cui.dwdm_buffer; equal to the tables' printed values).
E38_TARGETS = (0.6, 0.7, 0.8, 0.9)
E38_SETTINGS = (
    # (stem, M, K, N at 40 Gb/s, RTT_H, fig/table)
    ("e38-t31-rtt50", 8, 1, 400, 0.05, "Fig 3.48, Table 3.1, RTT_H 50 ms"),
    ("e38-t31-rtt100", 8, 1, 400, 0.10, "Fig 3.48, Table 3.1, RTT_H 100 ms"),
    ("e38-t32-m8", 8, 4, 16000, 0.10, "Fig 3.49, Table 3.2, M = 8"),
    ("e38-t32-m32", 32, 4, 16000, 0.10, "Fig 3.49, Table 3.2, M = 32"),
    ("e38-t33-n3200", 16, 8, 3200, 0.10, "Fig 3.50, Table 3.3, N = 3200"),
    ("e38-t33-n32000", 16, 8, 32000, 0.10, "Fig 3.50, Table 3.3, N = 32000"),
    ("e38-t34-k16", 32, 16, 64000, 0.10, "Fig 3.51, Table 3.4, K = 16"),
    ("e38-t34-k64", 128, 64, 256000, 0.10, "Fig 3.51, Table 3.4, K = 64"),
)


def e38_buffer(m: int, k: int, n: int, rtt_h: float, u: float) -> int:
    from ccsim.models.cui import dwdm_buffer

    return dwdm_buffer(m, k, MU_40G, u, n, rtt_h)


def e38() -> list[Family]:
    out = {}
    for stem, m, k, n, rtt_h, note in E38_SETTINGS:
        share = k * TARGET_GBPS * 1e9 / n
        flows = FLOWS_10M if share <= 10e6 else FLOWS_100M
        for u in E38_TARGETS:
            b = e38_buffer(m, k, n, rtt_h, u)
            out.setdefault(f"{stem}-b{b}", Family(f"{stem}-b{b}", m, k, b, share, flows=flows, rtt_h=rtt_h, note=note))
    return list(out.values())


def all_families() -> list[Family]:
    return e33() + e37() + e38()


@lru_cache(maxsize=1)
def _by_stem() -> dict[str, Family]:
    return {f.stem: f for f in all_families()}


def family_of(file: str) -> tuple[Family, int] | None:
    m = FAMILY_FILE.match(file)
    fam = _by_stem().get(m.group("stem")) if m else None
    return (fam, int(m.group("n"))) if fam else None


# ---------------------------------------------------------------------------------------
# Fits across a family's runs
# ---------------------------------------------------------------------------------------

def family_fits(flows) -> list[dict]:
    """Row 990000 of every family's largest run, per seed: ``util_40`` and ``log10_loss_40``
    (the hyperbola a + b/(x - c) fitted to the family's points, read at 40 Gb/s), the fit's
    constants (``u_a``.. ``p_c``) and ``util_model`` (the closed loop's U at the target)."""
    from ccsim.models.cui import fit_extrapolation

    from .rows import TRUNK_ROW

    trunk = flows[flows["source"] == TRUNK_ROW]
    points: dict[tuple[str, int], list] = {}
    for r in trunk.itertuples():
        hit = family_of(str(r.file))
        if hit:
            fam, n = hit
            points.setdefault((fam.stem, int(r.seed)), []).append((fam.rate_gbps(n), float(r.util),
                                                                   float(r.log10_loss), str(r.file)))
    out = []
    for (stem, seed), pts in sorted(points.items()):
        fam = _by_stem()[stem]
        pts.sort()
        row = {"file": pts[-1][3], "seed": seed, "name": f"{FIT_ROW} fit at 40 Gb/s",
               "util_model": fam.model_utilisation()}
        x = np.array([p[0] for p in pts])
        for key, col, metric in (("u", 1, "util_40"), ("p", 2, "log10_loss_40")):
            y = np.array([p[col] for p in pts])
            ok = np.isfinite(y)
            if ok.sum() < 4:
                continue
            try:
                fit = fit_extrapolation(x[ok], y[ok], shape="hyperbola", target=TARGET_GBPS)
            except (ValueError, RuntimeError):
                continue
            # Unclipped: a fit that leaves [0, 1] at 40 Gb/s is judged as it reads, and fails;
            # only a fit through an always-busy line's points, which reads 1 within rounding
            # (1.000001), is read as 1.
            value = fit.value
            if metric == "util_40" and 1.0 < value <= 1.0 + 1e-5:
                value = 1.0
            row[metric] = value
            for name, v in zip("abc", fit.params):
                row[f"{key}_{name}"] = v
        out.append(row)
    return out
