"""Keshav 1991's packet-pair figures: the estimator's probes, estimate and sending rate
(Fig 6.13's quantities for Scenario 3, Fig 6.21's form for Scenario 7), drawn from the
per-probe records (probes.parquet) or, without them, the periodic trace samples."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..._files import atomic_write
from ..kit.report import pyplot

# The packet-pair estimator's state, in the cwnd-trace samples and in the per-probe records:
# the last probe's inter-ACK gap (s), the fuzzy predictor's estimate mu-hat and the sending
# rate lambda (pkt/s), and the fuzzy averaging constant alpha.
ESTIMATOR_COLUMNS = ("probe_gap_s", "rate_est_pps", "send_rate_pps", "alpha")


def trace_rows(traces: pd.DataFrame, stem: str) -> tuple[pd.DataFrame, int | None]:
    """One scenario file's rows of its first seed, and that seed (None without rows)."""
    if not len(traces):
        return traces, None
    d = traces[traces["file"] == stem]
    if not len(d):
        return d, None
    seed = int(d["seed"].min())
    return d[d["seed"] == seed], seed


def pp_series(probes: pd.DataFrame | None, traces: pd.DataFrame, stem: str,
               source: int) -> tuple[pd.DataFrame, int | None, str]:
    """One PP source's estimator series: every probe (the probe records) when there are any,
    else the periodic trace samples. Returns (rows, seed, "probe" | "sample")."""
    for df, kind in ((probes, "probe"), (traces, "sample")):
        if df is None or not len(df) or not set(ESTIMATOR_COLUMNS) <= set(df.columns):
            continue
        d, seed = trace_rows(df, stem)
        if seed is None:
            continue
        d = d[(d["source"] == source) & d["rate_est_pps"].notna()].sort_values("time_s")
        if len(d):
            return d, seed, kind
    return pd.DataFrame(), None, ""


def _busiest_window(d: pd.DataFrame, span: float) -> tuple[float, str]:
    """Start of the `span`-second window with the most changes of the probe value, and why it
    was chosen. Start-up (the first 10% of the run) is left out when the probe changes after
    it; when it never does, the window is the busiest of the whole run (start-up included),
    or, if the probe never changes at all, the window 25% into the run."""
    t = d["time_s"].to_numpy()
    tmin, tmax = float(t.min()), float(t.max())
    gap = d["probe_gap_s"].to_numpy()
    changes = t[1:][abs(gap[1:] - gap[:-1]) > 1e-9]
    lo = tmin + 0.1 * (tmax - tmin)
    if len(changes[changes >= lo]) and tmax - lo > span:
        changes = changes[changes >= lo]
        why = f"the {span:g} s after start-up with the most changes of the probe"
    elif len(changes):
        lo, why = tmin, (f"the {span:g} s with the most changes of the probe, start-up included: after start-up "
                         "the probe does not change, see the note below")
    else:
        return max(tmin, min(tmin + 0.25 * (tmax - tmin), tmax - span)), "the probe never changes"
    best, best_n = lo, -1
    start = lo
    while True:
        n = int(((changes >= start) & (changes < start + span)).sum())
        if n > best_n:
            best, best_n = start, n
        if start + span >= tmax:
            break
        start += span / 20
    return best, why


def probe_note(d: pd.DataFrame, who: str) -> str:
    """The distribution of one source's probe values (the spec's check: quantised at 0.1 s)
    and the range of alpha."""
    vals = d["probe_gap_s"].round(3).value_counts(normalize=True)
    top = ", ".join(f"{v:g} s {100 * f:.1f}%" for v, f in vals.head(6).items())
    more = f" and {len(vals) - 6} other values" if len(vals) > 6 else ""
    a = d["alpha"].dropna()
    alpha = f"; alpha {a.min():.2f}-{a.max():.2f} (median {a.median():.2f})" if len(a) else ""
    return f"{who}: {len(d)} probes; inter-ACK spacing {top}{more}{alpha}."


def _rate_panel(ax, d: pd.DataFrame, title: str, *, fair: float | None = None, shade=None):
    """Probe rate 1/gap (dots, spiky), the fuzzy estimate (smooth) and the sending rate (pkt/s)."""
    tmax = float(d["time_s"].max())
    if shade:
        shade(ax, tmax)
    ax.plot(d["time_s"], 1.0 / d["probe_gap_s"], ".", ms=2.5, color="#888888", label="probe 1/(inter-ACK spacing)")
    ax.step(d["time_s"], d["rate_est_pps"], where="post", lw=1.3, color="#1f5fbf", label="fuzzy estimate of the rate",
            zorder=3)
    ax.step(d["time_s"], d["send_rate_pps"], where="post", lw=0.8, color="#d2691e", alpha=0.9, label="sending rate")
    if fair:
        ax.axhline(fair, color="#444", ls=":", lw=0.8, label=f"fair share {fair:.2f}")
    hi = pd.concat([d["rate_est_pps"], d["send_rate_pps"]]).quantile(0.98)
    ax.set_ylim(0, max(1e-9, 1.6 * hi) if hi == hi else None)
    ax.set_xlim(0, tmax)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("packets/s")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.25)
    ax.legend(fontsize=7, loc="upper right")


