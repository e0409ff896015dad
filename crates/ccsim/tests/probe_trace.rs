//! Traces of the packet-pair estimator: the periodic cwnd trace carries each flow's probe
//! state (NaN for window algorithms), and the probe trace has every probe of a traced
//! packet-pair flow.

mod common;
use ccsim::Results;
use common::ScenarioText;

/// Two disjoint constant paths: "pp" a -> s1 -> b and "jk" c -> s2 -> d. Each bottleneck is
/// 1 Mb/s (1000-byte packets: 125 pkt/s), 20 ms, with a buffer large enough for no loss.
fn two_paths(duration: &str, trace_period: &str) -> String {
    let mut s = ScenarioText::new(duration)
        .measure("1s")
        .raw("discard", 0)
        .str("trace_period", trace_period)
        .raw("trace_cwnd", true)
        .raw("trace_queues", false)
        .nodes(&["a", "b", "c", "d"], &["s1", "s2"]);
    for (h, sw) in [("a", "s1"), ("c", "s2")] {
        s = s.link(h, sw, "10Mbps").str("delay", "1ms").str("buffer", "200pkt");
    }
    for (sw, h) in [("s1", "b"), ("s2", "d")] {
        s = s.link(sw, h, "1Mbps").str("delay", "20ms").str("buffer", "200pkt");
    }
    for (name, src, dst, cc) in [("pp", "a", "b", "pp"), ("jk", "c", "d", "jk")] {
        s = s
            .flow(src, dst)
            .str("name", name)
            .str("app", "ftp")
            .str("cc", cc)
            .raw("max_window", 40)
            .str("packet_size", "1000B")
            .str("ack_size", "40B");
    }
    s.build()
}

fn rows(r: &Results, flow: u32) -> Vec<usize> {
    (0..r.cwnd_trace.flow.len()).filter(|&i| r.cwnd_trace.flow[i] == flow).collect()
}

#[test]
fn pp_trace_has_the_estimator_state_and_jk_has_nan() {
    let r = common::run(&two_paths("10s", "50ms"));
    let c = &r.cwnd_trace;
    let n = c.flow.len();
    let col = |name: &str| c.column(name).unwrap_or_else(|| panic!("no trace column {name}"));
    let (gap, rate_est, send_rate, alpha) = (col("probe_gap_s"), col("rate_est_pps"), col("send_rate_pps"), col("alpha"));
    for column in [&c.srtt_s[..], gap, rate_est, send_rate, alpha] {
        assert_eq!(column.len(), n);
    }
    let mu = 125.0;
    // Packet-pair: after start-up every column is finite; the probe is the bottleneck's
    // service time, the estimate its rate, alpha a weight, and the sending rate near mu.
    let pp = rows(&r, 0);
    assert!(pp.len() >= 190, "{} samples", pp.len());
    assert!(rate_est[pp[0]].is_nan() && gap[pp[0]].is_nan() && send_rate[pp[0]].is_nan() && alpha[pp[0]].is_nan());
    let late: Vec<usize> = pp.iter().copied().filter(|&i| c.time_s[i] >= 2.0).collect();
    assert!(late.len() > 100);
    for &i in &late {
        let t = c.time_s[i];
        assert!((rate_est[i] - mu).abs() < 0.02 * mu, "t {t}: rate_est {}", rate_est[i]);
        assert!((gap[i] - 1.0 / mu).abs() < 1e-3, "t {t}: probe gap {}", gap[i]);
        assert!(send_rate[i].is_finite() && (send_rate[i] - mu).abs() < 0.25 * mu, "t {t}: send rate {}", send_rate[i]);
        assert!((0.0..=1.0).contains(&alpha[i]), "t {t}: alpha {}", alpha[i]);
        assert!(c.srtt_s[i] > 0.04 && c.srtt_s[i] < 0.2, "t {t}: srtt {}", c.srtt_s[i]);
    }
    // JK: no probes, so NaN; the RTT is still measured.
    let jk = rows(&r, 1);
    assert_eq!(jk.len(), pp.len());
    for &i in &jk {
        assert!(gap[i].is_nan() && rate_est[i].is_nan() && send_rate[i].is_nan() && alpha[i].is_nan());
    }
    assert!(jk.iter().filter(|&&i| c.time_s[i] >= 1.0).all(|&i| c.srtt_s[i].is_finite()));

    // Every probe, in order, from the JK flow none.
    let p = r.event_trace("probes").expect("the probes table");
    let (p_rate, p_send, p_alpha) = (p.column("rate_est_pps").unwrap(), p.column("send_rate_pps").unwrap(), p.column("alpha").unwrap());
    assert!(p.flow.iter().all(|&f| f == 0));
    assert!(p.len() > 500, "{} probes", p.len());
    assert_eq!(p.index, (1..=p.len() as u64).collect::<Vec<_>>(), "probes left out or out of order");
    assert!(p.time_s.windows(2).all(|w| w[0] <= w[1]));
    let tail: Vec<usize> = (0..p.len()).filter(|&i| p.time_s[i] >= 2.0).collect();
    for &i in &tail {
        assert!((p_rate[i] - mu).abs() < 0.02 * mu && p_send[i].is_finite() && p_alpha[i].is_finite());
    }
    // The periodic sample holds the state of the last probe before it.
    let k = *late.last().unwrap();
    let last = (0..p.len()).rev().find(|&i| p.time_s[i] <= c.time_s[k]).unwrap();
    assert_eq!(rate_est[k].to_bits(), p_rate[last].to_bits());
    assert_eq!(send_rate[k].to_bits(), p_send[last].to_bits());
}

