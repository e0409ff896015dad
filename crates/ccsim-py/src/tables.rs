//! A run's results as Python data: plain dicts for the summaries, numpy arrays for the
//! tables (one copy each).

use ccsim::results::{BatchMean, Results};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyModule};

fn bm<'py>(py: Python<'py>, b: &BatchMean) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("mean", b.mean)?;
    d.set_item("sd", b.sd)?;
    d.set_item("intervals", b.intervals)?;
    Ok(d)
}

/// A column of the run's tables, as a numpy array: one copy of the values into a bytes
/// object, which `numpy.frombuffer` then views. Python lists of floats cost 32 bytes a value
/// and pandas' conversion of them was most of the time `ccsim.Results` took for a traced run.
/// Integers go out as int64 and flags as bool, the dtypes pandas gave the lists before.
trait Column: Copy {
    const DTYPE: &'static str;
    const WIDTH: usize;
    fn write(self, out: &mut [u8]);
}

impl Column for f64 {
    const DTYPE: &'static str = "<f8";
    const WIDTH: usize = 8;
    fn write(self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_le_bytes());
    }
}

impl Column for u32 {
    const DTYPE: &'static str = "<i8";
    const WIDTH: usize = 8;
    fn write(self, out: &mut [u8]) {
        out.copy_from_slice(&(self as i64).to_le_bytes());
    }
}

impl Column for u64 {
    const DTYPE: &'static str = "<i8";
    const WIDTH: usize = 8;
    fn write(self, out: &mut [u8]) {
        // Counts and sequence numbers: far below 2^63.
        out.copy_from_slice(&(self as i64).to_le_bytes());
    }
}

impl Column for bool {
    const DTYPE: &'static str = "?";
    const WIDTH: usize = 1;
    fn write(self, out: &mut [u8]) {
        out[0] = self as u8;
    }
}

fn set_column<T: Column>(np: &Bound<'_, PyModule>, table: &Bound<'_, PyDict>, name: &str, values: &[T]) -> PyResult<()> {
    let py = table.py();
    let bytes = PyBytes::new_with(py, values.len() * T::WIDTH, |buf| {
        for (v, out) in values.iter().zip(buf.chunks_exact_mut(T::WIDTH)) {
            v.write(out);
        }
        Ok(())
    })?;
    table.set_item(name, np.call_method1("frombuffer", (bytes, T::DTYPE))?)
}

