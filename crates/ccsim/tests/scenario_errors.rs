//! Bad input: every error is an `Err` (never a panic) whose path names the offending field,
//! with a message saying what was expected.

mod common;
use ccsim::ScenarioError;
use common::*;

const BASE: &str = r#"
name = "base"
duration = "10s"
[measure]
interval = "2s"
discard = 1
[nodes]
hosts = ["h1", "h2", "island"]
switches = ["sw"]
[[links]]
between = ["h1", "sw"]
bandwidth = "800kbps"
buffer = "40pkt"
[[links]]
between = ["sw", "h2"]
bandwidth = "80kbps"
delay = "10ms"
[[flows]]
name = "f"
src = "h1"
dst = "h2"
app = "ftp"
cc = "jk"
max_window = 5
"#;

/// BASE with one line replaced (the line must exist exactly once).
fn with(old: &str, new: &str) -> String {
    assert_eq!(BASE.matches(old).count(), 1, "{old:?} must occur once in BASE");
    BASE.replacen(old, new, 1)
}

/// Run `text` (parse, validate, build, run) under catch_unwind: it must not panic and must
/// return an error, which is returned.
fn expect_err(text: &str) -> ScenarioError {
    let owned = text.to_string();
    let outcome = std::panic::catch_unwind(move || ccsim::run_toml(&owned));
    match outcome {
        Err(_) => panic!("the engine panicked on bad input:\n{text}"),
        Ok(Ok(r)) => {
            assert_conserved(&r);
            panic!("bad input was accepted:\n{text}")
        }
        Ok(Err(e)) => {
            // Display puts the path first.
            let shown = e.to_string();
            if !e.path.is_empty() {
                assert!(shown.starts_with(&e.path), "Display {shown:?} should start with the path {:?}", e.path);
            }
            assert!(!e.message.is_empty());
            e
        }
    }
}

fn assert_err(text: &str, path: &str, message_parts: &[&str]) -> ScenarioError {
    let e = expect_err(text);
    assert_eq!(e.path, path, "wrong path for error {e}");
    for part in message_parts {
        assert!(e.message.contains(part), "message {:?} should contain {part:?}", e.message);
    }
    e
}

#[test]
fn base_scenario_is_valid() {
    let r = run(BASE);
    assert!(r.flows[0].totals.delivered > 0);
}

#[test]
fn unknown_key_next_to_a_valid_one() {
    let e = assert_err(
        &with("bandwidth = \"80kbps\"\n", "bandwidth = \"80kbps\"\nbandwith = \"80kbps\"\n"),
        "links[1].bandwith",
        &["unknown key", "bandwith", "allowed keys"],
    );
    // The allowed keys are listed, the misspelt one's correct form among them.
    for k in ["bandwidth", "between", "buffer", "delay", "count_in_service"] {
        assert!(e.message.contains(k), "allowed keys in {:?} should include {k}", e.message);
    }
    assert!(e.to_string().contains("links[1].bandwith"));
}

#[test]
fn misspelt_required_key_is_reported_as_unknown_key() {
    // The user wrote `bandwith` instead of `bandwidth`: the error should name what they wrote.
    let e = expect_err(&with("bandwidth = \"800kbps\"", "bandwith = \"800kbps\""));
    assert!(e.to_string().contains("links[0].bandwith"), "error {e} should name links[0].bandwith");
    assert!(e.message.contains("bandwidth"), "error {e} should list the allowed keys");
}

#[test]
fn misspelt_required_key_is_at_least_an_error_on_that_link() {
    let e = expect_err(&with("bandwidth = \"800kbps\"", "bandwith = \"800kbps\""));
    assert!(e.path.starts_with("links[0]."), "error {e}");
}

#[test]
fn unknown_keys_at_every_level() {
    assert_err(&with("name = \"base\"", "name = \"base\"\nseeed = 3"), "seeed", &["unknown key", "seed"]);
    assert_err(&with("interval = \"2s\"", "interval = \"2s\"\nintervall = 1"), "measure.intervall", &["unknown key", "interval"]);
    assert_err(&with("switches = [\"sw\"]", "switches = [\"sw\"]\nrouters = [\"r\"]"), "nodes.routers", &["hosts", "switches"]);
    assert_err(&with("max_window = 5", "max_window = 5\nmax_windw = 6"), "flows[0].max_windw", &["unknown key", "max_window"]);
    assert_err(&with("max_window = 5", "max_window = 5\nparams = { rto_kk = 2 }"), "flows[0].params.rto_kk", &["unknown key", "rto_k"]);
    // beta belongs to the Generic protocol only.
    assert_err(&with("max_window = 5", "max_window = 5\nparams = { beta = 2 }"), "flows[0].params.beta", &["unknown key"]);
    assert_err(
        &with("delay = \"10ms\"", "delay = \"10ms\"\nforward = { bufer = \"3pkt\" }"),
        "links[1].forward.bufer",
        &["unknown key", "buffer"],
    );
}

