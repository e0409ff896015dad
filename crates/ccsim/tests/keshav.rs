//! Keshav 1991 Scenario 1 ("no stress"), JK sources with an FCFS switch: the example file
//! must reproduce the thesis's numbers (Tables 6.2/6.3): each FTP 4.99 packets/s with 1.00 s
//! RTT, each Telnet about 0.95 s RTT.

mod common;
use common::*;

fn check_s1(r: &ccsim::Results, measured_intervals: usize) {
    assert_eq!(r.flows.len(), 4);
    for f in &r.flows {
        assert_eq!(f.cc, "jk");
        assert_eq!(f.goodput_pps.intervals, measured_intervals, "flow {}", f.name);
        // No stress: nothing is dropped.
        assert_eq!(f.totals.data_dropped, 0, "flow {}", f.name);
        assert_eq!(f.totals.acks_dropped, 0, "flow {}", f.name);
    }
    let ftps: Vec<_> = r.flows.iter().filter(|f| f.app == "ftp").collect();
    let telnets: Vec<_> = r.flows.iter().filter(|f| f.app == "telnet").collect();
    assert_eq!((ftps.len(), telnets.len()), (2, 2));
    for f in &ftps {
        assert!((f.goodput_pps.mean - 4.99).abs() <= 0.05, "{} goodput {} pkt/s, thesis 4.99", f.name, f.goodput_pps.mean);
        assert!((f.delay_s.mean - 1.00).abs() <= 0.03, "{} RTT {} s, thesis 1.00", f.name, f.delay_s.mean);
        assert_eq!(f.totals.retransmitted, 0, "{}", f.name);
        assert_eq!(f.timeouts, 0, "{}", f.name);
        // Window-limited at 5.
        assert_eq!(f.final_cwnd, 5.0, "{}", f.name);
    }
    for f in &telnets {
        assert!((f.delay_s.mean - 0.95).abs() <= 0.05, "{} RTT {} s, thesis about 0.95", f.name, f.delay_s.mean);
        // One 40-byte keystroke per 5 s on average.
        assert!((f.goodput_pps.mean - 0.2).abs() <= 0.05, "{} goodput {}", f.name, f.goodput_pps.mean);
    }
    // The FTPs share the line equally, and the line is saturated.
    let j = ftps[0].goodput_pps.mean / ftps[1].goodput_pps.mean;
    assert!((j - 1.0).abs() < 0.01);
    assert!(port(r, "switch->sink").utilisation > 0.99);
    assert!(port(r, "switch->sink").max_queue_packets <= 40);
}

#[test]
fn keshav_s1_jk_fcfs_example_file() {
    let text = include_str!("../../../scenarios/examples/keshav-s1-jk-fcfs.toml");
    let r = run(text);
    assert_eq!(r.duration_s, 2000.0);
    assert_eq!(r.interval_s, 250.0);
    check_s1(&r, 7);
}

#[test]
fn keshav_s1_jk_fcfs_shortened_to_1000s() {
    let r = run(&keshav_s1("1000s", 1));
    assert_eq!(r.interval_s, 250.0);
    check_s1(&r, 3);
}

#[test]
fn keshav_s1_holds_for_other_seeds() {
    for seed in [2, 3, 4] {
        check_s1(&run(&keshav_s1("1000s", seed)), 3);
    }
}
