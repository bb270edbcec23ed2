//! `serve`'s flags and variables: the dataset and keys, the address, the
//! workers and timeouts, the HTTP layer's caps and trusted fronts, and the
//! exports one key may stream.

use std::time::Duration;

use super::{
    CLIENT_TIMEOUT_SECS, Command, Context, DEFAULT_ADDR, DEFAULT_CLIENT_TIMEOUT_SECS,
    EXPORTS_PER_KEY, Files, MAX_CONNECTIONS, MAX_CONNECTIONS_PER_ADDRESS, UsageError, WORKERS,
    default_workers, number, usage_error,
};
use crate::app::exports::DEFAULT_MAX_EXPORTS_PER_KEY;
use crate::cli::flags::Flags;
use crate::cli::help::SERVE_USAGE;
use crate::server::ServeConfig;
use crate::transport::trusted_proxies::{
    TRUSTED_FRONT_FLAG, TRUSTED_FRONT_VARIABLE, TrustedProxies,
};
use crate::transport::{ConnLimits, Logged};

impl Context<'_> {
    pub(super) fn serve(&self, args: &[String]) -> Result<Command, UsageError> {
        let valued = [
            "--db",
            "--keys",
            "--addr",
            "--workers",
            "--client-timeout",
            "--metrics-addr",
            "--max-connections",
            "--max-connections-per-address",
            "--max-exports-per-key",
            "--access-log",
            TRUSTED_FRONT_FLAG,
        ];
        let f = match self.flags(args, SERVE_USAGE, &valued, &[], 0)? {
            Ok(f) => f,
            Err(help) => return Ok(help),
        };
        let workers = number(
            self.setting(&f, "--workers", "AREA_WORKERS"),
            "--workers",
            WORKERS,
            "a number",
            SERVE_USAGE,
        )?;
        let client_timeout = number(
            self.setting(&f, "--client-timeout", "AREA_CLIENT_TIMEOUT"),
            "--client-timeout",
            CLIENT_TIMEOUT_SECS,
            "a number of seconds",
            SERVE_USAGE,
        )?;
        let limits = self.conn_limits(&f)?;
        let exports_per_key = number(
            self.setting(&f, "--max-exports-per-key", "AREA_MAX_EXPORTS_PER_KEY"),
            "--max-exports-per-key",
            EXPORTS_PER_KEY,
            "a number",
            SERVE_USAGE,
        )?;
        let Files { db, keys, redis } = self.files(&f);
        Ok(Command::Serve(ServeConfig {
            limits,
            exports_per_key: exports_per_key.unwrap_or(DEFAULT_MAX_EXPORTS_PER_KEY),
            db,
            keys,
            redis,
            addr: self
                .setting(&f, "--addr", "AREA_ADDR")
                .unwrap_or_else(|| DEFAULT_ADDR.into()),
            workers: workers.unwrap_or_else(default_workers),
            client_timeout: Duration::from_secs(
                client_timeout.unwrap_or(DEFAULT_CLIENT_TIMEOUT_SECS),
            ),
            metrics_addr: self.setting(&f, "--metrics-addr", "AREA_METRICS_ADDR"),
        }))
    }

    /// The connection caps and the fronts whose X-Real-IP is believed.
    fn conn_limits(&self, f: &Flags) -> Result<ConnLimits, UsageError> {
        let max_connections = number(
            self.setting(f, "--max-connections", "AREA_MAX_CONNECTIONS"),
            "--max-connections",
            MAX_CONNECTIONS,
            "a number",
            SERVE_USAGE,
        )?;
        let per_address = number(
            self.setting(
                f,
                "--max-connections-per-address",
                "AREA_MAX_CONNECTIONS_PER_ADDRESS",
            ),
            "--max-connections-per-address",
            MAX_CONNECTIONS_PER_ADDRESS,
            "a number (0 for no cap)",
            SERVE_USAGE,
        )?;
        // An empty variable, as `systemctl edit` leaves one cleared, names none.
        let fronts = f
            .value(TRUSTED_FRONT_FLAG)
            .or_else(|| (self.env)(TRUSTED_FRONT_VARIABLE).filter(|v| !v.trim().is_empty()));
        let fronts = fronts.as_deref().map(TrustedProxies::parse).transpose();
        let access_log = self
            .setting(f, "--access-log", "AREA_ACCESS_LOG")
            .map(|word| Logged::parse(&word))
            .transpose()
            .map_err(usage_error(SERVE_USAGE))?;
        let defaults = ConnLimits::default();
        let limits = ConnLimits {
            access_log: access_log.unwrap_or_default(),
            max_connections: max_connections.unwrap_or(defaults.max_connections),
            per_address: per_address.unwrap_or(defaults.per_address),
            fronts: fronts
                .map_err(usage_error(SERVE_USAGE))?
                .unwrap_or_default(),
            ..defaults
        };
        // The tests of the slow-export rule cannot wait its minute.
        #[cfg(feature = "fault-injection")]
        let limits = match (self.env)("AREA_FAULT_EXPORT_PACE") {
            Some(pace) => ConnLimits {
                export_pace: crate::transport::export_pace::Pace::parse(&pace)
                    .map_err(usage_error(SERVE_USAGE))?,
                ..limits
            },
            None => limits,
        };
        Ok(limits)
    }
}