#[test]
fn wrong_units() {
    assert_err(&with("bandwidth = \"800kbps\"", "bandwidth = \"80kg\""), "links[0].bandwidth", &["bandwidth", "80kg"]);
    assert_err(&with("delay = \"10ms\"", "delay = \"10 parsecs\""), "links[1].delay", &["duration"]);
    assert_err(&with("buffer = \"40pkt\"", "buffer = \"lots\""), "links[0].buffer", &["buffer"]);
    assert_err(&with("duration = \"10s\"", "duration = \"10kbps\""), "duration", &["duration"]);
    assert_err(&with("max_window = 5", "max_window = 5\npacket_size = \"1000kbps\""), "flows[0].packet_size", &["size"]);
    assert_err(&with("bandwidth = \"800kbps\"", "bandwidth = true"), "links[0].bandwidth", &["bandwidth"]);
}

#[test]
fn zero_and_negative_bandwidth() {
    for bad in ["\"0bps\"", "\"0kbps\"", "\"-5Mbps\"", "0", "-80000", "\"0.1bps\""] {
        assert_err(&with("bandwidth = \"80kbps\"", &format!("bandwidth = {bad}")), "links[1].bandwidth", &["bandwidth"]);
    }
}

#[test]
fn other_nonpositive_quantities() {
    assert_err(&with("buffer = \"40pkt\"", "buffer = \"0pkt\""), "links[0].buffer", &["buffer"]);
    assert_err(&with("duration = \"10s\"", "duration = \"0s\""), "duration", &["positive"]);
    assert_err(&with("duration = \"10s\"", "duration = \"-3s\""), "duration", &["duration"]);
    assert_err(&with("max_window = 5", "max_window = 5\npacket_size = \"0B\""), "flows[0].packet_size", &["size"]);
    assert_err(&with("max_window = 5", "max_window = 5\npacket_size = \"70000B\""), "flows[0].packet_size", &["65535"]);
}

#[test]
fn nonexistent_nodes() {
    assert_err(&with("dst = \"h2\"", "dst = \"nowhere\""), "flows[0].dst", &["nowhere", "h1", "h2"]);
    assert_err(&with("src = \"h1\"", "src = \"ghost\""), "flows[0].src", &["ghost"]);
    assert_err(&with("between = [\"sw\", \"h2\"]", "between = [\"sw\", \"h9\"]"), "links[1].between[1]", &["h9"]);
    assert_err(&with("dst = \"h2\"", "dst = \"sw\""), "flows[0].dst", &["switch"]);
    assert_err(&with("dst = \"h2\"", "dst = \"h1\""), "flows[0].dst", &["other than the source"]);
}

#[test]
fn destination_without_a_route() {
    // "island" is a host with no link at all.
    let e = assert_err(&with("dst = \"h2\"", "dst = \"island\""), "flows[0].dst", &["no route", "h1", "island"]);
    assert!(e.to_string().starts_with("flows[0].dst"));
    // Validation passes (routing is checked when the world is built).
    let sc = ccsim::Scenario::from_toml_str(&with("dst = \"h2\"", "dst = \"island\"")).expect("validates");
    assert!(ccsim::scenario::build::build_world(&sc).is_err());
}

#[test]
fn explicit_route_through_unlinked_nodes() {
    assert_err(&with("max_window = 5", "max_window = 5\nroute = [\"h1\", \"h2\"]"), "flows[0].route[1]", &["not joined by a link"]);
    assert_err(&with("max_window = 5", "max_window = 5\nroute = [\"h1\", \"sw\"]"), "flows[0].route", &["from \"h1\" to \"h2\""]);
}

#[test]
fn unknown_algorithm_names() {
    let e = assert_err(&with("cc = \"jk\"", "cc = \"bbr\""), "flows[0].cc", &["bbr"]);
    for name in ["generic", "jk", "reno", "newreno", "none"] {
        assert!(e.message.contains(name), "allowed names in {:?} should include {name}", e.message);
    }
    let e = assert_err(&with("app = \"ftp\"", "app = \"http\""), "flows[0].app", &["http"]);
    for name in ["ftp", "telnet", "poisson", "cbr", "onoff"] {
        assert!(e.message.contains(name));
    }
    assert_err(&with("buffer = \"40pkt\"", "buffer = \"40pkt\"\nqueue = \"red2\""), "links[0].queue", &["red2", "droptail", "red"]);
    assert_err(&with("cc = \"jk\"", "cc = \"none\""), "flows[0].cc", &["ftp"]);
}

