//! The bounds the layer holds every connection to, and the two connection
//! caps: in all (`--max-connections`) and per client address
//! (`--max-connections-per-address`). docs/http-layer.md names the test of each.
//! How slowly an export may be taken is export_pace.rs's.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use super::access_log::Logged;
use super::export_pace::Pace;
use super::trusted_proxies::TrustedProxies;
use crate::error::{MAX_HEADER_BYTES, MAX_TARGET_BYTES};

/// Header lines a request may have; one more is 431 headers_too_large.
pub const MAX_HEADER_LINES: usize = 100;
/// Bytes a connection buffers while its head is incomplete: every head the
/// app would take fits, with room for the request line's method and version.
pub const MAX_HEAD_BYTES: usize = MAX_TARGET_BYTES + MAX_HEADER_BYTES + 1024;
/// A head not complete this long after its first byte closes its connection.
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// After an error answer: how long, and how much, the client's further bytes
/// are read and thrown away before the close, so that a reset never destroys
/// the answer (RFC 9112, section 9.6).
pub const LINGER_FOR: Duration = Duration::from_secs(2);
pub const LINGER_BYTES: usize = 64 * 1024;
/// `--max-connections` by default.
pub const DEFAULT_MAX_CONNECTIONS: usize = 10_000;
/// `--max-connections-per-address` by default; 0 turns the cap off.
pub const DEFAULT_MAX_PER_ADDRESS: usize = 64;
/// Descriptors kept back from connections for files and the database.
pub const DESCRIPTOR_RESERVE: usize = 64;
/// Requests of one connection answered in a row before others get a turn.
pub const REQUESTS_PER_TURN: usize = 16;

#[derive(Debug, Clone, PartialEq)]
pub struct ConnLimits {
    pub max_connections: usize,
    /// 0: no cap per address.
    pub per_address: usize,
    /// Count loopback clients too (only the per-address cap's own test).
    pub count_loopback: bool,
    /// Peers that are fronts: not counted by the per-address cap, and
    /// believed about the client (trusted_proxies.rs).
    pub fronts: TrustedProxies,
    /// How slowly a client may take an export (export_pace.rs).
    pub export_pace: Pace,
    /// Which answers the access log prints.
    pub access_log: Logged,
}

impl Default for ConnLimits {
    fn default() -> ConnLimits {
        ConnLimits {
            max_connections: DEFAULT_MAX_CONNECTIONS,
            per_address: DEFAULT_MAX_PER_ADDRESS,
            count_loopback: false,
            fronts: TrustedProxies::default(),
            export_pace: Pace::default(),
            access_log: Logged::default(),
        }
    }
}

impl ConnLimits {
    /// The cap in all, never above what the descriptor limit leaves.
    pub fn effective_max(&self) -> usize {
        self.max_connections.min(self.descriptor_room()).max(1)
    }

    /// Descriptors the connections may have, open and lingering together.
    pub fn descriptor_room(&self) -> usize {
        descriptor_limit().map_or(usize::MAX, |n| n.saturating_sub(DESCRIPTOR_RESERVE))
    }
}

/// What one client address is counted as: IPv4 whole, IPv6 by its /64.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AddrKey {
    V4(u32),
    V6Net(u64),
}

/// The key `peer` counts under, or None when it is not counted (loopback,
/// a front or a local tool, unless `count_loopback`).
pub fn addr_key(peer: &SocketAddr, count_loopback: bool) -> Option<AddrKey> {
    let ip = super::trusted_proxies::plain(peer.ip());
    if ip.is_loopback() && !count_loopback {
        return None;
    }
    Some(match ip {
        IpAddr::V4(v4) => AddrKey::V4(u32::from(v4)),
        IpAddr::V6(v6) => AddrKey::V6Net((u128::from(v6) >> 64) as u64),
    })
}

/// Open connections per counted address.
#[derive(Default)]
pub struct PerAddress(HashMap<AddrKey, usize>);

impl PerAddress {
    /// Counts one more for `key` if under `cap` (0: no cap); false if full.
    pub fn take(&mut self, key: AddrKey, cap: usize) -> bool {
        let n = self.0.entry(key).or_default();
        if cap != 0 && *n >= cap {
            return false;
        }
        *n += 1;
        true
    }

    pub fn give_back(&mut self, key: AddrKey) {
        if let Some(n) = self.0.get_mut(&key) {
            *n -= 1;
            if *n == 0 {
                self.0.remove(&key);
            }
        }
    }
}

/// The process's soft limit on open descriptors (Linux), if it can be read.
#[cfg(target_os = "linux")]
pub fn descriptor_limit() -> Option<usize> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit into the pointer given, which
    // points to one.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return None;
    }
    usize::try_from(lim.rlim_cur).ok()
}

#[cfg(not(target_os = "linux"))]
pub fn descriptor_limit() -> Option<usize> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(s: &str) -> Option<AddrKey> {
        addr_key(&s.parse().unwrap(), false)
    }

    #[test]
    fn loopback_is_not_counted_and_ipv6_counts_per_64() {
        assert_eq!(key("127.0.0.1:5"), None);
        assert_eq!(key("[::1]:5"), None);
        assert_eq!(key("[::ffff:127.0.0.1]:5"), None);
        assert_eq!(key("[::ffff:198.51.100.7]:5"), key("198.51.100.7:9"));
        assert_eq!(key("[2001:db8:1:2::1]:5"), key("[2001:db8:1:2:ffff::9]:7"));
        assert_ne!(key("[2001:db8:1:2::1]:5"), key("[2001:db8:1:3::1]:5"));
        assert!(addr_key(&"127.0.0.1:5".parse().unwrap(), true).is_some());
    }

    #[test]
    fn the_cap_per_address_holds_and_frees() {
        let mut counts = PerAddress::default();
        let k = key("198.51.100.7:1").unwrap();
        assert!(counts.take(k, 2) && counts.take(k, 2));
        assert!(!counts.take(k, 2));
        counts.give_back(k);
        assert!(counts.take(k, 2));
        assert!(counts.take(k, 0), "0 turns the cap off");
    }

    #[test]
    fn the_descriptor_limit_is_read() {
        assert!(descriptor_limit().is_some_and(|n| n > 0));
    }
}
