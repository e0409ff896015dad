//! JCC (Hua 2002 ch. 4) in whole networks.
//!
//! - V2.4: a probe crossing RED ports whose codes are {3, 9, 25, 4} comes back with R = 25.
//! - The Fig 4.5 dumbbell as the spec reads it (A-J10, §3.2): four flows over a 1 Mb/s
//!   modified-RED bottleneck (min_th 5, max_th 15, max_p 0.1, w_q 0.002, buffer 50, m = 8),
//!   propagation RTT 200 ms, 1000-byte packets, window 20, JCC's defaults.
//!
//! What holds with the defaults, asserted with a margin: every flow probes about once per
//! round trip and hears the bottleneck's codes; AIED keeps the windows well below the cap of
//! 20 that Reno's reach; the flows share the line fairly; JCC loses about a third of what
//! ns-2's Reno loses on the same bottleneck; alpha = 0.02 hears larger R and loses more than
//! alpha = 0 (Table 4.1's direction, and loss and alpha 0's mean R inside V4.7's bands).
//! What does not: the line is only about 70% busy (the thesis: fully used, four flows at
//! 250 kb/s), the windows swing over 1..15 rather than "between 5 and 10" (Fig 4.6), and
//! alpha = 0.02's mean R stays well below alpha (0.007 against 0.0235).
//!
//! Why, from the traces: a limit cycle of 4-5 s. RED's average (w_q 0.002: a time constant
//! of about 500 arrivals, 4 s or 20 round trips at this line's 125 packets/s) lags the queue,
//! so the flows, in step, grow for about 2 s after the queue has built and then cut at every
//! probing ACK for about 2 s after it has drained, while the average decays; beta, set at
//! each loss to the R of the moment, sits near the cycle's peak R, so nearly every cut is a
//! halving. Windows collapse to 1-2 packets, losses then end in timeouts (3 duplicate ACKs
//! cannot come), and the cycle repeats. No reading the thesis leaves open removes the cycle
//! and keeps the flows fair. Means over seeds 1-5 (`readings_of_table_4_1_and_fig_4_6`):
//!
//! | reading (alpha 0 / 0.02) | Table 4.1: loss %, mean R | Fig 4.6: utilisation, Jain of 1 s bins, timeouts in 200 s |
//! |---|---|---|
//! | defaults | 0.38 / 1.09, 0.0026 / 0.0068 | 0.70 / 0.78, 0.95 / 0.87, 31 / 79 |
//! | RED `wait` (ns-2's `wait_`) | 0.13 / 0.45, 0.0033 / 0.0096 | 0.71 / 0.77, 0.98 / 0.94, 11 / 26 |
//! | `cut_ssthresh = "keep"` | 0.37 / 1.22, 0.0028 / 0.0075 | 0.75 / 0.80, 0.93 / 0.86, 31 / 81 |
//! | keep and RED `wait` | 0.23 / 0.77, 0.0049 / 0.0145 | 0.99 / 0.84, 0.91 / 0.94, 4 / 18 |
//! | `loss_response = "reno"` | 0.37 / 0.87, 0.0027 / 0.0060 | 0.70 / 0.74, 0.96 / 0.90, 34 / 78 |
//! | `increase = "per_ack"` | 0.36 / 1.09, 0.0024 / 0.0065 | 0.70 / 0.79, 0.95 / 0.86, 35 / 74 |
//! | thesis | 0.2574 / 1.4004, 0.0057 / 0.0235 | 1.0, near 1 |
//!
//! (`recover_guard = "off"`, RED `exempt_probes = false` or `code_scale = "literal"`, and
//! m = 6 change these by little; m = 4 loses more.) With ns-2's `wait_` the loss is below the
//! mean R, as in Table 4.1 (0.45 and 0.60 of it), where FJ93's count rule (RED's default)
//! gives about 1.5 times it. Keeping ssthresh at a cut and ns-2's `wait_` together fill the
//! line (0.99, the windows 5..10 63% of the time) but pin each flow near the ssthresh it
//! happened to get: a long-run Jain index of 0.92 (one flow at 345 kb/s, two at 180).
//!
//! `cargo test --release -p ccsim --test jcc -- --nocapture` prints the measured numbers;
//! `cargo test --release -p ccsim --test jcc -- --ignored --nocapture` the readings' table.

mod common;
use ccsim::queue::Qdisc;
use ccsim::transport::cc::Cc;
use common::*;

