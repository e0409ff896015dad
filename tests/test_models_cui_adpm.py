"""Cui chapter 5: ADPM and the marking schemes it is compared with (ccsim.models.cui.adpm and
.marking), against the thesis's rules and the digest's targets A9-A14. The ensembles here are
small (a second or two); `ccsim reproduce cui-adpm` runs the thesis's own sizes."""

import math

import numpy as np
import pytest

from ccsim.models import cui


def test_brc_is_bit_reversed_counting_after_the_binary_point():
    # R(1), R(2), R(3), R(4) = 0.1, 0.01, 0.11, 0.001 in binary.
    assert cui.brc_probes(4).tolist() == [0.5, 0.25, 0.75, 0.125]
    assert cui.bit_reverse16(np.array([1, 0x8000, 0xFFFF])).tolist() == [0x8000, 1, 0xFFFF]


def _fills_like_brc(probes) -> bool:
    # The first 2^j probes put one in each of the 2^j cells of width 2^-j, as BRC does.
    return all(sorted(np.floor(probes[: 1 << j] * (1 << j)).tolist()) == list(range(1 << j)) for j in (1, 4, 8, 12))


def test_ipid_map_as_printed_serves_sequential_counters_and_xor_low_serves_both():
    c = np.arange(1 << 16)
    swapped = ((c & 0xFF) << 8) | (c >> 8)
    for layout in cui.IPID_LAYOUTS:
        for ipid in (c, swapped):
            assert len(np.unique(cui.ipid_probe(ipid, layout))) == 1 << 16   # 2^16 thresholds
    assert _fills_like_brc(cui.ipid_probe(c))
    # As printed, f(A + 256 (A xor B)): a byte-swapped counter's first 256 packets all probe
    # [0, 1/256) (the xor, which carries the fast byte, ends in the probe's low bits).
    assert cui.ipid_probe(swapped[:256]).max() < 1 / 256
    assert _fills_like_brc(cui.ipid_probe(c, "xor_low")) and _fills_like_brc(cui.ipid_probe(swapped, "xor_low"))
    with pytest.raises(ValueError, match="ipid"):
        cui.ipid_probe([70000])
    with pytest.raises(ValueError, match="layout"):
        cui.ipid_probe([1], "swapped")


def test_routers_mark_below_their_price_and_the_receiver_sees_the_path_maximum():
    probes = np.array([[0.1, 0.35, 0.5, 0.7]])
    marks = cui.adpm_marks(probes, np.array([[0.2, 0.6, 0.0]]))
    assert marks.tolist() == [[True, True, True, False]]        # max price 0.6
    # The decoder: marked and above the estimate, or unmarked and below it, moves it.
    est = cui.adpm_decode(probes, marks)
    assert est.tolist() == [[0.1, 0.35, 0.5, 0.5]]
    assert cui.adpm_decode(probes, marks, p0=1.0).tolist() == [[1.0, 1.0, 1.0, 0.7]]


def test_running_maximum_is_the_literal_decoder_for_fixed_prices():
    rng = np.random.default_rng(3)
    for seq in cui.SEQUENCES:
        probes = cui.probe_sequence(seq, 300, 1, rng)[0]
        prices = rng.random(50)
        fast = cui.fixed_price_estimates(probes, prices)
        marks = cui.adpm_marks(np.tile(probes, (50, 1)), prices[:, None])
        assert np.array_equal(fast, cui.adpm_decode(np.tile(probes, (50, 1)), marks))


def test_brc_mean_matches_the_intervals():
    # A9 and the corrected formula: pure BRC over 1000 evenly spaced prices.
    c = cui.fixed_price_errors("brc", k_max=1024)
    for k in (1, 3, 7, 63, 1023):
        assert c.mean[c.ks == k][0] == pytest.approx(1 / (2 * (k + 1)), rel=0.02)
    for k in (2, 5, 10, 100, 1000):
        got = c.mean[c.ks == k][0]
        assert got == pytest.approx(cui.brc_mean_error(k), rel=0.02)
        assert 1 / (2 * (k + 1)) <= got * (1 + 1e-9)
        assert got < cui.brc_max_bound(k) / 2
    assert cui.brc_mean_error_printed(10) > 0.5          # the thesis's sum cannot be a mean
    assert c.bound_violations == 0                       # A11, pure BRC


def test_random_probes_follow_one_over_k_plus_two_and_random_brc_keeps_its_bound():
    r = cui.fixed_price_errors("random", k_max=1024, sequences=64, prices=100)
    for k in (1, 10, 100, 1000):
        assert r.mean[r.ks == k][0] == pytest.approx(1 / (k + 2), rel=0.06)      # A10
    b = cui.fixed_price_errors("random_brc", k_max=1024, sequences=64, prices=100)
    assert b.bound_violations == 0                                              # A11, 2/K
    # Twice pure BRC's maximum at small k, 1.5 intervals after 1.5 x 2^n probes (§5.4).
    assert b.max[b.ks == 7][0] == pytest.approx(2 / 8, rel=0.01)
    assert b.max[b.ks == 96][0] == pytest.approx(1.5 / 64, rel=0.05)


