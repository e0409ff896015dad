//! Run a scenario file and print per-flow batch means (a Rust-only quick look; the full CLI
//! is the Python `ccsim run`).

#[global_allocator]
static ALLOC: ccsim::mem::HugePageAlloc = ccsim::mem::HugePageAlloc;
use std::io::Write;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: runfile SCENARIO.toml");
        std::process::exit(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    };
    match ccsim::run_toml(&text) {
        Ok(r) => {
            // Written through a locked handle and errors ignored, so a reader that closes early
            // (`| head`) ends the output instead of panicking on a broken pipe.
            let mut out = std::io::stdout().lock();
            for f in &r.flows {
                let _ = writeln!(
                    out,
                    "{:12} goodput {:8.4} ± {:.4} pkt/s  delay {:8.4} ± {:.4} s  drops {:.4}/s  retx {:.4}/s  conserved {}",
                    f.name,
                    f.goodput_pps.mean,
                    f.goodput_pps.sd,
                    f.delay_s.mean,
                    f.delay_s.sd,
                    f.drop_rate.mean,
                    f.retx_rate.mean,
                    f.conserved
                );
            }
            let _ = writeln!(out, "events {} jain {:.4}", r.events, r.jain_goodput);
        }
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    }
}
