//! Run a scenario file and print per-flow batch means (a Rust-only quick look; the full CLI
//! is the Python `ccsim run`).
fn main() {
    let path = std::env::args().nth(1).expect("usage: runfile SCENARIO.toml");
    let text = std::fs::read_to_string(&path).expect("read scenario");
    match ccsim::run_toml(&text) {
        Ok(r) => {
            for f in &r.flows {
                println!(
                    "{:12} goodput {:8.4} ± {:.4} pkt/s  delay {:8.4} ± {:.4} s  drops {:.4}/s  retx {:.4}/s  conserved {}",
                    f.name, f.goodput_pps.mean, f.goodput_pps.sd, f.delay_s.mean, f.delay_s.sd, f.drop_rate.mean, f.retx_rate.mean, f.conserved
                );
            }
            println!("events {} jain {:.4}", r.events, r.jain_goodput);
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
}