#[test]
fn parameters_out_of_range() {
    assert_err(&with("max_window = 5", "max_window = 0"), "flows[0].max_window", &["[1, 100000000]", "0"]);
    assert_err(&with("max_window = 5", "max_window = -3"), "flows[0].max_window", &["[1, 100000000]", "-3"]);
    assert_err(&with("max_window = 5", "max_window = 1000000000"), "flows[0].max_window", &["[1, 100000000]"]);
    assert_err(&with("cc = \"jk\"", "cc = \"generic\"\nparams = { beta = -1 }"), "flows[0].params.beta", &["(0, 100]", "-1"]);
    assert_err(&with("cc = \"jk\"", "cc = \"generic\"\nparams = { beta = 0 }"), "flows[0].params.beta", &["(0, 100]"]);
    assert_err(&with("max_window = 5", "max_window = 5\nparams = { rto_k = -2 }"), "flows[0].params.rto_k", &["[0, 100]"]);
    assert_err(
        &with("cc = \"jk\"", "cc = \"dec\"\nparams = { beta = 2, rto_k = 2 }"),
        "flows[0].params.beta",
        &["rto_k or beta, not both"],
    );
    assert_err(&with("cc = \"jk\"", "cc = \"dec\"\nparams = { beta = 0 }"), "flows[0].params.beta", &["(0, 100]"]);
    // beta belongs to the timer formulas that take it; JK's is srtt + k x deviation.
    assert_err(&with("max_window = 5", "max_window = 5\nparams = { beta = 2 }"), "flows[0].params.beta", &["unknown key"]);
    assert_err(
        &with("max_window = 5", "max_window = 5\nparams = { initial_cwnd = 0.5 }"),
        "flows[0].params.initial_cwnd",
        &["[1, 1000000]"],
    );
    assert_err(
        &with("max_window = 5", "max_window = 5\nparams = { dupack_threshold = 0 }"),
        "flows[0].params.dupack_threshold",
        &["[1, 1000]"],
    );
    assert_err(&with("max_window = 5", "max_window = 5\nparams = { initial_rto = \"0s\" }"), "flows[0].params.initial_rto", &["positive"]);
    assert_err(
        &with("max_window = 5", "max_window = 5\nparams = { min_rto = \"2s\", max_rto = \"1s\" }"),
        "flows[0].params.max_rto",
        &["max_rto >= min_rto"],
    );
    // The Kalman variances are read by one helper for both packet-pair variants.
    for cc in ["pp", "pp2"] {
        let text = with("cc = \"jk\"", &format!("cc = \"{cc}\"\nparams = {{ kalman_obs_var = -1 }}"));
        assert_err(&text, "flows[0].params.kalman_obs_var", &["[0, 1000000000000000000]", "-1"]);
        let text = with("cc = \"jk\"", &format!("cc = \"{cc}\"\nparams = {{ kalman_system_var = \"big\" }}"));
        assert_err(&text, "flows[0].params.kalman_system_var", &["number"]);
    }
    // 10 s in 2 s intervals: 5 intervals, so at most 4 may be discarded.
    assert_err(&with("discard = 1", "discard = 5"), "measure.discard", &["5"]);
    assert_err(&with("discard = 1", "discard = 50"), "measure.discard", &["fewer than the 5"]);
    assert!(ccsim::run_toml(&with("discard = 1", "discard = 4")).is_ok(), "discard = 4 of 5 is allowed");
    assert_err(&with("interval = \"2s\"", "interval = \"20s\""), "measure.interval", &["no longer than the run"]);
    assert_err(&with("interval = \"2s\"", "interval = \"2s\"\ntrace_period = \"0s\""), "measure.trace_period", &["positive"]);
    assert_err(&with("max_window = 5", "max_window = 5\nstart = \"10s\""), "flows[0].start", &["before the end"]);
    assert_err(&with("max_window = 5", "max_window = 5\nstart = \"2s\"\nstop = \"1s\""), "flows[0].stop", &["after start"]);
    assert_err(
        &with("max_window = 5", "max_window = 5\nstart = \"6s\"\nstart_spread = \"4s\""),
        "flows[0].start_spread",
        &["before the end"],
    );
    assert_err(
        &with("max_window = 5", "max_window = 5\nstart_spread = \"3s\"\nstop = \"2s\""),
        "flows[0].stop",
        &["after start + start_spread"],
    );
    // Readings added for Liang, Hua and Keshav: choices and ranges name their field.
    let seif = with("cc = \"jk\"", "cc = \"seif\"\nparams = { feedback_retransmit = \"later\" }");
    assert_err(&seif, "flows[0].params.feedback_retransmit", &["window", "at_once"]);
    let router = with("buffer = \"40pkt\"", "buffer = \"40pkt\"\nqueue = \"seif_router\"\nqueue_params = { threshold_length = \"all\" }");
    assert_err(&router, "links[0].queue_params.threshold_length", &["buffer", "with_line"]);
    let dec = with("buffer = \"40pkt\"", "buffer = \"40pkt\"\nqueue = \"decbit\"\nqueue_params = { victim = \"oldest\" }");
    assert_err(&dec, "links[0].queue_params.victim", &["arriving", "size", "space"]);
    let pp = with("cc = \"jk\"", "cc = \"pp\"\nparams = { law = \"epoch\", epoch_gain = 0 }");
    assert_err(&pp, "flows[0].params.epoch_gain", &["(0, 2]"]);
    assert_err(&with("cc = \"jk\"", "cc = \"pp\"\nparams = { law = \"5.9\" }"), "flows[0].params.law", &["per_probe", "epoch"]);
    // A JCC flow reads its path's RED codes in its own units: they must be the ports'.
    let red = |q: &str, cc: &str| {
        let text = with("cc = \"jk\"", &format!("cc = \"jcc\"\nparams = {{ {cc} }}"));
        text.replacen("delay = \"10ms\"", &format!("delay = \"10ms\"\nqueue = \"red\"\nqueue_params = {{ {q} }}"), 1)
    };
    assert_err(&red("code_bits = 6", ""), "flows[0].params.code_bits", &["expected 6", "links[1] (sw -> h2)", "got 8"]);
    assert_err(&red("code_bits = 8, max_p = 0.2", ""), "flows[0].params.max_p", &["expected 0.2", "got 0.1"]);
    run(&red("code_bits = 6, max_p = 0.2", "code_bits = 6, max_p = 0.2"));
    run(&red("max_p = 0.2", "")); // a RED port that writes no codes
}

