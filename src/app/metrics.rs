//! Counters for GET /metrics, in the Prometheus text format: requests by route
//! and status, a latency histogram by route, rate-limit refusals, and (read
//! when rendered) the database pool's busy and idle connections, the served
//! dataset, refused reloads, keys loaded, the usage backlog, the build and
//! the start time.

use std::collections::BTreeMap;
use std::fmt::Write;
#[cfg(test)]
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use super::sent::BodyBytes;
use crate::transport::LayerCounts;

/// The route label of a request no route matched.
pub const UNMATCHED: &str = "unmatched";

/// Upper bounds of the latency buckets, in seconds.
const BUCKETS: [f64; 11] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0,
];

#[derive(Default)]
struct Latency {
    counts: [u64; BUCKETS.len()],
    count: u64,
    sum: f64,
}

#[derive(Default)]
struct Counters {
    requests: BTreeMap<(&'static str, u16), u64>,
    latency: BTreeMap<&'static str, Latency>,
    rate_limited: u64,
}

/// Lines another part adds when rendered (Redis's state, access/redis/live.rs).
type Extra = Box<dyn Fn() -> String + Send + Sync>;

/// What /metrics says of the server beside its counters, read when rendered.
pub struct ServerState {
    /// The served dataset's load time (Unix seconds) and area count; None
    /// while no dataset serves.
    pub dataset: Option<(i64, i64)>,
    pub reload_failures: u64,
    pub keys_loaded: usize,
    /// Requests counted and not yet written to the usage file (or Redis).
    pub usage_backlog: u64,
}

#[derive(Default)]
pub struct Metrics {
    /// When the server started, Unix seconds.
    started: i64,
    inner: Mutex<Counters>,
    extra: OnceLock<Extra>,
    /// What the HTTP layer counts (transport/counters.rs), without a lock.
    pub layer: Arc<LayerCounts>,
    /// Bytes of answer bodies by coding (app/sent.rs), without a lock.
    pub body_bytes: Arc<BodyBytes>,
}

impl Metrics {
    pub fn new() -> Metrics {
        Metrics {
            started: crate::dates::now_unix(),
            ..Metrics::default()
        }
    }

    pub fn record(&self, route: &'static str, status: u16, elapsed: Duration) {
        let secs = elapsed.as_secs_f64();
        let mut c = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        *c.requests.entry((route, status)).or_default() += 1;
        if status == 429 {
            c.rate_limited += 1;
        }
        let l = c.latency.entry(route).or_default();
        l.count += 1;
        l.sum += secs;
        if let Some(i) = BUCKETS.iter().position(|&b| secs <= b) {
            l.counts[i] += 1;
        }
    }

    /// The text exposition; `pool` is (busy, idle) connections when the database is open.
    pub fn render(&self, pool: Option<(u32, u32)>) -> String {
        let c = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let mut out = String::new();
        out.push_str("# HELP area_requests_total Requests answered, by route and status.\n");
        out.push_str("# TYPE area_requests_total counter\n");
        for ((route, status), n) in &c.requests {
            let _ = writeln!(
                out,
                "area_requests_total{{route=\"{route}\",status=\"{status}\"}} {n}"
            );
        }
        out.push_str("# HELP area_request_duration_seconds Time to answer a request, by route.\n");
        out.push_str("# TYPE area_request_duration_seconds histogram\n");
        for (route, l) in &c.latency {
            let mut cumulative = 0;
            for (bound, n) in BUCKETS.iter().zip(l.counts) {
                cumulative += n;
                let _ = writeln!(
                    out,
                    "area_request_duration_seconds_bucket{{route=\"{route}\",le=\"{bound}\"}} {cumulative}"
                );
            }
            let _ = writeln!(
                out,
                "area_request_duration_seconds_bucket{{route=\"{route}\",le=\"+Inf\"}} {}",
                l.count
            );
            let _ = writeln!(
                out,
                "area_request_duration_seconds_sum{{route=\"{route}\"}} {}",
                l.sum
            );
            let _ = writeln!(
                out,
                "area_request_duration_seconds_count{{route=\"{route}\"}} {}",
                l.count
            );
        }
        out.push_str("# HELP area_rate_limited_total Requests refused with 429 rate_limited.\n");
        out.push_str("# TYPE area_rate_limited_total counter\n");
        let _ = writeln!(out, "area_rate_limited_total {}", c.rate_limited);
        out.push_str("# HELP area_db_connections Database connections (the requests' and the exports' pools), by state.\n");
        out.push_str("# TYPE area_db_connections gauge\n");
        let (busy, idle) = pool.unwrap_or((0, 0));
        let _ = writeln!(out, "area_db_connections{{state=\"busy\"}} {busy}");
        let _ = writeln!(out, "area_db_connections{{state=\"idle\"}} {idle}");
        self.layer.render(&mut out);
        self.body_bytes.render(&mut out);
        if let Some(extra) = self.extra.get() {
            out.push_str(&extra());
        }
        out
    }

