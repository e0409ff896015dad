"""Cui chapter 3's extrapolation fits (ccsim.models.cui.fit_extrapolation; spec
cui-buffers-fast-adpm.md §3, target A4): the published curves come back from their own
points, and noisy points still give a pole below the data."""

import numpy as np
import pytest

from ccsim.models.cui import FIG_3_7_FIT, FIG_3_9_FIT, fit_extrapolation, hyperbola

X = np.array([0.4, 0.8, 1.2, 1.6, 2.0, 2.4, 4.0, 6.0, 8.0])   # Gb/s: "nine points"


@pytest.mark.parametrize("published, at_40", [(FIG_3_7_FIT, 0.70341), (FIG_3_9_FIT, -3.7145382)])
def test_the_published_fits_are_recovered_from_their_points(published, at_40):
    fit = fit_extrapolation(X, hyperbola(X, *published))
    assert fit.params == pytest.approx(published, rel=1e-6)
    assert fit.value == pytest.approx(at_40, abs=1e-5) and fit.std_error < 1e-9


def test_noisy_points_keep_the_pole_below_the_data():
    rng = np.random.default_rng(1)
    for _ in range(20):
        y = hyperbola(X, *FIG_3_7_FIT) + rng.normal(0, 0.005, len(X))
        fit = fit_extrapolation(X, y)
        assert fit.params[2] < X.min() and abs(fit.value - 0.7034) < 0.02 and 0.9 < fit.corr <= 1
    line = fit_extrapolation(X, 0.317 + 0.001 * X, shape="line")
    assert line.value == pytest.approx(0.357)


def test_a_share_sweep_runs_through_the_pool_and_measures_the_trunk():
    # The harness end to end on a small network: N scaled with the rate (1 Mb/s a flow), a
    # row per run and seed with the trunk's utilisation and loss.
    from ccsim.experiments.cui_buffers.extrapolate import run_sweep, share_sweep
    from ccsim.experiments.cui_buffers.network import Network

    base = Network(flows=1, inputs=4, channels=2, buffer=2, channel_bps=4e6, duration=6.0, warmup=2.0, interval=2.0)
    nets = share_sweep(base, [0.004, 0.008], share_bps=1e6)
    assert [n.flows for n in nets] == [8, 16] and [n.channel_bps for n in nets] == [4e6, 8e6]
    rows = run_sweep(nets, seeds=[1, 2], workers=2)
    assert list(rows["x"]) == [0.004, 0.004, 0.008, 0.008] and list(rows["flows"]) == [8, 8, 16, 16]
    assert ((rows["U"] > 0.3) & (rows["U"] <= 1)).all() and (rows["P_B"] > 0).all()
    assert np.isfinite(rows["log10_P_B"]).all()
