//! Links of several channels (Cui's DWDM output trunk, ch. 3): `channels`, the buffer's
//! counting, `channel_buffers`, their statistics and traces, and the errors for bad values.
//! The mechanics against reference queues are unit-tested in `net/port/trunk.rs`.

mod common;
use ccsim::ScenarioError;
use common::*;

/// `m` Poisson sources (uncontrolled, 1040-byte packets, `rate` each) at hosts s0.. behind
/// 1 Gb/s access links, into switch sw, out to the sink over a link of `trunk` settings
/// (`key = value` lines, at 10 Mb/s a channel: 832 us a packet).
fn poisson_trunk(m: usize, rate: &str, trunk: &[(&str, &str)], duration: &str) -> String {
    poisson_trunk_sized(m, rate, trunk, duration, "packet_size = \"1040B\"")
}

/// The same with the flows' packet size given by the line `size`.
fn poisson_trunk_sized(m: usize, rate: &str, trunk: &[(&str, &str)], duration: &str, size: &str) -> String {
    let hosts: Vec<String> = (0..m).map(|i| format!("s{i}")).chain(["sink".to_string()]).collect();
    let names: Vec<&str> = hosts.iter().map(String::as_str).collect();
    let mut s = ScenarioText::new(duration)
        .raw("seed", 3)
        .measure("2s")
        .raw("discard", 1)
        .str("trace_period", "10ms")
        .raw("trace_queues", list(&["sw->sink"]))
        .raw("port_stats", list(&["sw->sink"]))
        .raw("trace_departures", list(&["sw->sink"]))
        .str("trace_cwnd", "none")
        .nodes(&names, &["sw"]);
    for h in &names[..m] {
        s = s.link(h, "sw", "1Gbps").str("delay", "1ms");
    }
    s = s.link("sw", "sink", "10Mbps").str("delay", "5ms");
    for (k, v) in trunk {
        s = s.raw(k, v);
    }
    for h in &names[..m] {
        let (k, v) = size.split_once(" = ").expect("key = value");
        s = s.flow(h, "sink").str("app", "poisson").str("rate", rate).raw(k, v);
    }
    s.build()
}

#[test]
fn one_channel_written_out_is_the_ordinary_link() {
    // `channels = 1` (and the private arrangement, which is the same with one channel) leaves
    // every result as it was, window flows and their ACKs included.
    let base = keshav_s1("500s", 2);
    let marker = "bandwidth = ";
    assert!(base.contains(marker));
    let one = base.replace(marker, "channels = 1\nchannel_buffers = \"private\"\nbandwidth = ");
    let (a, b) = (run(&base), run(&one));
    assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows));
    assert_eq!(format!("{:?}", a.ports), format!("{:?}", b.ports));
    assert_eq!(format!("{:?}", a.intervals), format!("{:?}", b.intervals));
    assert_eq!(format!("{:?}", a.queue_trace), format!("{:?}", b.queue_trace));
    assert_eq!(a.events, b.events);
    assert!(a.ports.iter().all(|p| p.channels == 1));
}

