"""The run's own figures: which ports and flows they draw, and how they keep them readable."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from ccsim.plots import _busiest_ports, _cut_spike, plot_queues  # noqa: E402


def queues(peaks: dict) -> pd.DataFrame:
    t = np.linspace(0, 10, 50)
    return pd.concat([pd.DataFrame({"port_name": name, "time_s": t, "packets": np.minimum(t * 10, peak)})
                      for name, peak in peaks.items()], ignore_index=True)


def test_ports_that_never_queued_are_left_out_and_the_fullest_come_first():
    shown, traced, idle = _busiest_ports(queues({"a": 0, "b": 5, "c": 40, "d": 0, "e": 12}))
    assert shown == ["c", "e", "b"] and traced == 5 and idle == 2
    shown, _, idle = _busiest_ports(queues({"a": 0, "b": 0}))
    assert shown == ["a", "b"] and idle == 2          # nothing queued: still drawn, flat


def test_many_busy_ports_get_a_panel_each(tmp_path):
    png = tmp_path / "q.png"
    plot_queues(queues({f"p{i}": 10 + i for i in range(7)} | {"idle": 0}), str(png), title="t")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_start_up_spike_is_cut_off_and_said_so():
    fig, ax = plt.subplots()
    values = pd.Series(np.r_[np.full(990, 1000.0), np.full(10, 15000.0)])
    note = _cut_spike(ax, values)
    assert "peak 15000" in note and ax.get_ylim()[1] < 2000
    assert _cut_spike(ax, pd.Series(np.linspace(0, 1000, 100))) == ""   # no spike: the axis is left alone
    # Windows of uncontrolled flows (NaN, infinite) are not a spike, nor a limit to set.
    assert _cut_spike(ax, pd.Series([np.nan, np.nan])) == ""
    assert _cut_spike(ax, pd.Series([10.0] * 200 + [np.inf])) == ""
    plt.close(fig)
