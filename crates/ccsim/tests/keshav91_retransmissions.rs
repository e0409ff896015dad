//! Keshav 1991 Scenario 2 (six FTPs and two Telnets, 25 buffers): retransmissions against
//! drops. The thesis's Table 6.4 prints equal drop and retransmission rates for every JK/FQ
//! source (0.06-0.08/s): each lost packet is sent again once, and nothing that arrived is.

fn run_shortened(stem: &str, duration: &str) -> ccsim::Results {
    let path = format!("{}/../../scenarios/keshav91/{stem}.toml", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let text = text.replacen("duration = \"2000s\"", &format!("duration = \"{duration}\""), 1);
    ccsim::run_toml(&text).unwrap_or_else(|e| panic!("{stem}: {e}"))
}

#[test]
fn jk_under_fq_resends_each_lost_packet_once() {
    // Under FQ a fast retransmission queues behind the flow's own packets (about 1.3 s); JK
    // restarts its timer when it sends it (4.3BSD), so the timer does not expire while the
    // retransmission is still queued and send it a third time.
    let r = run_shortened("s2-jk-fq", "750s");
    let mut drops = 0;
    for f in r.flows.iter().filter(|f| f.app == "ftp") {
        let t = &f.totals;
        assert!(t.data_dropped > 10, "{}: the scenario overloads the buffer ({} drops)", f.name, t.data_dropped);
        assert!(
            t.retransmitted <= t.data_dropped + 2,
            "{}: {} retransmissions for {} drops (duplicates received: {})",
            f.name,
            t.retransmitted,
            t.data_dropped,
            t.received - t.delivered
        );
        drops += t.data_dropped;
    }
    assert!(drops > 100);
}

#[test]
fn generic_retransmit_rule_is_honoured() {
    // "own_ack" (the default): a packet's own ACK stops its timer, so packets held out of order
    // at the sink are not resent. "expired": every packet whose timer runs out is resent, held
    // or not. The two must differ in the duplicates the sink receives.
    let duplicates = |rule: Option<&str>| -> u64 {
        let path = format!("{}/../../scenarios/keshav91/s2-g-fq.toml", env!("CARGO_MANIFEST_DIR"));
        let mut text = std::fs::read_to_string(&path).unwrap();
        text = text.replacen("duration = \"2000s\"", "duration = \"750s\"", 1);
        if let Some(rule) = rule {
            text = text.replace("cc = \"generic\"\n", &format!("cc = \"generic\"\nparams = {{ retransmit = \"{rule}\" }}\n"));
        }
        let r = ccsim::run_toml(&text).unwrap();
        r.flows.iter().filter(|f| f.app == "ftp").map(|f| f.totals.received - f.totals.delivered).sum()
    };
    let own_ack = duplicates(None);
    let own_ack_explicit = duplicates(Some("own_ack"));
    let expired = duplicates(Some("expired"));
    assert_eq!(own_ack, own_ack_explicit, "own_ack is the default");
    assert!(expired > 2 * own_ack + 20, "expired resends held packets: {expired} duplicates vs {own_ack} with own_ack");
}
