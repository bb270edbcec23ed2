//! What the layer counts of its connections, without a lock: the app's
//! /metrics renders them beside its own (app/metrics.rs).

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};

/// Connections and what the HTTP layer refused or dropped.
#[derive(Default)]
pub struct LayerCounts {
    /// Connections open now, in the table the caps count.
    pub open: AtomicU64,
    /// Connections refused at a cap, in their lingering close now.
    pub lingering: AtomicU64,
    /// Lingering closes cut short past their bound.
    pub lingering_cut: AtomicU64,
    /// Exports closed because their client took the answer too slowly.
    pub exports_too_slow: AtomicU64,
    /// Connections refused past `--max-connections` with none idle to close.
    pub refused_total: AtomicU64,
    /// Connections refused past `--max-connections-per-address`.
    pub refused_per_address: AtomicU64,
    /// Idle connections closed to make room for a new one.
    pub evicted: AtomicU64,
    /// Errors from accept() (out of descriptors or memory), each retried.
    pub accept_errors: AtomicU64,
    /// Access-log lines dropped because the writer fell behind.
    pub log_dropped: AtomicU64,
}

impl LayerCounts {
    /// Appends the counts to /metrics' text.
    pub fn render(&self, out: &mut String) {
        let l = |n: &AtomicU64| n.load(Ordering::Relaxed);
        let rows: [(&str, &str, &str, String); 7] = [
            (
                "area_connections_open",
                "gauge",
                "Client connections open now.",
                format!("{}", l(&self.open)),
            ),
            (
                "area_connections_lingering",
                "gauge",
                "Connections refused by a cap, in their lingering close now.",
                format!("{}", l(&self.lingering)),
            ),
            (
                "area_lingering_closes_cut_total",
                "counter",
                "Lingering closes of refused connections cut short past their bound.",
                format!("{}", l(&self.lingering_cut)),
            ),
            (
                "area_exports_too_slow_total",
                "counter",
                "Exports closed because their client took the answer too slowly.",
                format!("{}", l(&self.exports_too_slow)),
            ),
            (
                "area_connections_refused_total",
                "counter",
                "Connections refused or closed by a cap, by cap.",
                format!(
                    "{{cap=\"total\"}} {}\narea_connections_refused_total{{cap=\"per_address\"}} {}\narea_connections_refused_total{{cap=\"evicted_idle\"}} {}",
                    l(&self.refused_total),
                    l(&self.refused_per_address),
                    l(&self.evicted)
                ),
            ),
            (
                "area_accept_errors_total",
                "counter",
                "Errors from accept(), each retried.",
                format!("{}", l(&self.accept_errors)),
            ),
            (
                "area_access_log_dropped_total",
                "counter",
                "Access-log lines dropped while the writer fell behind.",
                format!("{}", l(&self.log_dropped)),
            ),
        ];
        for (name, kind, help, value) in rows {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
            if value.starts_with('{') {
                let _ = writeln!(out, "{name}{value}");
            } else {
                let _ = writeln!(out, "{name} {value}");
            }
        }
    }
}