#[test]
fn wrong_types() {
    assert_err(&with("max_window = 5", "max_window = \"five\""), "flows[0].max_window", &["integer", "five"]);
    assert_err(&with("name = \"base\"", "name = 7"), "name", &["string"]);
    assert_err(&with("hosts = [\"h1\", \"h2\", \"island\"]", "hosts = \"h1\""), "nodes.hosts", &["list"]);
    assert_err(&with("hosts = [\"h1\", \"h2\", \"island\"]", "hosts = [\"h1\", \"h2\", \"island\", \"h1\"]"), "nodes.hosts[3]", &["twice"]);
    // A key given twice is a TOML error (whole-file, so no path).
    assert_err(&with("name = \"f\"", "name = \"f\"\nmax_window = 2"), "", &["not valid TOML"]);
}

#[test]
fn missing_required_fields() {
    assert_err(&BASE.replace("duration = \"10s\"\n", ""), "duration", &["required"]);
    assert_err(&with("src = \"h1\"\n", ""), "flows[0].src", &["required"]);
    assert_err(&with("bandwidth = \"800kbps\"\n", ""), "links[0].bandwidth", &["required"]);
}

#[test]
fn invalid_toml_syntax() {
    let e = expect_err(&with("max_window = 5", "max_window = = 5"));
    assert!(e.path.is_empty());
    assert!(e.message.contains("not valid TOML"), "{e}");
    assert!(e.message.contains("line"), "the line is given: {e}");
    let e = expect_err("duration = \"10s\"\n[nodes\nhosts = [\"a\"]\n");
    assert!(e.message.contains("not valid TOML (line 2)"), "{e}");
    let e = expect_err("");
    assert_eq!(e.path, "duration");
    let e = expect_err("\u{0}\u{1}garbage");
    assert!(e.message.contains("not valid TOML"));
}

#[test]
fn from_toml_str_agrees_with_run_toml() {
    // Errors found during validation come back from from_toml_str as well.
    let text = with("cc = \"jk\"", "cc = \"bbr\"");
    let a = ccsim::Scenario::from_toml_str(&text).unwrap_err();
    let b = ccsim::run_toml(&text).unwrap_err();
    assert_eq!(a, b);
}

/// Scenarios at the validator's limits (every time inside a run at most 1e6 s, the run itself
/// `run` long, at most 1.6e7 s) whose random or summed times can reach far beyond the run: the
/// engine must not panic on them.
fn accepted_but_overflowing(kind: &str) -> String {
    accepted_but_overflowing_in(kind, "1e6s")
}

