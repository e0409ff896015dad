"""Chapter 4's quantities (JCC against Reno on the dumbbell, spec §3.2 and V4.x), as rows beside
the flows' (the kit's ``Thesis.extra_rows`` hook; see ``rows.py``).

- 950 "all flows", fields:
  ``loss_pct`` data packets dropped / data packets sent, all flows, the whole run (Fig. 4.10,
  Table 4.1, ns-2's loss ratio); ``r_mean`` the R the JCC flows last collected, averaged over
  their trace samples after the warm-up (Table 4.1; a time average of the latest probe's R,
  where the thesis does not say over what it averaged); ``util`` the bottleneck's utilisation;
  ``jain`` Jain's index of the active flows' goodputs averaged over the 1 s intervals after
  the warm-up and ``jain_lt09`` the fraction of those intervals below 0.9 (Fig. 4.11);
  ``cov`` the flows' coefficient of variation of 1 s goodput once every flow has run for
  20 s, averaged over the flows (Fig. 4.8's stability); ``cwnd_sd`` how much a window varies
  (each flow's standard deviation over its samples from 50 s on, averaged over the flows: Figs
  4.6-4.7 show one flow's window over time), ``cwnd_sd_pooled`` the standard deviation of every
  flow's samples together (it adds the flows' differences from each other, which Jain's index
  judges), ``cwnd_max`` and ``cwnd_band`` (the fraction of samples in [3, 12], V4.1's [5, 10]
  with its 2-packet margin), all from 50 s on;
- 951 "JCC / Reno": ``ratio`` the JCC flows' mean goodput over the Reno flows' (Fig. 4.15);
- 961, 962, ...: flow k's goodput over the last 30 s, field ``goodput_bps`` (Fig. 4.8's
  settling, V4.2).
"""

from __future__ import annotations

import numpy as np

CWND_FROM_S = 50.0          # V4.1: windows "after convergence"
SETTLE_S = 20.0             # a flow's first 20 s are start-up (V4.2: incumbents settle in 20 s)
TAIL_S = 30.0               # V4.2: the last 30 s
BOTTLENECK = "r1->r2"


def jcc_rows(res) -> list[dict]:
    fl = res.flows
    cc = dict(zip(fl["name"], fl["cc"]))
    starts = _starts(res)
    rows = [_overall(res, cc, starts)]
    kinds = set(cc.values())
    if {"jcc", "reno"} <= kinds:
        g = dict(zip(fl["name"], fl["goodput_bps"]))
        jcc = np.mean([g[n] for n, c in cc.items() if c == "jcc"])
        reno = np.mean([g[n] for n, c in cc.items() if c == "reno"])
        rows.append({"name": "951 JCC / Reno", "ratio": float(jcc / reno) if reno > 0 else np.nan})
    iv = res.intervals
    end = float(res.run["duration_s"])
    tail = iv[iv["start_s"] >= end - TAIL_S - 1e-9]
    for name, g in tail.groupby("flow_name", sort=False):
        src = int(str(name).split()[0])
        rows.append({"name": f"{960 + src} {name} last 30 s", "goodput_bps": float(g["goodput_bps"].mean())})
    return rows


def _starts(res) -> dict[str, float]:
    """Each flow's first interval with traffic: its start (the flows table has no start)."""
    iv = res.intervals
    active = iv[iv["sent"] > 0]
    return active.groupby("flow_name")["start_s"].min().to_dict()


def _overall(res, cc: dict, starts: dict) -> dict:
    fl = res.flows
    sent = float(fl["sent"].sum())
    row = {"name": "950 all flows",
           "loss_pct": 100.0 * float(fl["data_dropped"].sum()) / sent if sent else np.nan}
    ports = res.ports
    p = ports[ports["name"] == BOTTLENECK]
    row["util"] = float(p["utilisation"].iloc[0]) if len(p) else np.nan
    tr = res.cwnd
    jcc_names = [n for n, c in cc.items() if c == "jcc"]
    warm = float(res.run["discard"]) * float(res.run["interval_s"])
    if "r" in tr.columns and jcc_names:
        r = tr[tr["flow_name"].isin(jcc_names) & (tr["time_s"] >= warm)]["r"].dropna()
        row["r_mean"] = float(r.mean()) if len(r) else np.nan
    late = tr[tr["time_s"] >= CWND_FROM_S]
    w = late["cwnd"].to_numpy(float)
    if len(w):
        # Each flow from its own start on (a staggered flow's window before it starts is no
        # variation of it).
        own = [g.loc[g["time_s"] >= starts.get(n, 0.0), "cwnd"] for n, g in late.groupby("flow_name")]
        per_flow = [float(x.std(ddof=0)) for x in own if len(x) > 1]
        row.update(cwnd_sd=float(np.mean(per_flow)) if per_flow else np.nan, cwnd_sd_pooled=float(w.std()),
                   cwnd_max=float(w.max()), cwnd_band=float(np.mean((w >= 3) & (w <= 12))))
    iv = res.intervals
    used = iv[iv["interval"] >= int(res.run["discard"])]
    jains = []
    for _, g in used.groupby("interval"):
        x = g[[g["start_s"].iloc[0] >= starts.get(n, np.inf) for n in g["flow_name"]]]["goodput_bps"].to_numpy(float)
        if len(x) > 1 and (x ** 2).sum() > 0:
            jains.append(x.sum() ** 2 / (len(x) * (x ** 2).sum()))
    if jains:
        row["jain"] = float(np.mean(jains))
        row["jain_lt09"] = float(np.mean(np.array(jains) < 0.9))
    settled = max(starts.values(), default=0.0) + SETTLE_S
    covs = []
    for _, g in iv[iv["start_s"] >= settled].groupby("flow_name"):
        x = g["goodput_bps"].to_numpy(float)
        if len(x) > 2 and x.mean() > 0:
            covs.append(x.std() / x.mean())
    if covs:
        row["cov"] = float(np.mean(covs))
    return row