pub fn results_to_py<'py>(py: Python<'py>, r: &Results, wall: f64) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    let run = PyDict::new(py);
    run.set_item("name", &r.name)?;
    run.set_item("seed", r.seed)?;
    run.set_item("duration_s", r.duration_s)?;
    run.set_item("interrupted", r.interrupted)?;
    run.set_item("interval_s", r.interval_s)?;
    run.set_item("discard", r.discard)?;
    run.set_item("events", r.events)?;
    run.set_item("wall_seconds", wall)?;
    run.set_item("peak_packets", r.peak_packets)?;
    run.set_item("jain_goodput", r.jain_goodput)?;
    run.set_item("conserved", r.conserved)?;
    out.set_item("run", run)?;

    let flows = PyList::empty(py);
    for f in &r.flows {
        let d = PyDict::new(py);
        d.set_item("name", &f.name)?;
        d.set_item("src", &f.src)?;
        d.set_item("dst", &f.dst)?;
        d.set_item("app", f.app)?;
        d.set_item("cc", f.cc)?;
        d.set_item("packet_size", f.packet_size)?;
        let t = &f.totals;
        let totals = PyDict::new(py);
        totals.set_item("sent", t.sent)?;
        totals.set_item("retransmitted", t.retransmitted)?;
        totals.set_item("delivered", t.delivered)?;
        totals.set_item("delivered_bytes", t.delivered_bytes)?;
        totals.set_item("received", t.received)?;
        totals.set_item("originals", t.originals)?;
        totals.set_item("data_dropped", t.data_dropped)?;
        totals.set_item("acks_sent", t.acks_sent)?;
        totals.set_item("acks_received", t.acks_received)?;
        totals.set_item("acks_dropped", t.acks_dropped)?;
        totals.set_item("data_in_network", f.data_in_network)?;
        totals.set_item("acks_in_network", f.acks_in_network)?;
        totals.set_item("timeouts", f.timeouts)?;
        totals.set_item("source_discards", f.source_discards)?;
        totals.set_item("nagle_writes", f.nagle_writes)?;
        totals.set_item("nagle_held_bytes", f.nagle_held_bytes)?;
        totals.set_item("control_sent", f.control.sent)?;
        totals.set_item("control_received", f.control.received)?;
        totals.set_item("control_dropped", f.control.dropped)?;
        totals.set_item("control_unroutable", f.control.unroutable)?;
        totals.set_item("control_in_network", f.control_in_network)?;
        d.set_item("totals", totals)?;
        d.set_item("goodput_pps", bm(py, &f.goodput_pps)?)?;
        d.set_item("original_pps", bm(py, &f.original_pps)?)?;
        d.set_item("goodput_bps", bm(py, &f.goodput_bps)?)?;
        d.set_item("delay_s", bm(py, &f.delay_s)?)?;
        d.set_item("owd_s", bm(py, &f.owd_s)?)?;
        d.set_item("drop_rate", bm(py, &f.drop_rate)?)?;
        d.set_item("retx_rate", bm(py, &f.retx_rate)?)?;
        d.set_item("final_cwnd", f.final_cwnd)?;
        d.set_item("price_estimate", f.price_estimate)?;
        d.set_item("conserved", f.conserved)?;
        flows.append(d)?;
    }
    out.set_item("flows", flows)?;

    let ports = PyList::empty(py);
    for p in &r.ports {
        let d = PyDict::new(py);
        d.set_item("name", &p.name)?;
        d.set_item("bandwidth_bps", p.bandwidth_bps)?;
        d.set_item("channels", p.channels)?;
        d.set_item("delay_s", p.delay_s)?;
        d.set_item("departures", p.departures)?;
        d.set_item("bytes_departed", p.bytes_departed)?;
        d.set_item("drops", p.drops)?;
        d.set_item("utilisation", p.utilisation)?;
        d.set_item("max_queue_packets", p.max_queue_packets)?;
        d.set_item("max_queue_bytes", p.max_queue_bytes)?;
        d.set_item("marks", p.marks)?;
        d.set_item("control_drops", p.control_drops)?;
        d.set_item("lost", p.lost)?;
        // Before the counters, so every run's table starts with the same columns.
        d.set_item("state_name", p.state.map(|(name, _)| name))?;
        d.set_item("final_state", p.state.map_or(f64::NAN, |(_, v)| v))?;
        for &(name, v) in &p.counters {
            d.set_item(name, v)?;
        }
        ports.append(d)?;
    }
    out.set_item("ports", ports)?;

    let np = py.import("numpy")?;
    let it = &r.intervals;
    let iv = PyDict::new(py);
    set_column(&np, &iv, "flow", &it.flow)?;
    set_column(&np, &iv, "interval", &it.interval)?;
    set_column(&np, &iv, "start_s", &it.start_s)?;
    set_column(&np, &iv, "end_s", &it.end_s)?;
    set_column(&np, &iv, "goodput_pps", &it.goodput_pps)?;
    set_column(&np, &iv, "original_pps", &it.original_pps)?;
    set_column(&np, &iv, "goodput_bps", &it.goodput_bps)?;
    set_column(&np, &iv, "delay_s", &it.delay_s)?;
    set_column(&np, &iv, "delay_samples", &it.delay_samples)?;
    set_column(&np, &iv, "owd_s", &it.owd_s)?;
    set_column(&np, &iv, "drop_rate", &it.drop_rate)?;
    set_column(&np, &iv, "retx_rate", &it.retx_rate)?;
    set_column(&np, &iv, "sent", &it.sent)?;
    set_column(&np, &iv, "delivered", &it.delivered)?;
    set_column(&np, &iv, "drops", &it.drops)?;
    set_column(&np, &iv, "retransmitted", &it.retransmitted)?;
    set_column(&np, &iv, "feedback", &it.feedback)?;
    set_column(&np, &iv, "feedback_bytes", &it.feedback_bytes)?;
    out.set_item("intervals", iv)?;

    let c = &r.cwnd_trace;
    let cw = PyDict::new(py);
    set_column(&np, &cw, "flow", &c.flow)?;
    set_column(&np, &cw, "time_s", &c.time_s)?;
    set_column(&np, &cw, "cwnd", &c.cwnd)?;
    set_column(&np, &cw, "ssthresh", &c.ssthresh)?;
    set_column(&np, &cw, "outstanding", &c.outstanding)?;
    set_column(&np, &cw, "srtt_s", &c.srtt_s)?;
    for (name, values) in &c.extra {
        set_column(&np, &cw, name, values)?;
    }
    out.set_item("cwnd_trace", cw)?;

    // The algorithms' event logs, one table each (packet-pair's "probes").
    let events = PyDict::new(py);
    for e in &r.event_traces {
        let t = PyDict::new(py);
        set_column(&np, &t, "flow", &e.flow)?;
        set_column(&np, &t, "time_s", &e.time_s)?;
        set_column(&np, &t, e.index_name, &e.index)?;
        for (name, values) in e.columns.iter().zip(&e.values) {
            set_column(&np, &t, name, values)?;
        }
        events.set_item(e.table, t)?;
    }
    out.set_item("event_traces", events)?;

    let q = &r.queue_trace;
    let qt = PyDict::new(py);
    set_column(&np, &qt, "port", &q.port)?;
    set_column(&np, &qt, "time_s", &q.time_s)?;
    set_column(&np, &qt, "packets", &q.packets)?;
    set_column(&np, &qt, "bytes", &q.bytes)?;
    set_column(&np, &qt, "state", &q.state)?;
    out.set_item("queue_trace", qt)?;

    let d = &r.drop_trace;
    let dt = PyDict::new(py);
    set_column(&np, &dt, "time_s", &d.time_s)?;
    set_column(&np, &dt, "port", &d.port)?;
    set_column(&np, &dt, "flow", &d.flow)?;
    set_column(&np, &dt, "seq", &d.seq)?;
    set_column(&np, &dt, "ack", &d.ack)?;
    set_column(&np, &dt, "retransmission", &d.retransmission)?;
    set_column(&np, &dt, "queue_packets", &d.queue_packets)?;
    set_column(&np, &dt, "conv_queued", &d.conv_queued)?;
    set_column(&np, &dt, "longest_other", &d.longest_other)?;
    out.set_item("drop_trace", dt)?;

    let pi = &r.port_intervals;
    let pt = PyDict::new(py);
    set_column(&np, &pt, "port", &pi.port)?;
    set_column(&np, &pt, "interval", &pi.interval)?;
    set_column(&np, &pt, "start_s", &pi.start_s)?;
    set_column(&np, &pt, "end_s", &pi.end_s)?;
    set_column(&np, &pt, "utilisation", &pi.utilisation)?;
    set_column(&np, &pt, "departures", &pi.departures)?;
    set_column(&np, &pt, "bytes", &pi.bytes)?;
    set_column(&np, &pt, "drops", &pi.drops)?;
    set_column(&np, &pt, "marks", &pi.marks)?;
    set_column(&np, &pt, "control_drops", &pi.control_drops)?;
    set_column(&np, &pt, "lost", &pi.lost)?;
    set_column(&np, &pt, "mean_queue_packets", &pi.mean_queue_packets)?;
    set_column(&np, &pt, "mean_queue_bytes", &pi.mean_queue_bytes)?;
    out.set_item("port_intervals", pt)?;

    // Departures of every traced port, one table (a port column says where).
    let dep = PyDict::new(py);
    let port_col: Vec<u32> = r.departures.iter().flat_map(|(p, d)| std::iter::repeat_n(*p, d.len())).collect();
    let cat = |f: &dyn Fn(&ccsim::measure::DepartureLog) -> Vec<f64>| -> Vec<f64> { r.departures.iter().flat_map(|(_, d)| f(d)).collect() };
    set_column(&np, &dep, "port", &port_col)?;
    set_column(&np, &dep, "time_s", &cat(&|d| d.time_s.clone()))?;
    let flows_col: Vec<u32> = r.departures.iter().flat_map(|(_, d)| d.flow.iter().copied()).collect();
    set_column(&np, &dep, "flow", &flows_col)?;
    let class_col: Vec<u32> = r.departures.iter().flat_map(|(_, d)| d.class.iter().map(|&c| c as u32)).collect();
    set_column(&np, &dep, "class", &class_col)?;
    let kind_col: Vec<u32> = r.departures.iter().flat_map(|(_, d)| d.kind.iter().map(|&k| k as u32)).collect();
    set_column(&np, &dep, "kind", &kind_col)?;
    let size_col: Vec<u32> = r.departures.iter().flat_map(|(_, d)| d.size.iter().copied()).collect();
    set_column(&np, &dep, "size", &size_col)?;
    set_column(&np, &dep, "wait_s", &cat(&|d| d.wait_s.clone()))?;
    out.set_item("departures", dep)?;
    Ok(out)
}
