"""The Keshav 1991 reproduction report: Markdown + self-contained HTML, PNG figures, Parquet.

The report is built once as a list of blocks (heading, paragraph, list, table, image) and
rendered to both formats, so the two always say the same thing. Every file is written
under a temporary name and renamed (:func:`ccsim._files.atomic_write`).
"""

from __future__ import annotations

import html
import json
import math
import time
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd

from ..._files import atomic_write
from .checks import FrameData, NoData, NotRun, DataError, fmt

STATUS_CSS = {"PASS": "pass", "FAIL": "fail", "KNOWN": "known", "P": "pat", "NOT RUN": "notrun",
              "pass": "pass", "fail": "fail", "no_data": "nodata", "not_run": "notrun", "manual": "pat",
              "error": "fail"}
Q_LABEL = {"pass": "PASS", "fail": "FAIL", "no_data": "NO DATA", "not_run": "NOT RUN", "manual": "MANUAL",
           "error": "ERROR"}
# Thesis figure numbers of the window plots.
S3_FIGS = {"JK/FCFS": "Fig 6.10", "DEC/DEC": "Fig 6.11", "DEC/FQB": "Fig 6.12", "PP/FQ": "Fig 6.13"}
S7_FIGS = {"JK/FCFS": "Fig 6.18", "JK/FQ": "Fig 6.19", "DEC/FQB": "Fig 6.20"}
UTILITY_FIGS = {1: "Fig 6.3", 2: "Figs 6.5-6.8"}
# The packet-pair estimator's state, in the cwnd-trace samples and in the per-probe records:
# the last probe's inter-ACK gap (s), the fuzzy predictor's estimate mu-hat and the sending
# rate lambda (pkt/s), and the fuzzy averaging constant alpha.
ESTIMATOR_COLUMNS = ("probe_gap_s", "rate_est_pps", "send_rate_pps", "alpha")


# ------------------------------------------------------------------------------------------
# Document model
# ------------------------------------------------------------------------------------------

