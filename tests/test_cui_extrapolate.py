"""Cui chapter 3's extrapolation fits (ccsim.experiments.cui_buffers.extrapolate; spec
cui-buffers-fast-adpm.md §3, target A4)."""

import numpy as np
import pytest

from ccsim.experiments.cui_buffers.extrapolate import fit_curve

X = np.array([0.4, 0.8, 1.2, 1.6, 2.0, 2.4, 4.0, 6.0, 8.0])   # Gb/s: "nine points"


def test_the_published_fits_are_recovered_and_give_a4():
    # Points on the thesis's own curves come back with its constants, and the fits' values at
    # 40 Gb/s are A4's 0.7034 (U, B = 10) and -3.7145382 (log10 P_B, B = 10).
    u = 0.7022 + 0.048088 / (X - 0.125893)
    fit = fit_curve(X, u, "hyperbola-")
    assert fit.params == pytest.approx((0.7022, 0.048088, 0.125893), rel=1e-6)
    assert fit.at(40.0) == pytest.approx(0.70341, abs=1e-4)
    lp = -3.7116276 - 0.11737622 / (X + 0.32710271)
    fit = fit_curve(X, lp, "hyperbola+")
    assert fit.params == pytest.approx((-3.7116276, -0.11737622, 0.32710271), rel=1e-6)
    assert fit.at(40.0) == pytest.approx(-3.7145382, abs=1e-6)


def test_fit_statistics_and_lines():
    rng = np.random.default_rng(1)
    u = 0.7022 + 0.048088 / (X - 0.125893) + rng.normal(0, 0.005, len(X))
    fit = fit_curve(X, u, "hyperbola-")
    assert 0.002 < fit.std_err < 0.01 and 0.99 < fit.corr <= 1.0
    assert abs(fit.at(40.0) - 0.7034) < 0.01
    line = fit_curve(X, 0.317 + 0.001 * X, "line")
    assert line.at(40.0) == pytest.approx(0.357) and line.std_err == pytest.approx(0, abs=1e-12)
    with pytest.raises(ValueError, match="shape"):
        fit_curve(X, u, "cubic")