#[test]
fn probe_log_keeps_the_latest_probes_of_a_long_trace_period() {
    // One sample per 5 s: about 300 probes between samples, more than the log holds.
    let r = common::run(&two_paths("10s", "5s"));
    let p = r.event_trace("probes").expect("the probes table");
    let cap = ccsim::measure::EVENT_LOG_CAPACITY;
    assert!(p.len() <= 3 * cap, "{} probes", p.len());
    assert!(p.len() >= 2 * cap);
    // The kept ones are consecutive runs ending at the probe just before each drain.
    assert!(p.index.windows(2).all(|w| w[0] < w[1]));
    let gaps = p.index.windows(2).filter(|w| w[1] != w[0] + 1).count();
    assert!((1..=2).contains(&gaps), "{gaps} gaps");
    // Nothing is recorded for untraced flows, and a trace of window flows only has no
    // packet-pair columns.
    let mut text = two_paths("10s", "50ms");
    text = text.replace("trace_cwnd = true", "trace_cwnd = [\"jk\"]");
    let r = common::run(&text);
    assert!(r.event_trace("probes").is_none());
    assert!(r.cwnd_trace.flow.iter().all(|&f| f == 1));
    assert!(r.cwnd_trace.extra.is_empty());
}

#[test]
fn the_fuzzy_predictors_parameters_reach_it_from_the_scenario() {
    // Clamping both gains to 0.3 pins α at 0.3 once the predictor runs (the placeholder sets
    // keep it within about [0.17, 0.83] otherwise).
    let text = two_paths("5s", "50ms").replacen(
        "cc = \"pp\"",
        "cc = \"pp\"\nparams = { fuzzy_min_gain = 0.3, fuzzy_max_gain = 0.3, fuzzy_alpha_timing = \"current\", fuzzy_error_sets = [[0, 0, 0.4], [0, 0.4, 1], [0.4, 1, 1]] }",
        1,
    );
    let r = common::run(&text);
    let alpha = r.cwnd_trace.column("alpha").unwrap();
    let late: Vec<f64> = rows(&r, 0).into_iter().filter(|&i| r.cwnd_trace.time_s[i] >= 2.0).map(|i| alpha[i]).collect();
    assert!(late.len() > 50 && late.iter().all(|&a| a == 0.3), "{:?}", &late[..5]);
    // Bad values name their field.
    for (params, key, words) in [
        ("fuzzy_error_sets = [[0, 0, 0.5], [0, 0.5, 1]]", "fuzzy_error_sets", "three [lo, peak, hi] triangles"),
        ("fuzzy_beta_sets = [[0, 0.6, 0.5], [0, 0.5, 1], [0.5, 1, 1]]", "fuzzy_beta_sets", "lo <= peak <= hi"),
        ("fuzzy_min_gain = 0.6, fuzzy_max_gain = 0.4", "fuzzy_max_gain", "fuzzy_min_gain"),
        ("fuzzy_alpha_timing = \"later\"", "fuzzy_alpha_timing", "next"),
    ] {
        let bad = two_paths("5s", "50ms").replacen("cc = \"pp\"", &format!("cc = \"pp\"\nparams = {{ {params} }}"), 1);
        let e = ccsim::run_toml(&bad).err().unwrap_or_else(|| panic!("accepted: {params}"));
        assert_eq!(e.path, format!("flows[0].params.{key}"), "{e}");
        assert!(e.message.contains(words), "{e}");
    }
}