fn accepted_but_overflowing_in(kind: &str, run: &str) -> String {
    let link_delay = if kind == "delay" { "1e6s" } else { "0s" };
    let flow = ScenarioText::new(run)
        .table("measure")
        .str("trace_cwnd", "none")
        .nodes(&["a", "b"], &[])
        .link("a", "b", "1Mbps")
        .str("delay", link_delay)
        .flow("a", "b");
    match kind {
        "cbr" => flow.str("app", "cbr").str("rate", "1e-6pps"), // gap 1e6 s
        "telnet" => flow.str("app", "telnet").str("mean_gap", "1e6s").str("start", "1s"),
        "delay" => flow.str("app", "ftp").str("cc", "jk").raw("max_window", 1).str("start", "9.9e5s"),
        _ => unreachable!(),
    }
    .build()
}

fn assert_no_panic(text: &str) {
    assert!(ccsim::Scenario::from_toml_str(text).is_ok(), "the validator accepts this scenario");
    let owned = text.to_string();
    let outcome = std::panic::catch_unwind(move || ccsim::run_toml(&owned));
    match outcome {
        Err(_) => panic!("the engine panicked on an accepted scenario:\n{text}"),
        Ok(Ok(r)) => assert_conserved(&r),
        Ok(Err(e)) => panic!("validated scenario failed to build: {e}"),
    }
}

#[test]
fn huge_cbr_gap_does_not_panic() {
    assert_no_panic(&accepted_but_overflowing("cbr"));
}

#[test]
fn huge_telnet_gap_does_not_panic() {
    assert_no_panic(&accepted_but_overflowing("telnet"));
}

#[test]
fn huge_link_delay_does_not_panic() {
    assert_no_panic(&accepted_but_overflowing("delay"));
}

#[test]
fn the_longest_run_does_not_overflow_the_clock() {
    for kind in ["cbr", "telnet", "delay"] {
        assert_no_panic(&accepted_but_overflowing_in(kind, "1.6e7s"));
    }
    // A packet's times add up past the clock's end: a 65 535-byte packet on a 1 bit/s line
    // (524 288 s), then 1e6 s of delay and up to 1e6 s of jitter, sent near the end.
    let slow = ScenarioText::new("1.6e7s")
        .table("measure")
        .str("trace_cwnd", "none")
        .nodes(&["a", "b"], &[])
        .link("a", "b", "1bps")
        .str("delay", "1e6s")
        .str("jitter", "1e6s")
        .flow("a", "b")
        .str("app", "poisson")
        .str("mean_gap", "1e6s")
        .str("packet_size", "65535B")
        .build();
    // About 1 seed in 300 reached the overflow before the port's times saturated.
    for seed in 1..2000 {
        assert_no_panic(&slow.replacen("[measure]", &format!("seed = {seed}\n[measure]"), 1));
    }
    let too_long = accepted_but_overflowing_in("cbr", "1.7e7s");
    assert_err(&too_long, "duration", &["up to 1.6e7 s"]);
}

#[test]
fn per_packet_rtt_samples_need_first_transmission_and_no_karn() {
    let text = with("cc = \"jk\"", "cc = \"generic\"\nparams = { rtt_samples = \"every_acked\", karn = true }");
    assert_err(&text, "flows[0].params.rtt_samples", &["rtt_sample = \"first\"", "karn = false"]);
    let text = with("cc = \"jk\"", "cc = \"generic\"\nparams = { rtt_samples = \"each\" }");
    assert_err(&text, "flows[0].params.rtt_samples", &["each_packet", "every_acked", "one_per_ack"]);
    let text = with("cc = \"jk\"", "cc = \"generic\"\nparams = { rtt_samples = \"each_packet\", rtt_sample = \"last\" }");
    assert_err(&text, "flows[0].params.rtt_samples", &["\"each_packet\"", "rtt_sample = \"first\""]);
    // Generic's default gives way to an explicit Karn's rule instead of failing.
    let text = with("cc = \"jk\"", "cc = \"generic\"\nparams = { karn = true }");
    assert!(ccsim::run_toml(&text).is_ok());
}

#[test]
fn sample_packet_and_fq_round_take_only_their_names() {
    let text = with("max_window = 5", "max_window = 5\nparams = { sample_packet = \"cumulativ\" }");
    assert_err(&text, "flows[0].params.sample_packet", &["echoed", "cumulative"]);
    let text = with("max_window = 5", "max_window = 5\nparams = { sample_packet = 1 }");
    expect_err(&text);
    let text = with("buffer = \"40pkt\"", "buffer = \"40pkt\"\nqueue = \"fq\"\nqueue_params = { round = \"scfq\" }");
    assert_err(&text, "links[0].queue_params.round", &["exact", "self_clocked"]);
    for ok in ["echoed", "cumulative"] {
        assert!(ccsim::run_toml(&with("max_window = 5", &format!("max_window = 5\nparams = {{ sample_packet = \"{ok}\" }}"))).is_ok());
    }
    let text = with("buffer = \"40pkt\"", "buffer = \"40pkt\"\nqueue = \"fq\"\nqueue_params = { round = \"self_clocked\" }");
    assert!(ccsim::run_toml(&text).is_ok());
}