/// h -> s1 -> s2 -> s3 -> s4 -> s5 -> b; the links between switches are RED with
/// `queue_params`, the two at the ends drop-tail. One JCC flow h -> b for `duration`.
fn chain(queue_params: &str, duration: &str) -> String {
    let sw = ["s1", "s2", "s3", "s4", "s5"];
    let mut s = ScenarioText::new(duration).nodes(&["h", "b"], &sw).link("h", "s1", "10Mbps").str("delay", "1ms");
    for w in sw.windows(2) {
        s = s.link(w[0], w[1], "10Mbps").str("delay", "5ms").str("queue", "red").raw("queue_params", queue_params);
    }
    s.link("s5", "b", "10Mbps").str("delay", "1ms").flow("h", "b").str("name", "j").str("cc", "jcc").build()
}

/// Run `text` with the RED averages of the ports named in `averages` set before the start;
/// returns the JCC flow's statistics.
fn run_chain(text: &str, averages: &[(&str, f64)]) -> ccsim::transport::cc::jcc::JccStats {
    let sc = ccsim::Scenario::from_toml_str(text).unwrap_or_else(|e| panic!("scenario rejected: {e}"));
    let mut w = ccsim::scenario::build::build_world(&sc).unwrap();
    let names: Vec<String> = ccsim::Results::collect(&sc, &w).ports.iter().map(|p| p.name.clone()).collect();
    for &(name, avg) in averages {
        let i = names.iter().position(|n| n == name).unwrap();
        match &mut w.ports[i].qdisc {
            Qdisc::Red(red) => red.set_average(avg),
            _ => panic!("{name} is not RED"),
        }
    }
    w.run();
    assert_conserved(&ccsim::Results::collect(&sc, &w));
    match &w.flows[0].sender.as_ref().unwrap().cc {
        Cc::Jcc(j) => j.stats(),
        _ => unreachable!(),
    }
}

#[test]
fn v2_4_a_probe_returns_the_largest_code_on_its_path() {
    // min_th 5, max_th 15, m = 8: code c for an average midway in its step, 5 + 10 (c + 0.5)/254.
    // w_q is tiny so the averages stay in their steps for the run.
    let params = "{ code_bits = 8, w_q = 1e-9 }";
    let avg = |c: f64| 5.0 + 10.0 * (c + 0.5) / 254.0;
    let codes = [("s1->s2", 3.0), ("s2->s3", 9.0), ("s3->s4", 25.0), ("s4->s5", 4.0)];
    let set: Vec<(&str, f64)> = codes.iter().map(|&(n, c)| (n, avg(c))).collect();
    let st = run_chain(&chain(params, "3s"), &set);
    assert!(st.probes >= 5, "{} probing ACKs", st.probes);
    assert_eq!(st.last_code, 25);
    assert!((st.mean_r - 25.0 * 0.1 / 254.0).abs() < 1e-12, "every probe: R = 25 codes ({})", st.mean_r);
    // Where the largest is elsewhere, so is R; the unmodified RED codes nothing.
    let first = [("s1->s2", avg(30.0)), ("s2->s3", avg(9.0)), ("s3->s4", avg(25.0)), ("s4->s5", avg(4.0))];
    assert_eq!(run_chain(&chain(params, "3s"), &first).last_code, 30);
    let plain = run_chain(&chain("{ w_q = 1e-9 }", "3s"), &set);
    assert!(plain.probes >= 5 && plain.mean_r == 0.0, "{plain:?}");
}