class Doc:
    def __init__(self):
        self.blocks: list[tuple] = []

    def h(self, level: int, text: str, anchor: str | None = None):
        self.blocks.append(("h", level, text, anchor))

    def p(self, text: str):
        self.blocks.append(("p", text))

    def ul(self, items: list[str]):
        if items:
            self.blocks.append(("ul", items))

    def table(self, headers: list[str], rows: list[list[str]], css: list[list[str]] | None = None):
        self.blocks.append(("table", headers, rows, css))

    def img(self, path: str, caption: str):
        self.blocks.append(("img", path, caption))

    # -- rendering
    def markdown(self) -> str:
        out = []
        for b in self.blocks:
            if b[0] == "h":
                out.append("#" * b[1] + " " + b[2])
            elif b[0] == "p":
                out.append(b[1])
            elif b[0] == "ul":
                out.append("\n".join(f"- {x}" for x in b[1]))
            elif b[0] == "table":
                _, headers, rows, _ = b
                out.append("\n".join(
                    ["| " + " | ".join(_md(h) for h in headers) + " |",
                     "|" + "|".join("---" for _ in headers) + "|"]
                    + ["| " + " | ".join(_md(c) for c in r) + " |" for r in rows]))
            elif b[0] == "img":
                out.append(f"![{b[2]}]({b[1]})\n\n*{b[2]}*")
        return "\n\n".join(out) + "\n"

    def html(self, title: str) -> str:
        body = []
        for b in self.blocks:
            if b[0] == "h":
                aid = f' id="{html.escape(b[3])}"' if b[3] else ""
                body.append(f"<h{b[1]}{aid}>{html.escape(b[2])}</h{b[1]}>")
            elif b[0] == "p":
                body.append(f"<p>{html.escape(b[1])}</p>")
            elif b[0] == "ul":
                body.append("<ul>" + "".join(f"<li>{html.escape(x)}</li>" for x in b[1]) + "</ul>")
            elif b[0] == "table":
                _, headers, rows, css = b
                t = ["<table><thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in headers) + "</tr></thead><tbody>"]
                for i, r in enumerate(rows):
                    cells = []
                    for j, c in enumerate(r):
                        cls = css[i][j] if css and css[i][j] else ""
                        cells.append(f'<td class="{cls}">{html.escape(c)}</td>' if cls else f"<td>{html.escape(c)}</td>")
                    t.append("<tr>" + "".join(cells) + "</tr>")
                t.append("</tbody></table>")
                body.append("".join(t))
            elif b[0] == "img":
                body.append(f'<figure><img src="{html.escape(b[1])}" alt="{html.escape(b[2])}">'
                            f"<figcaption>{html.escape(b[2])}</figcaption></figure>")
        return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
                f"<style>{CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em auto;max-width:1300px;
padding:0 1em;color:#222;line-height:1.4}
table{border-collapse:collapse;margin:.6em 0 1.2em;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f0f0f0}
td.pass{background:#e3f4e1}td.fail{background:#fbdcdc}td.known{background:#fff1c9}
td.pat{background:#eceff4}td.notrun{background:#f4f4f4;color:#777}td.nodata{background:#f3e6f7}
figure{margin:1em 0}figure img{max-width:100%;border:1px solid #ddd}
figcaption{font-style:italic;font-size:13px;color:#555}
h1{font-size:1.6em}h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:1.6em}
"""


def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


# ------------------------------------------------------------------------------------------
# Figures
# ------------------------------------------------------------------------------------------

def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _fcfs_like(pair: str, pairs_meta: dict) -> bool:
    meta = pairs_meta.get(pair.split(" (")[0])
    if meta:
        return meta["queue"] in ("droptail", "decbit")
    return pair.endswith("FCFS")


def _family(pair: str) -> str:
    base = pair.split(" (")[0]
    if " " in base:          # Scenario 5's mixed cases: "JK/G FCFS" -> "JK/G"
        return base.split(" ")[0]
    return base.split("/")[0]


def utility_diagram(n: int, fd: FrameData, runs: dict, pairs_meta: dict, path: Path) -> bool:
    """Throughput (x) vs RTT (y), each source as its number at the seed-median point with a
    ±3·sd box (sd of interval means, seed median); FCFS in normal font, FQ in italics."""
    plt = _plt()
    from matplotlib.lines import Line2D
    from matplotlib.patches import Rectangle

    fams: dict[str, list[str]] = {}
    for pair in runs:
        if fd.run_status(pair) is None:
            fams.setdefault(_family(pair), []).append(pair)
    if not fams:
        return False
    ncol = min(2, len(fams))
    nrow = math.ceil(len(fams) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(6.2 * ncol, 4.6 * nrow), dpi=100, squeeze=False)
    colors = ["#222222", "#1f5fbf", "#d2691e", "#2e8b57"]
    for ax, (fam, pairs) in zip(axes.flat, fams.items()):
        pts = []
        for k, pair in enumerate(pairs):
            color = colors[k % len(colors)]
            italic = not _fcfs_like(pair, pairs_meta)
            for src in sorted(_sources(fd, pair)):
                try:
                    x = fd.cell(pair, src, "throughput")
                    y = fd.cell(pair, src, "delay")
                    sx = fd.cell(pair, src, "throughput", "sd")
                    sy = fd.cell(pair, src, "delay", "sd")
                except (NotRun, NoData, DataError):
                    continue
                if math.isnan(x) or math.isnan(y):
                    continue
                pts.append((x, y, sx, sy, src, color, italic))
        if not pts:
            ax.set_visible(False)
            continue
        xmax = max(p[0] for p in pts) * 1.15 or 1.0
        ymax = max(p[1] for p in pts) * 1.2 or 1.0
        ax.set_xlim(0, xmax)
        ax.set_ylim(0, ymax)
        placed: list[tuple[float, float]] = []
        for x, y, sx, sy, src, color, italic in pts:
            hx = 3 * (sx if sx == sx else 0.0)
            hy = 3 * (sy if sy == sy else 0.0)
            if hx >= 0.02 * xmax or hy >= 0.02 * ymax:
                ax.add_patch(Rectangle((x - hx, y - hy), 2 * hx, 2 * hy, fill=False, edgecolor=color, lw=0.8,
                                       alpha=0.6, ls="-" if not italic else "--"))
            # Labels at (almost) the same point are set side by side, as a row of digits.
            fx, fy = x / xmax, y / ymax
            k = sum(1 for (px, py) in placed if abs(px - fx) < 0.02 and abs(py - fy) < 0.03)
            placed.append((fx, fy))
            ax.annotate(str(src), (x, y), xytext=(9 * k, 0), textcoords="offset points", color=color,
                        ha="center", va="center", fontsize=12, fontstyle="italic" if italic else "normal",
                        fontweight="bold" if not italic else "normal")
        ax.set_xlabel("throughput (pkt/s)")
        ax.set_ylabel("round-trip delay (s)")
        ax.set_title(f"{fam}")
        ax.grid(alpha=0.25)
        handles = [Line2D([], [], color=colors[k % len(colors)], marker="$n$", ls="none",
                          label=f"{p} ({'normal' if _fcfs_like(p, pairs_meta) else 'italic'})")
                   for k, p in enumerate(pairs)]
        ax.legend(handles=handles, fontsize=8, loc="best")
    for ax in list(axes.flat)[len(fams):]:
        ax.set_visible(False)
    fig.suptitle(f"Scenario {n}: utility diagrams (label = source number at the seed median; box = ±3 sd of "
                 f"interval means)", fontsize=10)
    fig.tight_layout()
    atomic_write(path, lambda t: fig.savefig(t, format="png"))
    plt.close(fig)
    return True


def _sources(fd: FrameData, pair: str) -> set[int]:
    stem = fd.runs[pair]
    return {s for (f, s) in fd._flows if f == stem}


def _trace_rows(traces: pd.DataFrame, stem: str) -> tuple[pd.DataFrame, int | None]:
    if not len(traces):
        return traces, None
    d = traces[traces["file"] == stem]
    if not len(d):
        return d, None
    seed = int(d["seed"].min())
    return d[d["seed"] == seed], seed


def _shade_s3(ax, phases: dict, tmax: float):
    off = phases.get("off", (300.0, 600.0))
    on = phases.get("on", (600.0, 900.0))
    for a, b in ((0.0, off[0]), (on[0], on[1])):
        ax.axvspan(a, min(b, tmax), color="#f2c0a0", alpha=0.25, lw=0)


def window_figure(title: str, panels: list[tuple[str, str, str]], traces: pd.DataFrame, runs: dict, path: Path,
                  *, shade=None, ylimit: float | None = None) -> list[str]:
    """One panel per (pair, panel title, column): sources 1 and 2 of the pair over time.
    Returns notes for the report (panels without data)."""
    plt = _plt()
    notes = []
    avail = []
    for pair, ptitle, col in panels:
        d, seed = _trace_rows(traces, runs.get(pair, ""))
        if seed is None:
            notes.append(f"{ptitle}: no trace (run missing or failed)")
        elif col not in d.columns:
            notes.append(f"{ptitle}: the trace has no {col!r} column")
        else:
            avail.append((pair, ptitle, col, d, seed))
    if not avail:
        return notes
    ncol = 2 if len(avail) > 1 else 1
    nrow = math.ceil(len(avail) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(6.4 * ncol, 3.1 * nrow), dpi=100, squeeze=False)
    for ax, (pair, ptitle, col, d, seed) in zip(axes.flat, avail):
        tmax = float(d["time_s"].max())
        if shade:
            shade(ax, tmax)
        for src, style in ((1, dict(lw=1.1, color="#1f5fbf")), (2, dict(lw=0.8, color="#d2691e", alpha=0.8))):
            s = d[d["source"] == src]
            if len(s):
                ax.step(s["time_s"], s[col], where="post", label=f"source {src}", **style)
        if ylimit:
            ax.axhline(ylimit, color="#888", ls=":", lw=0.8)
        ax.set_title(f"{ptitle} (seed {seed})", fontsize=10)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("outstanding packets" if col == "outstanding" else "window (packets)")
        ax.set_xlim(0, tmax)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.25)
        ax.legend(fontsize=7, loc="upper right")
    for ax in list(axes.flat)[len(avail):]:
        ax.set_visible(False)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    atomic_write(path, lambda t: fig.savefig(t, format="png"))
    plt.close(fig)
    return notes


def _pp_series(probes: pd.DataFrame | None, traces: pd.DataFrame, stem: str,
               source: int) -> tuple[pd.DataFrame, int | None, str]:
    """One PP source's estimator series: every probe (the probe records) when there are any,
    else the periodic trace samples. Returns (rows, seed, "probe" | "sample")."""
    for df, kind in ((probes, "probe"), (traces, "sample")):
        if df is None or not len(df) or not set(ESTIMATOR_COLUMNS) <= set(df.columns):
            continue
        d, seed = _trace_rows(df, stem)
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


def _probe_note(d: pd.DataFrame, who: str) -> str:
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

    plt = _plt()
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
    plt = _plt()
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
    fig.suptitle("Scenario 3, PP/FQ (Fig 6.13): packet-pair estimator (shaded: background on)", fontsize=11)
    fig.tight_layout()
    atomic_write(path, lambda t: fig.savefig(t, format="png"))
    plt.close(fig)


# ------------------------------------------------------------------------------------------
# The report
# ------------------------------------------------------------------------------------------

def _cell_text(r) -> str:
    if r["status"] == "NOT RUN":
        return "not run"
    thesis = fmt(r["thesis"]) + (f"±{fmt(r['thesis_sd'])}" if r["thesis_sd"] == r["thesis_sd"] else "")
    st = {"PASS": "PASS", "FAIL": "FAIL", "P": "",
          "KNOWN": "known issue (" + ("no data" if r["sim"] != r["sim"] else "would pass" if r["ok"] else "would fail") + ")"}[r["status"]]
    return f"{fmt(r['sim'])} / {thesis} {r['class']} {st}".rstrip()


def _table_section(doc: Doc, t: dict, cells: pd.DataFrame, runs_err: dict):
    c = cells[cells["table"] == t["id"]]
    doc.h(2, f"Table {t['id']}: {t['title']}", anchor=f"t{t['id']}")
    if t.get("note"):
        doc.p(t["note"])
    if c.empty:
        doc.p("No cells evaluated.")
        return
    doc.p("Each cell: simulated value (seed median) / thesis value (± its printed sd), tolerance class, verdict.")
    metrics = [m for m in t["metrics"] if m in set(c["metric"])]
    phased = bool(t.get("phases"))
    keys = ["pair", "source", "label"] + (["phase"] if phased else [])
    headers = ["pair", "src", "label"] + (["phase"] if phased else []) + metrics
    rows, css, known, fails, notrun = [], [], {}, [], {}
    for key, g in c.groupby(keys, sort=False):
        row = [str(key[0]), str(key[1]), str(key[2])] + ([str(key[3])] if phased else [])
        crow = [""] * len(row)
        by = {r["metric"]: r for _, r in g.iterrows()}
        for m in metrics:
            r = by.get(m)
            if r is None:
                row.append("")
                crow.append("")
                continue
            text = _cell_text(r)
            if r["status"] == "NOT RUN":
                e = runs_err.get(r["pair"], r["error"])
                notrun.setdefault(e, f"e{len(notrun) + 1}")
                text += f" [{notrun[e]}]"
            if r["known_issue"]:
                known.setdefault(r["known_issue"], f"k{len(known) + 1}")
                text += f" [{known[r['known_issue']]}]"
            if r["alt"]:
                text += f" (alt reading {r['alt']}: {'pass' if r['alt_ok'] else 'fail'})"
            if r["status"] == "FAIL":
                fails.append(f"{r['pair']} #{r['source']}{' ' + r['phase'] if r['phase'] else ''} {m}: "
                             f"simulated {fmt(r['sim'])}, rule {r['rule']}"
                             + (f" ({r['error']})" if r["error"] else "")
                             + (f"; explained by finding {r['finding']}" if r.get("finding") else "; NOT YET EXPLAINED"))
            row.append(text)
            crow.append(STATUS_CSS[r["status"]])
        rows.append(row)
        css.append(crow)
    doc.table(headers, rows, css)
    if notrun:
        doc.p("Not run:")
        doc.ul([f"{k}: not run: {e}" for e, k in notrun.items()])
    if known:
        doc.p("Known issues (shown, not counted as failures):")
        doc.ul([f"{k}: {reason}" for reason, k in known.items()])
    if fails:
        doc.p("Failed cells and the rule applied:")
        doc.ul(fails)


def _qcheck_section(doc: Doc, q: pd.DataFrame, scenarios: list[int], titles: dict):
    doc.h(2, "Qualitative checks", anchor="qchecks")
    doc.p("Every [[qchecks]] entry of reference.toml. Each number a check compares is a seed median of a "
          "quantity computed within each seed: a cell's value, or an aggregate (sum, spread, count of winners, "
          "ratio, difference) of the cells of one seed, since winners and losers differ from seed to seed. "
          "hard = must hold; soft = a figure reading or a weak claim (reported, not a failure); "
          "manual = judge from the figures; a known issue is noted where the thesis's own numbers contradict "
          "the check (it still applies to the reproduction).")
    for n in scenarios:
        d = q[q["scenario"] == n] if len(q) else q
        if d.empty:
            continue
        doc.h(3, f"Scenario {n}: {titles.get(n, '')}")
        rows, css = [], []
        for _, r in d.iterrows():
            sev = r["severity"] + (", known issue" if r["known_issue"] else "")
            stmt = r["statement"] + (f" [Known issue: {r['known_issue']}]" if r["known_issue"] else "")
            result = Q_LABEL[r["status"]]
            if r["status"] == "fail" and r.get("finding"):
                result += f" (finding {r['finding']})"
            rows.append([r["id"], sev, r["claim"], stmt, result, r["detail"]])
            crow = ["", "", "", "", STATUS_CSS[r["status"]], ""]
            if r["status"] == "fail" and r["severity"] == "soft":
                crow[4] = "known"
            css.append(crow)
        doc.table(["id", "severity", "claim", "statement", "result", "computed"], rows, css)


def write(outcome, ref: dict, data: dict[int, FrameData], flows: pd.DataFrame, intervals: pd.DataFrame,
          traces: pd.DataFrame, *, t0: float, probes: pd.DataFrame | None = None) -> list[Path]:
    out = Path(outcome.out_dir)
    figdir = out / "figures"
    figdir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    pairs_meta = {p["label"]: p for p in ref["pairs"]}
    scen = {int(s["scenario"]): s for s in ref["scenarios"]}
    titles = {n: s["title"] for n, s in scen.items()}

    # -- figures
    figs: dict[int, list[tuple[str, str]]] = {}
    fig_notes: dict[int, list[str]] = {}
    for n in outcome.scenarios:
        runs = scen[n]["runs"]
        fd = data[n]
        if "phases" not in scen[n]:
            p = figdir / f"s{n}-utility.png"
            if utility_diagram(n, fd, runs, pairs_meta, p):
                written.append(p)
                extra = f" (thesis {UTILITY_FIGS[n]})" if n in UTILITY_FIGS else ""
                figs.setdefault(n, []).append((f"figures/{p.name}", f"Scenario {n} utility diagrams{extra}: "
                                               "FCFS-type pairs in bold upright labels, FQ-type in italics; "
                                               "boxes ±3 sd of the interval means (omitted when tiny)."))
        if n == 3:
            phases = {k: tuple(v) for k, v in scen[n].get("phases", {}).items()}
            panels = []
            for pair in runs:
                pp = pairs_meta.get(pair, {}).get("cc") == "pp"
                col = "outstanding" if pp else "cwnd"
                label = S3_FIGS.get(pair, "")
                panels.append((pair, f"{pair}{' ' + label if label else ''}"
                               f"{': outstanding packets' if pp else ': window'}", col))
            p = figdir / "s3-windows.png"
            notes = window_figure("Scenario 3: window of the FTPs vs time (shaded: background on)", panels,
                                  traces, runs, p, shade=lambda ax, tmax: _shade_s3(ax, phases, tmax), ylimit=40)
            fig_notes.setdefault(n, []).extend(notes)
            if p.exists() and len(panels) > len(notes):
                written.append(p)
                figs.setdefault(n, []).append((f"figures/{p.name}",
                    "Scenario 3 windows (Figs 6.10-6.13): congestion window of FTP sources 1 and 2; for PP/FQ, "
                    "which has no window (its cwnd is the fixed cap), the number of outstanding packets."))
            for pair in (pr for pr in runs if pairs_meta.get(pr, {}).get("cc") == "pp"):
                stem = runs[pair]
                series = {}
                for src in (1, 2):
                    d, seed, kind = _pp_series(probes, traces, stem, src)
                    if seed is not None:
                        series[src] = (d, seed, kind)
                if not series:
                    fig_notes.setdefault(n, []).append(f"{pair} (Fig 6.13): no packet-pair estimator data (run "
                                                       "missing or failed), so its probe figure is not drawn.")
                    continue
                samples, _ = _trace_rows(traces, stem)
                p = figdir / "s3-pp-probes.png"
                probe_figure_s3(series, samples, p, shade=lambda ax, tmax: _shade_s3(ax, phases, tmax))
                written.append(p)
                figs.setdefault(n, []).append((f"figures/{p.name}",
                    f"Scenario 3 {pair} (Fig 6.13): top, per source, every probe as a rate 1/(inter-ACK spacing) "
                    "(grey dots: spiky), the fuzzy predictor's estimate of the bottleneck rate (blue: smooth) and "
                    "the sending rate (orange), packets/s; bottom left, the effective window = sending rate x the "
                    "sender's smoothed RTT (packets); bottom right, the sending spacing 1/rate (seconds), the "
                    "inverse of the rate that the thesis plots as PP's 'window'. Look for the spike at t = 300 s "
                    "and the oscillation in 600-900 s (check S3-f1)."))
                fig_notes.setdefault(n, []).extend(_probe_note(d, f"{pair} source {src}")
                                                   for src, (d, _, kind) in series.items() if kind == "probe")
        if n == 7:
            panels = [(pair, f"{pair}{' ' + S7_FIGS[pair] if pair in S7_FIGS else ''}: window", "cwnd")
                      for pair in runs if pairs_meta.get(pair, {}).get("cc") != "pp"]
            p = figdir / "s7-windows.png"
            notes = window_figure("Scenario 7: congestion window vs time", panels, traces, runs, p)
            fig_notes.setdefault(n, []).extend(notes)
            if p.exists() and len(panels) > len(notes):
                written.append(p)
                figs.setdefault(n, []).append((f"figures/{p.name}", "Scenario 7 windows (Figs 6.18 JK/FCFS, "
                                               "6.19 JK/FQ, 6.20 DEC/FQB): source 1 and source 2."))
            pp_pairs = [pair for pair in runs if pairs_meta.get(pair, {}).get("cc") == "pp"]
            p = figdir / "s7-pp-outstanding.png"
            notes = window_figure("Scenario 7, PP/FQ: number of outstanding packets (dotted: the window cap 60)",
                                  [(pair, f"{pair} Fig 6.22", "outstanding") for pair in pp_pairs], traces, runs, p,
                                  ylimit=60)
            fig_notes.setdefault(n, []).extend(notes)
            if p.exists() and pp_pairs and len(notes) < len(pp_pairs):
                written.append(p)
                figs.setdefault(n, []).append((f"figures/{p.name}", "Scenario 7 PP/FQ outstanding packets (Fig 6.22):"
                                               " should rise steeply, sit at the cap of 60, and decay slowly."))
            for pair in pp_pairs:
                d, seed, kind = _pp_series(probes, traces, runs[pair], 1)
                if seed is None:
                    fig_notes.setdefault(n, []).append(
                        f"Fig 6.21 ({pair} probe = inter-ACK spacing, sending spacing and the averaging constant a) "
                        "is not drawn: no packet-pair estimator data for source 1 (run missing or failed).")
                    continue
                p = figdir / "s7-pp-probes.png"
                a, b, why = probe_figure_s7(d, seed, kind, p, fair=10.0 / 6.0)
                written.append(p)
                what = ("every probe as it happened" if kind == "probe" else
                        "the estimator state sampled once per trace period (probes between samples are missed)")
                figs.setdefault(n, []).append((f"figures/{p.name}",
                    f"Scenario 7 {pair} source 1 (Fig 6.21), {what}. Top, {a:.0f}-{b:.0f} s ({why}): the "
                    "inter-ACK spacing of each pair (the probe; black steps and dots, in multiples of the "
                    "bottleneck's 0.1 s service time), the fuzzy predictor's estimate as a spacing 1/mu-hat "
                    "(blue: it should ignore one-probe spikes and follow lasting shifts), the sending spacing "
                    "1/lambda (orange) and the averaging constant alpha (green dotted, right axis; it dips when "
                    "the prediction error is large). Bottom, the whole run in packets/s (the zoom shaded), the "
                    "fair share 1.67 dotted. Judge check S7-g2 from it."))
                fig_notes.setdefault(n, []).append(_probe_note(d, f"{pair} source 1") if kind == "probe" else
                                                   f"{pair}: no per-probe records; the figure uses trace samples.")

    # -- document
    outcome.total_seconds = time.perf_counter() - t0
    doc = build_document(outcome, ref, figs, fig_notes, titles)
    written += _write_outputs(doc, out, outcome, flows, intervals, traces, probes)
    # The figures directory holds this report's figures only: one left by an earlier run
    # (another --only selection) would sit there unlinked, looking current.
    for old in figdir.glob("s[0-9]*-*.png"):
        if old not in written:
            old.unlink(missing_ok=True)
    return written


def pass_rates(cells) -> dict:
    """Passed and judged (PASS or FAIL) cells of classes D and S, each and together."""
    out = {}
    if not len(cells):
        return out
    for name, classes in (("D", ["D"]), ("S", ["S"]), ("D and S together", ["D", "S"])):
        c = cells[cells["class"].isin(classes) & cells["status"].isin(["PASS", "FAIL"])]
        if len(c):
            out[name] = (int((c["status"] == "PASS").sum()), len(c))
    return out


def pass_rates_text(cells) -> str:
    """:func:`pass_rates` in words, e.g. "D 319 of 340 (93.8%); ..." ("" without cells)."""
    return "; ".join(f"{k} {p} of {n} ({100 * p / n:.1f}%)" for k, (p, n) in pass_rates(cells).items())


def failure_explanations(outcome) -> dict:
    """Counts of failed cells and hard checks (a hard check without data counts as failed), how
    many of them a finding covers, and how many only "open" findings cover (cause unknown)."""
    cells, q = outcome.cells, outcome.qchecks
    fc = cells[cells["status"] == "FAIL"] if len(cells) else cells
    fq = q[q["status"].isin(["fail", "no_data"]) & (q["severity"] == "hard")] if len(q) else q
    open_ids = {f.id for f in getattr(outcome, "findings", []) if f.kind == "open"}

    def only_open(col) -> int:
        ids = [[x.strip() for x in str(v).split(",") if x.strip()] for v in col]
        return sum(1 for i in ids if i and all(x in open_ids for x in i))

    return {
        "failed cells": len(fc), "explained cells": int((fc["finding"] != "").sum()) if len(fc) else 0,
        "open cells": only_open(fc["finding"]) if len(fc) else 0,
        "failed hard checks": len(fq), "explained checks": int((fq["finding"] != "").sum()) if len(fq) else 0,
        "open checks": only_open(fq["finding"]) if len(fq) else 0,
    }


def _findings_section(doc: Doc, outcome):
    fs = getattr(outcome, "findings", [])
    doc.h(2, "Findings: why cells differ", anchor="findings")
    e = failure_explanations(outcome)
    doc.p(f"{e['explained cells']} of {e['failed cells']} failed cells and {e['explained checks']} of "
          f"{e['failed hard checks']} failed (or data-less) hard checks are covered by a finding below: the "
          f"investigation, with the evidence that shows it. {e['open cells']} of those cells and "
          f"{e['open checks']} of those checks are covered only by findings of kind \"open\", whose cause is "
          f"not yet known (they say what was measured and ruled out). Failures no finding covers are marked "
          f"NOT YET EXPLAINED where they are listed. Findings live in "
          f"python/ccsim/experiments/keshav91/findings/*.toml.")
    if not fs:
        doc.p("No findings recorded yet.")
        return
    rows = []
    for f in fs:
        scope = ", ".join(x for x in [
            f"S{f.scenario}", "/".join(f.pairs) if f.pairs else "all pairs",
            ("tables " + ", ".join(f.tables)) if f.tables else "", ("metrics " + ", ".join(f.metrics)) if f.metrics else "",
            ("sources " + ", ".join(map(str, f.sources))) if f.sources else "",
            ("checks " + ", ".join(f.checks)) if f.checks else ""] if x)
        rows.append([f.id, f.kind, scope, f.explanation, f.evidence])
    doc.table(["finding", "kind", "covers", "explanation", "evidence"], rows)


def build_document(outcome, ref: dict, figs: dict, fig_notes: dict, titles: dict) -> Doc:
    doc = Doc()
    cells, q, runs = outcome.cells, outcome.qchecks, outcome.runs
    doc.h(1, "Keshav 1991, Chapter 6: reproduction report")
    mode = "quick" if outcome.quick else "full"
    ok_runs = int((runs["seeds_ok"] > 0).sum()) if len(runs) else 0
    doc.ul([
        f"Thesis: {ref.get('thesis', '')}",
        f"Generated {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')} by {outcome.version}",
        f"Mode: {mode}" + (" (2 seeds by default, durations x0.5 except Scenario 3, whose phases are fixed in "
                            "time)" if outcome.quick else " (the scenario files' own durations)"),
        f"Seeds: {', '.join(str(s) for s in outcome.seeds)}; scenarios: "
        f"{', '.join(f'S{n}' for n in outcome.scenarios)}",
        f"Runs: {ok_runs} of {len(runs)} scenario files produced results, {len(outcome.seeds)} seeds each",
        f"Runtime: {outcome.sim_seconds:.1f} s simulating, {outcome.total_seconds:.1f} s in all",
    ] + ([f"Processing jitter: {outcome.jitter} on every link (links[].jitter), a phase-sensitivity run: "
          f"the scenario files themselves have none"] if getattr(outcome, "jitter", None) else [])
      + ([f"Parameter overrides (--param): {'; '.join(str(p) for p in outcome.params)}, set in every flow "
          f"or port they name: a variant reading, not the committed scenario files"]
         if getattr(outcome, "params", None) else []))
    doc.p("A cell's simulated value is the median over seeds of the flow's metric (the mean of its interval "
          "means, the first interval discarded; Scenario 3 per 300 s phase from the interval rows). Rules "
          "(reference.toml header): an accept range when given; class D: |v - thesis| <= max(rel x thesis, "
          "abs), or v < 0.01 for a thesis 0; class S: |v - thesis| <= max(3 x sd, 10% x thesis, abs floor); "
          "class P cells are shown but judged by the qualitative checks; known-issue cells are shown with the "
          "reason and not counted.")

    doc.h(2, "Summary", anchor="summary")
    cc = outcome.cell_counts()
    doc.table(list(cc.columns), [[str(x) for x in r] for r in cc.itertuples(index=False)])
    rates = pass_rates_text(cells)
    if rates:
        doc.p(f"Judged cells passing (known issues aside): {rates}.")
    qc = outcome.qcheck_counts()
    hard = qc[qc["checks"] == "hard"].iloc[0]
    doc.p(f"Hard qualitative checks passed: {hard['pass']} of {hard['total']} "
          f"({hard['fail']} failed, {hard['not run']} not run, {hard['no data']} without data).")
    doc.table(["Q checks"] + list(qc.columns[1:]), [[str(x) for x in r] for r in qc.itertuples(index=False)])
    e = failure_explanations(outcome)
    doc.p(f"Failures covered by a finding (see [Findings](#findings)): {e['explained cells']} of "
          f"{e['failed cells']} failed cells, {e['explained checks']} of {e['failed hard checks']} failed or "
          f"data-less hard checks; of those, {e['open cells']} cells and {e['open checks']} checks only by "
          f"\"open\" findings (cause not yet known).")
    per_table = []
    for t in ref["tables"]:
        c = cells[cells["table"] == t["id"]] if len(cells) else cells
        if c.empty:
            continue
        st = c["status"].value_counts().to_dict()
        per_table.append([t["id"], str(len(c)), str(st.get("PASS", 0)), str(st.get("FAIL", 0)),
                          str(st.get("KNOWN", 0)), str(st.get("P", 0)), str(st.get("NOT RUN", 0))])
    doc.p("Per table:")
    doc.table(["table", "cells", "PASS", "FAIL", "known issue", "P (qchecks)", "not run"], per_table)

    bad = runs[runs["error"] != ""] if len(runs) else runs
    if len(bad):
        doc.h(2, "Runs that did not run", anchor="notrun")
        doc.p("Scenario files that did not validate or whose runs failed (seeds ok = 0: every seed). Their cells "
              "and the checks that need them are reported as not run.")
        doc.table(["scenario", "pair", "file", "seeds ok", "error"],
                  [[f"S{r.scenario}", r.pair, f"{r.file}.toml", str(r.seeds_ok), r.error] for r in bad.itertuples()])

    runs_err = {}
    for t in ref["tables"]:
        if int(t["scenario"]) not in outcome.scenarios:
            continue
        n = int(t["scenario"])
        runs_err = {r.pair: r.error for r in runs.itertuples() if r.scenario == n and r.error}
        _table_section(doc, t, cells, runs_err)

    _qcheck_section(doc, q, outcome.scenarios, titles)
    _findings_section(doc, outcome)

    doc.h(2, "Figures", anchor="figures")
    for n in outcome.scenarios:
        if n not in figs and n not in fig_notes:
            continue
        doc.h(3, f"Scenario {n}: {titles.get(n, '')}")
        for path, caption in figs.get(n, []):
            doc.img(path, caption)
        doc.ul(fig_notes.get(n, []))
    doc.p("Raw tidy tables next to this report: flows.parquet (per scenario file, seed and flow: batch means and "
          "sds), intervals.parquet (per interval), traces.parquet (samples once per trace period of the traced "
          "scenarios: window, outstanding packets, smoothed RTT, and for packet-pair the estimator state "
          "probe_gap_s, rate_est_pps, send_rate_pps, alpha; NaN for window protocols), probes.parquet (every "
          "probe of the packet-pair sources as it happened, with the state right after it), cells.parquet and "
          "qchecks.parquet (the verdicts above).")
    return doc


def _parquet_safe(df: pd.DataFrame) -> pd.DataFrame:
    df = df.copy()
    for c in df.columns:
        if df[c].dtype == object:
            df[c] = df[c].map(lambda v: v if v is None or isinstance(v, str) else
                              (json.dumps(v) if isinstance(v, (list, dict)) else str(v)))
    return df


def _write_outputs(doc: Doc, out: Path, outcome, flows, intervals, traces, probes=None) -> list[Path]:
    written = []

    def put(name, fn):
        p = out / name
        atomic_write(p, fn)
        written.append(p)

    tables = [("flows", flows), ("intervals", intervals), ("traces", traces), ("cells", outcome.cells),
              ("qchecks", outcome.qchecks), ("runs", outcome.runs)]
    if probes is not None:
        tables.append(("probes", probes))
    for name, df in tables:
        put(f"{name}.parquet", lambda t, df=df: _parquet_safe(df).to_parquet(t, index=False))
    md = doc.markdown()
    put("report.md", lambda t: Path(t).write_text(md, encoding="utf-8"))
    page = doc.html("Keshav 1991 Chapter 6: reproduction report")
    put("report.html", lambda t: Path(t).write_text(page, encoding="utf-8"))
    return written