#[test]
fn a_trunk_carries_poisson_traffic_with_its_statistics_right() {
    // 8 sources of 500 pkt/s each: 4000 pkt/s offered to 4 channels of 1202 pkt/s
    // (load 0.83), B = 3 waiting places. M/D/4/7 loses little at that load.
    let text = poisson_trunk(8, "500pps", &[("channels", "4"), ("buffer", "\"3pkt\"")], "40s");
    let r = run(&text);
    let p = port(&r, "sw->sink");
    assert_eq!((p.channels, p.bandwidth_bps), (4, 10_000_000));
    let offered: u64 = r.flows.iter().map(|f| f.totals.sent).sum();
    // Everything sent reached the switch but the packets still on the access links.
    assert!(p.departures + p.drops <= offered && p.departures + p.drops + 8 >= offered);
    // M/M/4/7 would lose 9.3% (Cui's (3.15) at load 0.83); fixed sizes lose less.
    let loss = p.drops as f64 / offered as f64;
    assert!(loss > 0.02 && loss < 0.093, "{} drops of {offered}", p.drops);
    // Utilisation is busy channel-time over 4 x 40 s: here the carried load.
    let carried = p.bytes_departed as f64 * 8.0 / (4.0 * 10e6 * 40.0);
    assert!((p.utilisation - carried).abs() < 0.002, "{} against {carried}", p.utilisation);
    assert!(p.utilisation > 0.75 && p.utilisation < 0.85, "{}", p.utilisation);
    assert!(p.max_queue_packets == 3, "the buffer fills: {}", p.max_queue_packets);
    // Per interval too, and never above 1.
    let pi = &r.port_intervals;
    assert_eq!(pi.len(), 20);
    assert!(pi.utilisation.iter().all(|&u| u > 0.6 && u <= 1.0));
    let mean = pi.utilisation.iter().sum::<f64>() / pi.len() as f64;
    assert!((mean - p.utilisation).abs() < 0.01);
    assert!(pi.mean_queue_packets.iter().all(|&q| (0.0..=3.0).contains(&q)));
    // The queue trace never shows more than B waiting; the departure trace has every packet.
    assert!(r.queue_trace.packets.iter().all(|&q| q <= 3));
    assert!(r.queue_trace.packets.iter().any(|&q| q > 0));
    let (_, log) = r.departures.iter().find(|(port, _)| r.ports[*port as usize].name == "sw->sink").unwrap();
    assert_eq!(log.len() as u64, p.departures);
    // Four channels: at most four transmissions start in any packet time.
    let packet_time = 1040.0 * 8.0 / 10e6;
    assert!(log.time_s.windows(5).all(|w| w[4] - w[0] >= packet_time - 1e-12), "five starts within one packet time");
    assert!(log.wait_s.iter().all(|&w| w >= 0.0 && w <= 3.0 * packet_time + 1e-9), "nobody waits behind more than B");
}

#[test]
fn buffers_private_and_shared_compare_as_expected() {
    // Overload (load 1.25) on 4 channels: (utilisation, loss) without buffer, with a
    // one-packet buffer per channel, and with the same 4 places shared (Cui Figs 3.10-3.11,
    // spec §6 item 4).
    let outcome = |extra: &[(&str, &str)], size: &str| {
        let mut trunk = vec![("channels", "4")];
        trunk.extend_from_slice(extra);
        let r = run(&poisson_trunk_sized(12, "500pps", &trunk, "30s", size));
        let p = port(&r, "sw->sink").clone();
        (p.utilisation, p.drops as f64 / (p.drops + p.departures) as f64)
    };
    let fixed = "packet_size = \"1040B\"";
    let none = outcome(&[("buffer", "\"0pkt\"")], fixed);
    let private = outcome(&[("buffer", "\"1pkt\""), ("channel_buffers", "\"private\"")], fixed);
    let shared = outcome(&[("buffer", "\"4pkt\"")], fixed);
    let held = outcome(&[("buffer", "\"8pkt\""), ("count_in_service", "true")], fixed);
    assert_eq!(shared, held, "K + B held is B waiting");
    assert!(none.0 < shared.0 && none.1 > shared.1, "{none:?} {shared:?}");
    assert!(shared.0 <= 1.0 && shared.0 > 0.95, "{shared:?}");
    // With one packet size, a packet that joins the private buffer of the channel that
    // empties soonest starts exactly when the shared FIFO would start it: the two are the
    // same queue (the spec's reading of Fig 3.11 as a shared B = K is exact here).
    assert_eq!(private, shared);
    // With sizes that differ they are not: two packets waiting in the shared FIFO can both
    // go to a channel that frees early, while private buffers hold one each.
    let mix = "packet_sizes = [{ size = \"40B\", share = 0.5 }, { size = \"2040B\", share = 0.5 }]";
    let private = outcome(&[("buffer", "\"1pkt\""), ("channel_buffers", "\"private\"")], mix);
    let shared = outcome(&[("buffer", "\"4pkt\"")], mix);
    assert!(private.1 > shared.1 && private.0 < shared.0, "{private:?} {shared:?}");
}

#[test]
fn window_flows_over_a_trunk_conserve_their_packets() {
    // NewReno flows through a two-channel trunk whose ACKs return over the same two
    // channels: data and 40-byte ACKs of different sizes share the reverse trunk's lines.
    let mut s = ScenarioText::new("20s").measure("4s").nodes(&["a", "b", "c", "d"], &["sw", "sw2"]);
    for (h, sw) in [("a", "sw"), ("b", "sw"), ("c", "sw2"), ("d", "sw2")] {
        s = s.link(h, sw, "100Mbps").str("delay", "2ms");
    }
    let text = s
        .link("sw", "sw2", "5Mbps")
        .str("delay", "20ms")
        .raw("channels", 2)
        .str("buffer", "4pkt")
        .flow("a", "c")
        .flow("b", "d")
        .flow("d", "a")
        .build();
    let r = run(&text);
    let p = port(&r, "sw->sw2");
    assert_eq!(p.channels, 2);
    assert!(p.utilisation > 0.5 && p.utilisation <= 1.0, "{}", p.utilisation);
    assert!(r.flows.iter().all(|f| f.totals.delivered > 100));
}