/// Hua 2002 Fig 4.5 as the spec reads it (A-J10): flows h1..hn -> b, flow i with `flows[i]`
/// (algorithm, params), over 10 Mb/s access links (1 ms) to r1 and from r2, the 1 Mb/s
/// bottleneck r1 -> r2 (98 ms; modified RED min_th 5, max_th 15, max_p 0.1, w_q 0.002, m = 8
/// unless `red` sets code_bits, plus `red`; buffer 50): propagation RTT 200 ms; 1000-byte packets, 40-byte ACKs, window
/// 20. Starts 7 ms apart, or `stagger_s` apart (E4.2: 0, 50, 100, 150 s). 1 s intervals.
fn fig_4_5(flows: &[(&str, &str)], red: &str, duration: &str, stagger_s: u32, seed: u64) -> String {
    let hosts: Vec<String> = (1..=flows.len()).map(|i| format!("h{i}")).collect();
    let mut names: Vec<&str> = hosts.iter().map(|s| s.as_str()).collect();
    names.push("b");
    let mut s = ScenarioText::new(duration)
        .raw("seed", seed)
        .measure("1s")
        .str("trace_period", "100ms")
        .raw("port_stats", list(&["r1->r2"]))
        .nodes(&names, &["r1", "r2"]);
    for h in &hosts {
        s = s.link(h, "r1", "10Mbps").str("delay", "1ms");
    }
    let bits = if red.contains("code_bits") { "" } else { ", code_bits = 8" };
    let sep = if red.is_empty() { "" } else { ", " };
    s = s
        .link("r1", "r2", "1Mbps")
        .str("delay", "98ms")
        .str("buffer", "50pkt")
        .str("queue", "red")
        .raw("queue_params", format!("{{ min_th = 5, max_th = 15, max_p = 0.1, w_q = 0.002{bits}{sep}{red} }}"))
        .link("r2", "b", "10Mbps")
        .str("delay", "1ms");
    for (i, (h, &(cc, params))) in hosts.iter().zip(flows).enumerate() {
        let start = if stagger_s > 0 { format!("{}s", stagger_s as usize * i) } else { format!("{}ms", 7 * i) };
        s = s.flow(h, "b").str("name", h).str("cc", cc).raw("max_window", 20).str("packet_size", "1000B");
        s = s.str("ack_size", "40B").str("start", start);
        if !params.is_empty() {
            s = s.raw("params", params);
        }
    }
    s.build()
}

/// ns-2's Reno of 2001 with its timer (spec §1.1), the thesis's baseline.
const RENO_NS2: &str = "{ variant = \"ns2\", min_rto = \"1s\", initial_rto = \"3s\", rto_granularity = \"100ms\" }";

/// What a run of `fig_4_5` measured: loss and R over the whole run (Table 4.1's "total packet
/// loss" and mean R), the rest from `from_s` on.
#[derive(Debug)]
struct Run {
    /// Data packets dropped / data packets sent (retransmissions included), %, all flows.
    loss_pct: f64,
    /// Mean R over all probing ACKs, probability units (NaN without JCC flows).
    mean_r: f64,
    /// Probing ACKs per JCC flow per second of the run, the smallest.
    probes_per_s: f64,
    timeouts: u64,
    /// Share of the bottleneck's time spent transmitting.
    utilisation: f64,
    /// Each flow's goodput, kb/s.
    kbps: Vec<f64>,
    /// Jain's index of the flows' goodputs over the whole span, and its mean over 1 s bins.
    jain: f64,
    jain_bins: f64,
    /// The flows' mean coefficient of variation of 1 s goodput.
    cov: f64,
    /// All flows' windows, sampled every 100 ms.
    cwnd: Vec<f64>,
}

impl Run {
    fn cwnd_mean_sd(&self) -> (f64, f64) {
        let n = self.cwnd.len() as f64;
        let mean = self.cwnd.iter().sum::<f64>() / n;
        (mean, (self.cwnd.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / n).sqrt())
    }
    fn cwnd_max(&self) -> f64 {
        self.cwnd.iter().fold(0.0, |a, &c| a.max(c))
    }
    fn in_band(&self, lo: f64, hi: f64) -> f64 {
        self.cwnd.iter().filter(|&&c| (lo..=hi).contains(&c)).count() as f64 / self.cwnd.len() as f64
    }
    fn line(&self) -> String {
        let (mean, sd) = self.cwnd_mean_sd();
        let lo = self.cwnd.iter().fold(f64::INFINITY, |a, &c| a.min(c));
        format!(
            "whole run: loss {:.3}%, mean R {:.4}, timeouts {}; then: utilisation {:.3}, cwnd {lo:.2}..{:.2} (mean {mean:.2}, sd {sd:.2}, {:.0}% in [5, 10]), kb/s {:?}, Jain {:.3} (1 s bins {:.3}), CoV {:.2}",
            self.loss_pct,
            self.mean_r,
            self.timeouts,
            self.utilisation,
            self.cwnd_max(),
            100.0 * self.in_band(5.0, 10.0),
            self.kbps.iter().map(|k| k.round()).collect::<Vec<_>>(),
            self.jain,
            self.jain_bins,
            self.cov
        )
    }
}

fn jain(xs: &[f64]) -> f64 {
    let (s, s2) = xs.iter().fold((0.0, 0.0), |(s, s2), x| (s + x, s2 + x * x));
    if s2 == 0.0 {
        1.0
    } else {
        s * s / (xs.len() as f64 * s2)
    }
}

