//! The fronts whose word about the client is believed: a peer on loopback
//! (the nginx front on this host) and the addresses named by
//! `--trusted-front` (fronts on other hosts). Such a peer's `X-Real-IP` is
//! the client that requests without a key are limited as, and the
//! per-address connection cap does not count it (docs/deployment.md, "What
//! the front is for").

use std::fmt;
use std::net::IpAddr;

/// The flag naming fronts on other hosts, and its variable.
pub const TRUSTED_FRONT_FLAG: &str = "--trusted-front";
pub const TRUSTED_FRONT_VARIABLE: &str = "AREA_TRUSTED_FRONT";

/// Loopback peers and the named fronts; none named by default.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TrustedProxies {
    named: Vec<IpAddr>,
}

impl TrustedProxies {
    /// `ADDR[,ADDR…]`: IPv4 or IPv6 addresses, without ports.
    pub fn parse(list: &str) -> Result<TrustedProxies, String> {
        let named = list
            .split(',')
            .map(|item| {
                let item = item.trim();
                item.parse::<IpAddr>().map(plain).map_err(|_| {
                    format!(
                        "{TRUSTED_FRONT_FLAG} takes IP addresses separated by commas \
                         (no ports), not '{item}'"
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(TrustedProxies { named })
    }

    /// Whether `peer` is a front: on loopback, or named.
    pub fn trusts(&self, peer: IpAddr) -> bool {
        plain(peer).is_loopback() || self.names(peer)
    }

    /// Whether `peer` is one of the named fronts.
    pub fn names(&self, peer: IpAddr) -> bool {
        self.named.contains(&plain(peer))
    }

    /// The client to rate-limit without a key: the peer, or, when the peer
    /// is a front, the address it passes in X-Real-IP.
    pub fn client(&self, peer: IpAddr, real_ip: Option<&str>) -> IpAddr {
        match real_ip.and_then(|v| v.trim().parse::<IpAddr>().ok()) {
            Some(real) if self.trusts(peer) => plain(real),
            _ => plain(peer),
        }
    }
}

impl fmt::Display for TrustedProxies {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let named: Vec<String> = self.named.iter().map(IpAddr::to_string).collect();
        write!(f, "{}", named.join(", "))
    }
}

/// An IPv4 address as itself, even when it arrives mapped into IPv6 (a
/// listener on `[::]` sees IPv4 peers so).
pub fn plain(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn x_real_ip_is_believed_from_loopback_and_named_fronts_only() {
        let fronts = TrustedProxies::parse("10.0.0.5, 2001:db8::7").unwrap();
        let named = Some("203.0.113.5");
        let real = ip("203.0.113.5");
        for front in [
            "127.0.0.1",
            "::1",
            "10.0.0.5",
            "::ffff:10.0.0.5",
            "2001:db8::7",
        ] {
            assert_eq!(fronts.client(ip(front), named), real, "{front}");
        }
        // A client on the internet cannot pick its own rate-limit bucket.
        let remote = ip("198.51.100.7");
        assert_eq!(fronts.client(remote, named), remote);
        assert_eq!(
            TrustedProxies::default().client(ip("10.0.0.5"), named),
            ip("10.0.0.5")
        );
        assert_eq!(
            fronts.client(ip("10.0.0.5"), Some("nonsense")),
            ip("10.0.0.5")
        );
        assert_eq!(fronts.client(ip("10.0.0.5"), None), ip("10.0.0.5"));
    }

    #[test]
    fn a_list_is_addresses_only() {
        for bad in [
            "",
            "10.0.0.5,",
            "10.0.0.5:80",
            "front.example",
            "10.0.0.0/8",
        ] {
            let said = TrustedProxies::parse(bad).unwrap_err();
            assert!(said.contains("--trusted-front"), "{said}");
        }
        let fronts = TrustedProxies::parse("10.0.0.5,10.0.0.6").unwrap();
        assert_eq!(fronts.to_string(), "10.0.0.5, 10.0.0.6");
    }
}
