//! The cap on connections open at once from one client, so that no single client can
//! hold every slot of `--max-connections` (before it, one client holding 1,025 idle
//! sockets denied service to everyone until the idle timeout closed them).
//!
//! A client is its address as the socket sees it: IPv4 addresses one by one, IPv6 by
//! their /64 prefix, since one IPv6 host is commonly given a whole /64 and can pick any
//! address in it. Behind a reverse proxy the proxy is that client (headers such as
//! `X-Forwarded-For` arrive only after the connection is taken).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

/// Connections open per client.
pub(super) struct Peers {
    /// At most this many per client; 0 is no cap.
    cap: usize,
    /// Open connections of each client that has one; a client leaves when its count
    /// drops to zero, so the map is never larger than the connections open.
    open: Mutex<HashMap<IpAddr, usize>>,
}

/// One open connection of a client; dropping it gives the place back.
pub(super) struct PeerSlot {
    peers: Arc<Peers>,
    client: Option<IpAddr>,
}

impl Peers {
    pub(super) fn new(cap: usize) -> Arc<Self> {
        Arc::new(Self {
            cap,
            open: Mutex::new(HashMap::new()),
        })
    }

    /// A place for one more connection from `ip`, or `None` when its client already
    /// holds the cap.
    pub(super) fn take(self: &Arc<Self>, ip: IpAddr) -> Option<PeerSlot> {
        if self.cap == 0 {
            return Some(PeerSlot {
                peers: self.clone(),
                client: None,
            });
        }
        let client = client_of(ip);
        let mut open = self
            .open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let count = open.entry(client).or_insert(0);
        if *count >= self.cap {
            return None;
        }
        *count += 1;
        Some(PeerSlot {
            peers: self.clone(),
            client: Some(client),
        })
    }
}

impl Drop for PeerSlot {
    fn drop(&mut self) {
        let Some(client) = self.client else { return };
        let mut open = self
            .peers
            .open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(count) = open.get_mut(&client) {
            *count -= 1;
            if *count == 0 {
                open.remove(&client);
            }
        }
    }
}

/// The client an address belongs to: an IPv4 address (mapped into IPv6 or not), or an
/// IPv6 address's /64.
fn client_of(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6((u128::from(v6) & !u128::from(u64::MAX)).into()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn a_client_gets_its_cap_and_closing_frees_a_place() {
        let peers = Peers::new(2);
        let a = peers.take(ip("10.0.0.1")).unwrap();
        let _b = peers.take(ip("10.0.0.1")).unwrap();
        assert!(peers.take(ip("10.0.0.1")).is_none());
        // Another client is not affected.
        let _other = peers.take(ip("10.0.0.2")).unwrap();
        drop(a);
        assert!(peers.take(ip("10.0.0.1")).is_some());
    }

    #[test]
    fn clients_leave_the_map_when_their_last_connection_closes() {
        let peers = Peers::new(2);
        let slots: Vec<_> = (1..=50)
            .map(|i| peers.take(ip(&format!("10.0.0.{i}"))).unwrap())
            .collect();
        assert_eq!(peers.open.lock().unwrap().len(), 50);
        drop(slots);
        assert!(peers.open.lock().unwrap().is_empty());
    }

    #[test]
    fn ipv6_counts_by_its_64_prefix_and_mapped_ipv4_as_ipv4() {
        let peers = Peers::new(1);
        let _a = peers.take(ip("2001:db8:1:2::1")).unwrap();
        assert!(peers.take(ip("2001:db8:1:2:ffff::9")).is_none());
        assert!(peers.take(ip("2001:db8:1:3::1")).is_some());
        let _v4 = peers.take(ip("192.0.2.7")).unwrap();
        assert!(peers.take(ip("::ffff:192.0.2.7")).is_none());
    }

    #[test]
    fn zero_is_no_cap() {
        let peers = Peers::new(0);
        let slots: Vec<_> = (0..1000)
            .map(|_| peers.take(ip("10.0.0.1")).unwrap())
            .collect();
        assert_eq!(slots.len(), 1000);
        assert!(peers.open.lock().unwrap().is_empty());
    }
}