fn measure(text: &str, from_s: f64) -> Run {
    let (sc, w) = run_world(text);
    let r = ccsim::Results::collect(&sc, &w);
    let sent: u64 = r.flows.iter().map(|f| f.totals.sent).sum();
    let dropped: u64 = r.flows.iter().map(|f| f.totals.data_dropped).sum();
    let stats: Vec<_> = w
        .flows
        .iter()
        .filter_map(|f| match &f.sender.as_ref().unwrap().cc {
            Cc::Jcc(j) => Some(j.stats()),
            _ => None,
        })
        .collect();
    let probes: f64 = stats.iter().map(|s| s.probes as f64).sum();
    let n = r.flows.len();
    // goodput[flow][bin] for the 1 s intervals from `from_s` on.
    let t = &r.intervals;
    let mut goodput = vec![Vec::new(); n];
    for i in (0..t.flow.len()).filter(|&i| t.start_s[i] >= from_s - 1e-9) {
        goodput[t.flow[i] as usize].push(t.goodput_bps[i] / 1000.0);
    }
    let kbps: Vec<f64> = goodput.iter().map(|g| g.iter().sum::<f64>() / g.len() as f64).collect();
    let bins = goodput.iter().map(|g| g.len()).min().unwrap();
    let jain_bins = (0..bins).map(|b| jain(&goodput.iter().map(|g| g[b]).collect::<Vec<_>>())).sum::<f64>() / bins as f64;
    let cov =
        goodput.iter().zip(&kbps).map(|(g, &m)| (g.iter().map(|x| (x - m).powi(2)).sum::<f64>() / g.len() as f64).sqrt() / m).sum::<f64>()
            / n as f64;
    let p = &r.port_intervals;
    let busy: Vec<f64> = (0..p.port.len()).filter(|&i| p.start_s[i] >= from_s - 1e-9).map(|i| p.utilisation[i]).collect();
    Run {
        loss_pct: 100.0 * dropped as f64 / sent as f64,
        mean_r: stats.iter().map(|s| s.mean_r * s.probes as f64).sum::<f64>() / probes,
        probes_per_s: stats.iter().map(|s| s.probes as f64).fold(f64::INFINITY, f64::min) / r.duration_s,
        timeouts: r.flows.iter().map(|f| f.timeouts).sum(),
        utilisation: busy.iter().sum::<f64>() / busy.len() as f64,
        jain: jain(&kbps),
        kbps,
        jain_bins,
        cov,
        cwnd: (0..n as u32).flat_map(|f| cwnd_series(&r, f)).filter(|s| s.0 >= from_s).map(|s| s.1).collect(),
    }
}

#[test]
fn fig_4_6_four_jcc_flows_share_the_line_with_narrower_windows_and_less_loss_than_reno() {
    let jcc = measure(&fig_4_5(&[("jcc", ""); 4], "", "200s", 0, 1), 50.0);
    let reno = measure(&fig_4_5(&[("reno", RENO_NS2); 4], "", "200s", 0, 1), 50.0);
    println!("jcc, alpha 0 (from 50 s): {}", jcc.line());
    println!("reno (ns2) (from 50 s):   {}", reno.line());
    println!(
        "thesis: JCC cwnd 'between 5 and 10', Reno 'from 0 to 20'; the line fully used (4 x 250 kb/s); JCC Jain index near 1, Reno's lower"
    );
    // Every flow probes about once a round trip (200 ms and more) and hears the bottleneck.
    assert!((2.0..=5.0).contains(&jcc.probes_per_s), "{} probing ACKs per second", jcc.probes_per_s);
    assert!((0.002..=0.015).contains(&jcc.mean_r), "mean R {} (thesis 0.0057, V4.7's band)", jcc.mean_r);
    // AIED cuts: the windows stay well below the cap of 20 that Reno's reach.
    let (mean, sd) = jcc.cwnd_mean_sd();
    assert!((4.0..=10.0).contains(&mean) && jcc.cwnd_max() <= 18.0, "JCC windows: {}", jcc.line());
    assert!(reno.cwnd_max() >= 19.0, "Reno reaches the window cap: {}", reno.line());
    assert!(sd < reno.cwnd_mean_sd().1, "JCC's windows vary less than Reno's");
    // Fair, with a third of Reno's loss on the same bottleneck.
    assert!(jcc.jain >= 0.98 && jcc.jain_bins >= 0.9, "{}", jcc.line());
    assert!(jcc.loss_pct < 1.0 && jcc.loss_pct < 0.6 * reno.loss_pct, "loss: JCC {} %, Reno {} %", jcc.loss_pct, reno.loss_pct);
    // The line is not full (see the header); a stall would show here.
    assert!(jcc.utilisation >= 0.6, "{}", jcc.line());
}