/// `poisson_trunk` with one more key, run: the error.
fn err_with(trunk: &[(&str, &str)]) -> ScenarioError {
    let text = poisson_trunk(2, "10pps", trunk, "4s");
    match ccsim::run_toml(&text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e,
    }
}

fn assert_err(e: ScenarioError, path: &str, parts: &[&str]) {
    assert_eq!(e.path, path, "{e}");
    for part in parts {
        assert!(e.message.contains(part), "{:?} should contain {part:?}", e.message);
    }
}

#[test]
fn bad_channels_and_buffers_are_errors_naming_the_field() {
    // The trunk is links[2] (two access links first).
    for bad in ["0", "4097", "2.5", "\"4\"", "-1"] {
        assert_err(err_with(&[("channels", bad)]), "links[2].channels", &["an integer in [1, 4096]"]);
    }
    assert_err(err_with(&[("channels", "2"), ("queue", "\"red\"")]), "links[2].queue", &["\"droptail\"", "2 channels", "\"red\""]);
    assert_err(err_with(&[("channels", "2"), ("forward", "{ queue = \"fq\" }")]), "links[2].forward.queue", &["\"droptail\"", "\"fq\""]);
    assert_err(err_with(&[("buffer", "\"0pkt\"")]), "links[2].buffer", &["at least 1pkt", "count_in_service = false"]);
    assert_err(
        err_with(&[("channels", "4"), ("buffer", "\"3pkt\""), ("count_in_service", "true")]),
        "links[2].buffer",
        &["at least 4pkt", "count_in_service"],
    );
    assert_err(err_with(&[("channels", "4"), ("buffer", "\"0pkt\""), ("count_in_service", "true")]), "links[2].buffer", &["at least 1pkt"]);
    assert_err(
        err_with(&[("channels", "2"), ("buffer", "\"3000B\""), ("channel_buffers", "\"private\"")]),
        "links[2].buffer",
        &["packets", "private"],
    );
    assert_err(err_with(&[("channels", "2"), ("channel_buffers", "\"own\"")]), "links[2].channel_buffers", &["shared, private"]);
    // A discipline that raises signals elsewhere gives every port a control lane: refused.
    let text =
        poisson_trunk(2, "10pps", &[("channels", "2")], "4s").replacen("delay = \"1ms\"", "delay = \"1ms\"\nqueue = \"sq_router\"", 1);
    assert_err(ccsim::run_toml(&text).err().unwrap(), "links[2].channels", &["control packets"]);
    // The good neighbours of those values pass.
    for ok in [
        vec![("channels", "4096"), ("buffer", "\"0pkt\"")],
        vec![("channels", "4"), ("buffer", "\"4pkt\""), ("count_in_service", "true")],
        vec![("channels", "2"), ("buffer", "\"3000B\"")],
        vec![("channels", "2"), ("buffer", "\"unlimited\""), ("channel_buffers", "\"private\"")],
    ] {
        // (Not traced: 4096 channels could send more departures than a trace may hold.)
        run(&poisson_trunk(2, "10pps", &ok, "4s").replace("trace_departures = [\"sw->sink\"]\n", ""));
    }
}