def probe_figure_s7(d: pd.DataFrame, seed: int, kind: str, path: Path, *, span: float = 100.0,
                    fair: float | None = None) -> tuple[float, float, str]:
    """Fig 6.21's form for one PP source: over `span` seconds, the inter-ACK spacing (the
    probe, solid steps), the fuzzy prediction as a spacing 1/mu-hat and the sending spacing
    1/lambda, with the averaging constant alpha dotted on the right axis; below, the whole
    run in packets/s. Returns the zoom window and why it was chosen."""
    from ...plots import twin_legend  # matplotlib loads only when a figure is drawn

    plt = pyplot()
    t0, why = _busiest_window(d, span)
    w = d[(d["time_s"] >= t0) & (d["time_s"] < t0 + span)]
    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(9, 7.2), dpi=100)
    src = "each probe" if kind == "probe" else "trace samples"
    ax.step(w["time_s"], w["probe_gap_s"], where="post", lw=1.3, color="#222222", label="inter-ACK spacing (probe)")
    if kind == "probe":
        ax.plot(w["time_s"], w["probe_gap_s"], "o", ms=2.5, color="#222222")
    ax.step(w["time_s"], 1.0 / w["rate_est_pps"], where="post", lw=1.3, color="#1f5fbf",
            label="fuzzy prediction 1/mu-hat")
    ax.step(w["time_s"], 1.0 / w["send_rate_pps"], where="post", lw=1.0, color="#d2691e",
            label="sending spacing 1/lambda")
    ax.set_xlim(t0, t0 + span)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("spacing (s)")
    ax.grid(alpha=0.25)
    a2 = ax.twinx()
    a2.step(w["time_s"], w["alpha"], where="post", ls=":", lw=1.2, color="#2e8b57", label="averaging constant alpha")
    a2.set_ylim(0, 1.05)
    a2.set_ylabel("alpha")
    twin_legend(ax, a2, loc="lower right")
    ax.set_title(f"Fig 6.21 form: {span:g} s of source 1 ({src}, seed {seed})", fontsize=10)
    _rate_panel(ax2, d, f"whole run, source 1 ({src}, seed {seed})", fair=fair)
    ax2.axvspan(t0, t0 + span, color="#f2c0a0", alpha=0.35, lw=0)
    fig.tight_layout()
    atomic_write(path, lambda t: fig.savefig(t, format="png"))
    plt.close(fig)
    return t0, t0 + span, why


def probe_figure_s3(series: dict[int, tuple[pd.DataFrame, int, str]], samples: pd.DataFrame, path: Path,
                    *, shade=None) -> None:
    """Scenario 3 PP/FQ (Fig 6.13's quantities): per source the probes, the fuzzy estimate and
    the sending rate (pkt/s); the effective window lambda x smoothed RTT (packets); and the
    sending spacing 1/lambda (s), the thesis's plotted 'window'."""
    plt = pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(12.8, 6.6), dpi=100, squeeze=False)
    for ax, src in zip(axes[0], (1, 2)):
        if src in series:
            d, seed, kind = series[src]
            _rate_panel(ax, d, f"source {src}: probes and estimate ({'each probe' if kind == 'probe' else 'samples'}, "
                        f"seed {seed})", shade=shade)
        else:
            ax.set_visible(False)
    styles = {1: dict(lw=1.1, color="#1f5fbf"), 2: dict(lw=0.8, color="#d2691e", alpha=0.8)}
    win, spc = axes[1]
    tmax = float(samples["time_s"].max()) if len(samples) else 1.0
    for ax in (win, spc):
        if shade:
            shade(ax, tmax)
    for src in (1, 2):
        s = samples[(samples["source"] == src) & samples["send_rate_pps"].notna()] if len(samples) else samples
        if not len(s):
            continue
        if "srtt_s" in s.columns:
            win.step(s["time_s"], s["send_rate_pps"] * s["srtt_s"], where="post", label=f"source {src}", **styles[src])
        spc.step(s["time_s"], 1.0 / s["send_rate_pps"], where="post", label=f"source {src}", **styles[src])
    win.set_title("effective window: sending rate x smoothed RTT", fontsize=10)
    win.set_ylabel("packets")
    spc.set_title("sending spacing 1/rate (the thesis's plotted 'window')", fontsize=10)
    spc.set_ylabel("seconds")
    for ax in (win, spc):
        ax.set_xlim(0, tmax)
        ax.set_ylim(bottom=0)
        ax.set_xlabel("time (s)")
        ax.grid(alpha=0.25)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, loc="upper right")
    for ax in axes[0]:
        ax.set_xlim(0, tmax)   # the probe panels on the same time axis as those below them
    fig.suptitle("Scenario 3, PP/FQ (Fig 6.13): packet-pair estimator (shaded: background on)", fontsize=11)
    fig.tight_layout()
    atomic_write(path, lambda t: fig.savefig(t, format="png"))
    plt.close(fig)