#[test]
fn table_4_1_a_larger_alpha_hears_larger_r_and_loses_more() {
    // Staggered starts (spec A-J13 for Table 4.1), loss and R over the whole run.
    let run = |params: &str| measure(&fig_4_5(&[("jcc", params); 4], "", "250s", 50, 1), 160.0);
    let (a0, a2) = (run(""), run("{ alpha = 0.02 }"));
    println!("alpha 0 (from 160 s):    {}", a0.line());
    println!("alpha 0.02 (from 160 s): {}", a2.line());
    println!("thesis (Table 4.1): alpha 0: R 0.0057, loss 0.2574%; alpha 0.02: R 0.0235, loss 1.4004%");
    assert!((0.001..=0.015).contains(&a0.mean_r), "alpha 0: {}", a0.line());
    assert!(a2.mean_r >= 1.5 * a0.mean_r, "R grows with alpha: {} -> {}", a0.mean_r, a2.mean_r);
    assert!(a2.loss_pct >= 1.5 * a0.loss_pct, "loss grows with alpha: {} % -> {} %", a0.loss_pct, a2.loss_pct);
    assert!(a0.loss_pct < 1.0, "alpha 0: {}", a0.line());
}

/// The readings the thesis leaves open, each over seeds 1-5: the means of Table 4.1's numbers
/// (staggered starts, whole run) and of Fig 4.6's (simultaneous starts, after 50 s).
#[test]
#[ignore = "prints a table of readings (a few seconds in release)"]
fn readings_of_table_4_1_and_fig_4_6() {
    let readings: [(&str, &str, &str); 11] = [
        ("defaults", "", ""),
        ("red wait (ns-2's wait_)", "wait = true", ""),
        ("cut_ssthresh keep", "", "cut_ssthresh = \"keep\""),
        ("keep + red wait", "wait = true", "cut_ssthresh = \"keep\""),
        ("loss_response reno", "", "loss_response = \"reno\""),
        ("increase per_ack", "", "increase = \"per_ack\""),
        ("recover_guard off", "", "recover_guard = \"off\""),
        ("red exempt_probes off", "exempt_probes = false", ""),
        ("red code_scale literal", "code_scale = \"literal\"", ""),
        ("m = 6", "code_bits = 6", "code_bits = 6"),
        ("m = 4", "code_bits = 4", "code_bits = 4"),
    ];
    println!("reading, alpha: Table 4.1 (staggered, whole run): loss %, mean R | Fig 4.6 (simultaneous, from 50 s; timeouts over the 200 s): utilisation, timeouts, mean cwnd, cwnd sd, share in [5, 10], Jain, Jain of 1 s bins, CoV");
    for (name, red, jcc) in readings {
        for alpha in ["0", "0.02"] {
            let params = format!("{{ alpha = {alpha}{}{jcc} }}", if jcc.is_empty() { "" } else { ", " });
            let (mut t, mut f) = ([0.0; 2], [0.0; 8]);
            for seed in 1..=5 {
                let text = |stagger, duration| fig_4_5(&[("jcc", params.as_str()); 4], red, duration, stagger, seed);
                let a = measure(&text(50, "250s"), 160.0);
                let b = measure(&text(0, "200s"), 50.0);
                let (mean, sd) = b.cwnd_mean_sd();
                for (x, v) in t.iter_mut().zip([a.loss_pct, a.mean_r]) {
                    *x += v / 5.0;
                }
                let fig = [b.utilisation, b.timeouts as f64, mean, sd, b.in_band(5.0, 10.0), b.jain, b.jain_bins, b.cov];
                for (x, v) in f.iter_mut().zip(fig) {
                    *x += v / 5.0;
                }
            }
            println!(
                "{name:<24} {alpha:<4}: {:.3}% R {:.4} | util {:.3}, timeouts {:.1}, cwnd {:.2} sd {:.2}, {:.0}% in [5, 10], Jain {:.3} / {:.3}, CoV {:.2}",
                t[0],
                t[1],
                f[0],
                f[1],
                f[2],
                f[3],
                100.0 * f[4],
                f[5],
                f[6],
                f[7]
            );
        }
    }
}