/// A random small network with a trunk between two switches: random channels, buffer and
/// its counting and arrangement, jitter, delay changes, and a mix of window flows (every
/// other algorithm) and uncontrolled sources with their own packet sizes, in both
/// directions, so that data and ACKs of different sizes share the trunk's channels.
fn random_trunk(seed: u64) -> String {
    let mut rng = ccsim::sim::Rng::stream(seed, "random trunk");
    let mut pick = |n: u64| rng.next_u64() % n;
    let k = 1 + pick(6);
    let private = pick(3) == 0;
    let cis = pick(2) == 0;
    let buffer = if cis {
        if private {
            1 + pick(3)
        } else {
            k + pick(5)
        }
    } else {
        pick(5)
    };
    let (k, buffer) = if k == 1 && buffer == 0 { (1, 1) } else { (k, buffer) };
    let hosts = ["a", "b", "c", "d"];
    let mut s = ScenarioText::new(&format!("{}s", 10 + pick(20)))
        .raw("seed", seed)
        .measure("5s")
        .raw("discard", 0)
        .str("port_stats", "all")
        .nodes(&hosts, &["l", "r"]);
    for (h, sw) in [("a", "l"), ("b", "l"), ("c", "r"), ("d", "r")] {
        s = s.link(h, sw, ["10Mbps", "100Mbps", "1Mbps"][pick(3) as usize]).str("delay", format!("{}ms", 1 + pick(20)));
    }
    s = s
        .link("l", "r", ["1Mbps", "2Mbps", "5Mbps"][pick(3) as usize])
        .str("delay", format!("{}ms", 5 + pick(40)))
        .raw("channels", k)
        .str("buffer", format!("{buffer}pkt"))
        .raw("count_in_service", cis)
        .str("channel_buffers", if private { "private" } else { "shared" });
    if pick(2) == 0 {
        s = s.str("jitter", format!("{}ms", 1 + pick(5)));
    }
    if pick(2) == 0 {
        s = s.raw("changes", format!("[{{ at = \"{}s\", delay = \"{}ms\" }}]", 2 + pick(5), pick(10)));
    }
    for (i, (src, dst)) in [("a", "c"), ("b", "d"), ("c", "a"), ("d", "b"), ("a", "d")].into_iter().enumerate() {
        s = s.flow(src, dst).str("name", format!("f{i}")).str("packet_size", format!("{}B", [40, 576, 1040, 1500][pick(4) as usize]));
        s = match pick(4) {
            0 => s.str("app", "poisson").str("rate", format!("{}pps", 20 + pick(200))),
            1 => s.str("app", "cbr").str("rate", format!("{}pps", 20 + pick(200))),
            _ => s.str("cc", ["jk", "reno", "newreno", "vegas"][pick(4) as usize]).raw("max_window", 2 + pick(60)),
        };
    }
    s.build()
}

#[test]
fn random_trunks_run_conserve_packets_and_repeat_exactly() {
    let mut trunk_drops = 0;
    for seed in 0..40 {
        let text = random_trunk(seed);
        let r = run(&text); // conservation checked inside
        for p in &r.ports {
            assert!((0.0..=1.0).contains(&p.utilisation), "{}: {}\n{text}", p.name, p.utilisation);
        }
        assert!(!r.port_intervals.is_empty() && r.port_intervals.utilisation.iter().all(|&u| u <= 1.0));
        trunk_drops += port(&r, "l->r").drops + port(&r, "r->l").drops;
        let again = run(&text);
        assert_eq!(format!("{:?}", r.flows), format!("{:?}", again.flows), "not deterministic:\n{text}");
        assert_eq!(r.events, again.events);
    }
    assert!(trunk_drops > 1000, "the trunks were congested: {trunk_drops} drops");
}

#[test]
fn one_channel_without_buffer_takes_a_packet_only_when_idle() {
    // Cui's K = 1, B = 0 (Figs 3.42, 3.45 at K = 1): "0pkt" with count_in_service = false on a
    // link of one channel is a bufferless line. Nothing waits; the loss is the bufferless
    // one, above that of one waiting place; with count_in_service (the default) it is refused.
    let outcome = |trunk: &[(&str, &str)]| {
        let r = run(&poisson_trunk(8, "150pps", trunk, "20s"));
        let p = port(&r, "sw->sink").clone();
        let (_, log) = r.departures.iter().find(|(port, _)| r.ports[*port as usize].name == "sw->sink").unwrap();
        let waited = log.wait_s.iter().cloned().fold(0.0, f64::max);
        (p.drops as f64 / (p.drops + p.departures) as f64, waited, p.channels)
    };
    let none = outcome(&[("buffer", "\"0pkt\""), ("count_in_service", "false")]);
    let one = outcome(&[("buffer", "\"1pkt\""), ("count_in_service", "false")]);
    assert_eq!(none.2, 1);
    assert_eq!(none.1, 0.0, "no packet waits on a bufferless line");
    assert!(one.1 > 0.0 && none.0 > one.0 * 1.5, "{none:?} {one:?}");
    // Offered load 1200 of 1202 pkt/s from 8 sources: the loss sits near Engset's for 8 sources and one line.
    assert!(none.0 > 0.3 && none.0 < 0.6, "{none:?}");
    assert_err(err_with(&[("buffer", "\"0pkt\"")]), "links[2].buffer", &["count_in_service = false"]);
}
