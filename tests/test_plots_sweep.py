"""sweep.png: a sweep's flows against the swept value (python/ccsim/plots_sweep.py)."""

import pandas as pd

from ccsim.plots_sweep import numeric_axis, plot_sweep, varying


def test_numeric_axis_places_numbers_of_one_unit_and_refuses_the_rest():
    assert numeric_axis(["5pkt", "40pkt", "10pkt"]) == ([5.0, 40.0, 10.0], "pkt")
    assert numeric_axis([3, 0.5]) == ([3.0, 0.5], "")
    assert numeric_axis(["1e-3s", "2ms"]) is None          # two units: no common scale here
    assert numeric_axis(["reno", "cubic"]) is None
    assert numeric_axis([True, False]) is None


def _rows(params: dict, seeds=(1, 2)):
    import itertools

    rows = []
    for combo in itertools.product(*params.values()):
        for seed in seeds:
            for name, share in (("1 FTP", 1.0), ("2 FTP", 2.0)):
                rows.append({**{f"param:{k}": v for k, v in zip(params, combo)}, "seed": seed, "name": name,
                             "goodput_pps": share * seed, "delay_s": 0.1, "drop_rate": 0.0})
    return pd.DataFrame(rows)


def test_plot_sweep_draws_what_varies_and_nothing_for_seeds_alone(tmp_path):
    t = _rows({"links[0].buffer": ["5pkt", "40pkt"], "flows[0].cc": ["reno", "cubic"], "duration": ["10s"]})
    assert varying(t) == ["param:links[0].buffer", "param:flows[0].cc"]   # duration takes one value
    png = tmp_path / "s.png"
    assert plot_sweep(t, png, title="t") is True
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10000
    assert plot_sweep(_rows({"duration": ["10s"]}), tmp_path / "none.png") is False
    assert not (tmp_path / "none.png").exists()


def test_ccsim_plot_refuses_a_damaged_or_foreign_sweep_table(cli, tmp_path):
    (tmp_path / "sweep.parquet").write_text("garbage")
    r = cli("plot", tmp_path)
    assert r.returncode == 2 and "sweep.parquet: cannot read" in r.stderr and "Traceback" not in r.stderr
    pd.DataFrame({"param:x": [1, 2]}).to_parquet(tmp_path / "sweep.parquet")
    r = cli("plot", tmp_path)
    assert r.returncode == 2 and "no delay_s, drop_rate, goodput_pps, name, seed column" in r.stderr, r.stderr


def test_a_sweep_whose_seeds_agree_says_so_in_its_title(tmp_path, monkeypatch):
    import ccsim.plots_sweep as ps

    titles = []
    monkeypatch.setattr(ps, "atomic_savefig", lambda fig, path: titles.append(fig.axes[0].get_title()))
    t = _rows({"links[0].buffer": ["5pkt", "40pkt"]})
    ps.plot_sweep(t, tmp_path / "a.png")                    # goodput differs by seed
    t2 = t.assign(goodput_pps=t["name"].map({"1 FTP": 1.0, "2 FTP": 2.0}))
    ps.plot_sweep(t2, tmp_path / "b.png")                   # every seed the same
    assert "sd over seeds" in titles[0] and "same result" not in titles[0]
    assert "every seed gave the same result" in titles[1]