def test_rem_links_compose_to_the_path_probability_and_ram_averages_the_prices():
    rng = np.random.default_rng(5)
    links = np.array([[300.0, 200.0, 193.1]])               # Σp = 693.1: q = 1 − 1.001^-693.1 = 0.5
    q = cui.rem_mark_probability(links)[0]
    assert q == pytest.approx(0.5, abs=1e-3)
    assert cui.rem_marks(links, 200_000, rng).mean() == pytest.approx(q, abs=0.005)
    s = np.array([[0.9, 0.1, 0.5, 0.3, 0.7]])
    bits = cui.ram_marks(s, 200_000, rng)
    assert bits.mean() == pytest.approx(s.mean(), abs=0.005)                   # E[X_n] = Σ s_i / n
    with pytest.raises(ValueError, match="prices"):
        cui.ram_marks(np.array([[1.5]]), 10, rng)


def test_rem_and_ram_mse_is_one_over_six_k():
    # A12: q uniform, ten links.
    for scheme in ("rem", "ram"):
        ks, mse = cui.mse_curve(scheme, k_max=256, members=20000)
        for k in (10, 100, 256):
            assert mse[ks == k][0] * 6 * k == pytest.approx(1.0, rel=0.06)


def test_tpm_and_rpm_decode_exactly_once_every_probe_type_is_seen():
    bits, prices = 4, np.array([[0.3, 0.8, 0.55]])
    types = np.arange(cui.marking.TPM_HOPS * bits)[None, :]
    est = cui.tpm_decode(types, cui.tpm_marks(types, prices, bits), bits)
    assert est[0, -1] == pytest.approx((4 + 12 + 8) / 16)    # floor(16 p) = 4, 12, 8
    # Router 2's bits come after routers 0 and 1: before them its share is missing.
    assert est[0, 2 * bits - 1] == pytest.approx((4 + 12) / 16)
    levels = np.arange(100)[None, :]
    rpm = cui.rpm_decode(levels, cui.rpm_marks(levels, np.array([[0.123, 0.456]]), 100), 100)
    assert rpm[0, 12] == pytest.approx(0.125) and rpm[0, -1] == pytest.approx(0.455)
    assert rpm[0, 11] == 0.0                                 # nothing marked yet: unknown


def test_adpm_beats_rem_from_k_seven_and_tracks_a_ramp_below_sqrt_two_delta():
    ks, adpm = cui.mse_curve("adpm", k_max=64, members=8192)
    rem = 1 / (6.0 * ks)
    assert adpm[ks == 3][0] > rem[ks == 3][0] and adpm[ks == 15][0] < rem[ks == 15][0]
    # A13: mean error "slightly below √(2δ)" (the thesis), within −30%.
    ratio = cui.ramp_error_ratio("adpm", 1e-5, sequences=64)
    assert 0.7 <= ratio <= 1.0
    assert cui.ramp_error_ratio("tpm4", 1e-5, sequences=64, reference="adpm") > 2


def test_step_detection_random_matches_5_4():
    for k in (4, 16):
        sim = cui.step_detection("random", 0.05, k, trials=4000)
        assert sim == pytest.approx(cui.undetected_random(0.05, k), abs=0.03)
    # (5.5)'s certain branch: 0.05 x 32 >= 1.
    assert cui.step_detection("random_brc", 0.05, 32, trials=4000) == 0.0
    assert cui.undetected_brc(0.05, 5) == 0.0
    assert cui.undetected_brc(0.05, 2) == pytest.approx(0.9 * 0.8)


def test_rcp_and_maxnet_mappings():
    # A14: 931 prices, 10 bits, 1024 levels.
    assert cui.rcp_levels() == (931, 10, 1024)
    assert cui.maxnet_mapped_price(0, 2) == 1                 # log2(2) = 1
    assert cui.maxnet_mapped_price(1e9, 1.02) == math.ceil(math.log(1e9 + 1.02) / math.log(1.02))


def test_bad_arguments_name_the_field():
    with pytest.raises(ValueError, match="sequence"):
        cui.fixed_price_errors("sorted")
    with pytest.raises(ValueError, match="k: 3000"):
        cui.adpm_error("brc", 3000, k_max=16, sequences=10, prices=100)
    with pytest.raises(ValueError, match="p0"):
        cui.adpm_decode([[0.5]], [[True]], p0=2.0)
    with pytest.raises(ValueError, match="start"):
        cui.ramp_error("adpm", 1e-3, start=0.9)
    # Requests that would take hours or all memory, and ratios to a zero, are refused.
    with pytest.raises(ValueError, match="k: expected a whole number of at most"):
        cui.step_detection("random", 0.05, 10**9)
    with pytest.raises(ValueError, match="k_max"):
        cui.fixed_price_errors("random", k_max=10**7)
    with pytest.raises(ValueError, match="delta"):
        cui.ramp_error("adpm", 1e-14)
    with pytest.raises(ValueError, match="members"):
        cui.mse_curve("rem", members=10**6)
    with pytest.raises(ValueError, match="gives 0"):
        cui.step_detection_ratio("random_brc", 0.2, 8, "5.5")
    assert cui.drain_threshold(1e6, 1e-9, 1e12) > 10**17          # bisection, not a count