#[test]
fn too_many_measurement_intervals_is_an_error_not_a_wrong_event() {
    // 10 s in 50 ns intervals: 2 x 10^8, past the 2^27 an event can number.
    let text = with("interval = \"2s\"", "interval = \"50ns\"");
    assert_err(&text, "measure.interval", &["at most 134217728", "longer interval"]);
}

#[test]
fn fq_charge_drops_takes_a_boolean_or_pushed_out() {
    let fq = |v: &str| with("buffer = \"40pkt\"", &format!("buffer = \"40pkt\"\nqueue = \"fq\"\nqueue_params = {{ charge_drops = {v} }}"));
    for bad in ["\"pushed\"", "1"] {
        assert_err(&fq(bad), "links[0].queue_params.charge_drops", &["true, false or \"pushed_out\""]);
    }
    for ok in ["true", "false", "\"pushed_out\""] {
        assert!(ccsim::run_toml(&fq(ok)).is_ok(), "{ok}");
    }
}

#[test]
fn link_delay_changes_must_be_in_time_order() {
    let text = with("delay = \"10ms\"", "delay = \"10ms\"\nchanges = [{ at = \"5s\", delay = \"1s\" }, { at = \"2s\", delay = \"0s\" }]");
    assert_err(&text, "links[1].changes[1].at", &["increasing time"]);
}

#[test]
fn trace_drops_takes_a_port_selection() {
    let text = with("discard = 1", "discard = 1\ntrace_drops = 3");
    assert_err(&text, "measure.trace_drops", &["true, false", "\"switches\"", "list of names"]);
    let text = with("discard = 1", "discard = 1\ntrace_drops = [\"sw->h3\"]");
    assert_err(&text, "measure.trace_drops[0]", &["no such name", "sw->h2"]);
    for ok in ["true", "false", "\"switches\"", "\"none\"", "[\"sw->h2\"]"] {
        assert!(ccsim::run_toml(&with("discard = 1", &format!("discard = 1\ntrace_drops = {ok}"))).is_ok(), "{ok}");
    }
    // Flow selections take no "switches".
    let text = with("discard = 1", "discard = 1\ntrace_cwnd = \"switches\"");
    assert_err(&text, "measure.trace_cwnd", &["list of names"]);
}

#[test]
fn a_zero_interval_says_it_must_be_positive() {
    let text = with("interval = \"2s\"", "interval = \"0s\"");
    assert_err(&text, "measure.interval", &["expected a positive duration"]);
}

#[test]
fn too_many_trace_rows_is_an_error_before_the_run() {
    // 10 s sampled every nanosecond: 10^10 samples of one flow's window and a switch queue.
    let text = with("discard = 1", "discard = 1\ntrace_period = \"1ns\"");
    assert_err(&text, "measure.trace_period", &["at most 67108864 trace rows", "longer trace_period"]);
    // Nothing traced, nothing to bound.
    let quiet = with("discard = 1", "discard = 1\ntrace_period = \"1ns\"\ntrace_cwnd = false\ntrace_queues = false");
    assert!(ccsim::run_toml(&quiet).is_ok());
}

#[test]
fn a_source_flooding_an_unlimited_host_queue_stops_the_run_with_an_error() {
    // A CBR source at 10^6 pkt/s into the host's own (unlimited) queue on an 800 kb/s line,
    // beside a well-behaved second flow: the queue grows by about 10^6 packets a second. With
    // the limit lowered to 1000 packets the run stops at about 1 ms; the error names the
    // flooding flow (it holds the most packets); nothing panics or exhausts memory.
    let text = with("cc = \"jk\"\nmax_window = 5", "cc = \"none\"\nrate = \"1000000pps\"").replace("app = \"ftp\"", "app = \"cbr\"")
        + "[[flows]]\nname = \"g\"\nsrc = \"h1\"\ndst = \"h2\"\napp = \"ftp\"\ncc = \"jk\"\nmax_window = 5\n";
    let text = text.replace("name = \"f\"\nsrc", "name = \"flood\"\nsrc");
    let sc = ccsim::Scenario::from_toml_str(&text).unwrap();
    let mut world = ccsim::scenario::build::build_world(&sc).unwrap();
    world.live_packet_limit = 1000;
    world.run();
    assert!(world.packets.live() <= 1000);
    assert!(world.now < ccsim::sim::time::from_secs(0.01), "stopped at once, not at the end");
    let e = match ccsim::finish(&sc, &mut world) {
        Err(e) => e,
        Ok(_) => panic!("an overflowing run gave results"),
    };
    assert_eq!(e.path, "flows[0]");
    for part in ["\"flood\"", "1000 packets queued or in flight", "unlimited queue", "buffer"] {
        assert!(e.message.contains(part), "{part:?} in {:?}", e.message);
    }
    // The same run is fine once the rate fits the line.
    let fits = text.replace("1000000pps", "50pps");
    assert!(ccsim::run_toml(&fits).is_ok());
}