    /// The lines of `state`, the build and the start time, for `render`'s end.
    pub fn render_state(&self, state: &ServerState, out: &mut String) {
        let mut series = |name: &str, kind: &str, help: &str, sample: Option<String>| {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
            if let Some(sample) = sample {
                let _ = writeln!(out, "{name}{sample}");
            }
        };
        let (loaded, areas) = state.dataset.unzip();
        series(
            "area_dataset_loaded_timestamp_seconds",
            "gauge",
            "When the served dataset was loaded, Unix seconds (absent while none serves).",
            loaded.map(|t| format!(" {t}")),
        );
        series(
            "area_dataset_areas",
            "gauge",
            "Areas in the served dataset (absent while none serves).",
            areas.map(|n| format!(" {n}")),
        );
        series(
            "area_reload_failures_total",
            "counter",
            "Reloads of the dataset refused since the start; the previous data served on.",
            Some(format!(" {}", state.reload_failures)),
        );
        series(
            "area_keys_loaded",
            "gauge",
            "API keys that may call (not revoked).",
            Some(format!(" {}", state.keys_loaded)),
        );
        series(
            "area_usage_backlog",
            "gauge",
            "Requests counted and not yet written to the usage file (or Redis).",
            Some(format!(" {}", state.usage_backlog)),
        );
        series(
            "area_build_info",
            "gauge",
            "The build serving, by version; always 1.",
            Some(format!("{{version=\"{}\"}} 1", env!("CARGO_PKG_VERSION"))),
        );
        series(
            "area_start_time_seconds",
            "gauge",
            "When the server started, Unix seconds.",
            Some(format!(" {}", self.started)),
        );
    }

    /// Adds `lines` to every rendering from now on.
    pub fn add(&self, lines: impl Fn() -> String + Send + Sync + 'static) {
        let _ = self.extra.set(Box::new(lines));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_counts_buckets_and_refusals() {
        let m = Metrics::new();
        m.record("get_area", 200, Duration::from_micros(800));
        m.record("get_area", 200, Duration::from_millis(20));
        m.record("get_area", 429, Duration::from_micros(100));
        let text = m.render(Some((1, 7)));
        assert!(text.contains("area_requests_total{route=\"get_area\",status=\"200\"} 2\n"));
        assert!(text.contains("area_requests_total{route=\"get_area\",status=\"429\"} 1\n"));
        assert!(
            text.contains(
                "area_request_duration_seconds_bucket{route=\"get_area\",le=\"0.001\"} 2\n"
            )
        );
        assert!(
            text.contains(
                "area_request_duration_seconds_bucket{route=\"get_area\",le=\"0.025\"} 3\n"
            )
        );
        assert!(text.contains("area_request_duration_seconds_count{route=\"get_area\"} 3\n"));
        assert!(text.contains("area_rate_limited_total 1\n"));
        assert!(text.contains("area_db_connections{state=\"idle\"} 7\n"));
        m.layer.open.store(3, Ordering::Relaxed);
        m.layer.refused_per_address.store(2, Ordering::Relaxed);
        let text = m.render(None);
        assert!(text.contains("area_connections_open 3\n"), "{text}");
        assert!(
            text.contains("area_connections_refused_total{cap=\"per_address\"} 2\n"),
            "{text}"
        );
        assert!(text.contains("area_access_log_dropped_total 0\n"), "{text}");
    }

    #[test]
    fn renders_the_server_state_with_help_and_type() {
        let m = Metrics::new();
        let mut state = ServerState {
            dataset: Some((1_700_000_000, 938)),
            reload_failures: 2,
            keys_loaded: 3,
            usage_backlog: 4,
        };
        let mut text = String::new();
        m.render_state(&state, &mut text);
        for line in [
            "# TYPE area_dataset_loaded_timestamp_seconds gauge\n",
            "area_dataset_loaded_timestamp_seconds 1700000000\n",
            "area_dataset_areas 938\n",
            "# TYPE area_reload_failures_total counter\n",
            "area_reload_failures_total 2\n",
            "area_keys_loaded 3\n",
            "area_usage_backlog 4\n",
            &format!(
                "area_build_info{{version=\"{}\"}} 1\n",
                env!("CARGO_PKG_VERSION")
            ),
            &format!("area_start_time_seconds {}\n", m.started),
        ] {
            assert!(text.contains(line), "{line} in {text}");
        }
        state.dataset = None;
        let mut text = String::new();
        m.render_state(&state, &mut text);
        assert!(!text.contains("\narea_dataset_areas "), "{text}");
        assert!(text.contains("# HELP area_dataset_areas "), "{text}");
    }
}