#[test]
fn a_byte_order_mark_is_not_toml() {
    let r = ccsim::run_toml(&format!("\u{feff}{BASE}"));
    assert!(r.is_ok(), "{:?}", r.err());
}

#[test]
fn an_empty_transfer_and_byte_rates_are_errors_not_other_values() {
    assert_err(&with("max_window = 5", "max_window = 5\npackets = 0"), "flows[0].packets", &["positive number of packets", "leave it out"]);
    assert_err(
        &with("bandwidth = \"80kbps\"", "bandwidth = \"10KBps\""),
        "links[1].bandwidth",
        &["bits per second", "a capital B is bytes"],
    );
    assert_err(&with("max_window = 5", "max_window = 5\npacket_size = \"1.5kb\""), "flows[0].packet_size", &["a small b is bits"]);
}

#[test]
fn parallel_links_name_their_ports_apart() {
    // A second link between h1 and sw: its ports are h1->sw#2 and sw->h1#2, so a name in
    // trace_queues or in the results picks one port.
    let text = format!("{BASE}[[links]]\nbetween = [\"h1\", \"sw\"]\nbandwidth = \"800kbps\"\n")
        .replace("discard = 1", "discard = 1\ntrace_queues = [\"sw->h1#2\"]");
    let r = ccsim::run_toml(&text).unwrap();
    let names: Vec<&str> = r.ports.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["h1->sw", "sw->h1", "sw->h2", "h2->sw", "h1->sw#2", "sw->h1#2"]);
    let traced: std::collections::BTreeSet<u32> = r.queue_trace.port.iter().copied().collect();
    assert_eq!(traced.into_iter().collect::<Vec<_>>(), [5]);
}

#[test]
fn node_names_keep_clear_of_port_name_syntax() {
    for bad in ["a#2", "x->y"] {
        let text = with("hosts = [\"h1\", \"h2\", \"island\"]", &format!("hosts = [\"h1\", \"h2\", \"island\", \"{bad}\"]"));
        assert_err(&text, "nodes.hosts[3]", &["without \"#\" or \"->\""]);
    }
}

#[test]
fn ranged_integers_name_their_range_for_every_wrong_value() {
    for bad in ["-1", "0", "true", "2.5", "100000001"] {
        let text = with("max_window = 5", &format!("max_window = {bad}"));
        assert_err(&text, "flows[0].max_window", &["an integer in [1, 100000000]"]);
    }
    let text = with("max_window = 5", "max_window = 5\nfq_weight = -1");
    assert_err(&text, "flows[0].fq_weight", &["an integer in [1, 1000000]"]);
}

#[test]
fn a_trace_period_longer_than_the_run_is_an_error() {
    // (A delay change after the end is accepted, as a flow's stop is: a run shortened with
    // --duration keeps its file's later changes, which then never happen.)
    let text = with("discard = 1", "discard = 1\ntrace_period = \"20s\"");
    assert_err(&text, "measure.trace_period", &["no longer than the run"]);
}

#[test]
fn a_profile_needs_its_rate_and_a_bit_rate() {
    assert_err(&with("max_window = 5", "max_window = 5\nprofile_burst = \"3000B\""), "flows[0].profile_burst", &["profile_rate"]);
    assert_err(&with("max_window = 5", "max_window = 5\nprofile_rate = \"fast\""), "flows[0].profile_rate", &["bps"]);
    assert_err(
        &with("max_window = 5", "max_window = 5\nprofile_rate = \"40kbps\"\nprofile_burst = \"500B\""),
        "flows[0].profile_burst",
        &["largest packet (1000 bytes)"],
    );
    assert!(ccsim::Scenario::from_toml_str(&with("max_window = 5", "max_window = 5\nprofile_rate = \"40kbps\"")).is_ok());
}

#[test]
fn the_accumulating_queue_estimate_belongs_to_the_epoch_law() {
    let pp = |params: &str| with("cc = \"jk\"", &format!("cc = \"pp\"\nparams = {{ {params} }}"));
    assert_err(&pp("queue_estimate = \"accumulate\""), "flows[0].params.queue_estimate", &["law = \"epoch\""]);
    assert_err(&pp("law = \"epoch\", drift_reset = 10"), "flows[0].params.drift_reset", &["queue_estimate = \"accumulate\""]);
    assert_err(&pp("law = \"epoch\", queue_estimate = \"sum\""), "flows[0].params.queue_estimate", &["direct", "accumulate"]);
    assert!(ccsim::run_toml(&pp("law = \"epoch\", queue_estimate = \"accumulate\", drift_reset = 10")).is_ok());
}

#[test]
fn a_reservation_needs_a_virtual_clock_port_with_room_for_it() {
    let reserve = |rate: &str| format!("max_window = 5\nreserved_rate = \"{rate}\"");
    assert_err(&with("max_window = 5", &reserve("40kbps")), "flows[0].reserved_rate", &["virtual_clock"]);
    assert_err(&with("max_window = 5", &reserve("0bps")), "flows[0].reserved_rate", &["positive"]);
    let vc = with("delay = \"10ms\"", "delay = \"10ms\"\nqueue = \"virtual_clock\"");
    assert_err(&vc.replace("max_window = 5", &reserve("100kbps")), "flows[0].reserved_rate", &["above its line rate"]);
    assert_err(
        &vc.replace("queue = \"virtual_clock\"", "queue = \"virtual_clock\"\nqueue_params = { unreserved = \"x\" }"),
        "links[1].queue_params.unreserved",
        &["equal"],
    );
    assert!(ccsim::run_toml(&vc.replace("max_window = 5", &reserve("40kbps"))).is_ok());
}

#[test]
fn nagle_needs_a_window_a_writing_source_and_sizes_that_carry_data() {
    let telnet =
        |extra: &str| with("app = \"ftp\"\ncc = \"jk\"", &format!("app = \"telnet\"\ncc = \"jk\"\npacket_size = \"41B\"\n{extra}"));
    assert!(ccsim::run_toml(&telnet("nagle = true")).is_ok());
    assert_err(&with("app = \"ftp\"", "app = \"ftp\"\nnagle = true"), "flows[0].nagle", &["ftp"]);
    assert_err(
        &with("app = \"ftp\"\ncc = \"jk\"", "app = \"cbr\"\nrate = \"10pps\"\ncc = \"none\"\nnagle = true"),
        "flows[0].nagle",
        &["window"],
    );
    assert_err(&telnet("nagle_header = \"20B\""), "flows[0].nagle_header", &["nagle = true"]);
    assert_err(&telnet("nagle = true\nnagle_header = \"41B\""), "flows[0].nagle_header", &["above nagle_header", "41 B"]);
    // Telnet's keystroke is 41 B under the rule unless given; 40 B carries no data.
    assert!(ccsim::run_toml(&with("app = \"ftp\"\ncc = \"jk\"", "app = \"telnet\"\ncc = \"jk\"\nnagle = true")).is_ok());
    let forty = with("app = \"ftp\"\ncc = \"jk\"", "app = \"telnet\"\ncc = \"jk\"\npacket_size = \"40B\"\nnagle = true");
    assert_err(&forty, "flows[0].packet_size", &["(the default)", "\"41B\""]);
    // A 1000-byte write fits the default segment, which grows to the packet.
    assert!(ccsim::run_toml(&with("app = \"ftp\"", "app = \"cbr\"\nrate = \"5pps\"\nnagle = true")).is_ok());
    assert_err(&telnet("nagle = true\nnagle_segment = \"40B\""), "flows[0].nagle_segment", &["at least"]);
    assert_err(&telnet("nagle = true\nsource_buffer = 3"), "flows[0].nagle", &["source_buffer"]);
    assert_err(&telnet("nagle = \"yes\""), "flows[0].nagle", &["true or false"]);
}

#[test]
fn a_duplicate_key_is_named_whole() {
    for (text, key) in [
        ("name = \"a\"\nname = \"b\"\n", "`name`"),
        ("[measure]\ninterval = \"1s\"\n[measure]\n", "`measure`"),
        ("a.b = 1\na.b = 2\n", "`a.b`"),
        ("[x.y]\n[x.y]\n", "`x.y`"),
        ("name = \"é\"\nname = \"ü\"\n", "`name`"),
        ("params = { rto_k = 4, initial_cwnd = 2, rto_k = 2 }\n", "`rto_k`"),
    ] {
        let e = expect_err(text);
        assert!(e.message.contains(&format!("duplicate key {key}")), "{text:?}: {}", e.message);
    }
}
