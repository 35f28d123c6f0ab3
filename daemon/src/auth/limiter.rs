//! The rate limiter of sign-ins, sign-ups and mailed links: a token bucket per e-mail
//! and per client IP (governor's GCRA: `--sign-in-rate` attempts at once, then one
//! more every minute / rate), not a fixed window that lets a burst through at each
//! minute's turn.
//!
//! Its memory is bounded whatever clients send: a key is a 64-bit keyed hash of the
//! action and the e-mail or IP (never the text itself), a refused attempt stores
//! nothing, and at most [`MAX_KEYS`] keys are kept, the least recently seen evicted
//! first. A key is 8 bytes and its state 8 more, so the whole table stays within a few
//! MiB. The daemon checks an e-mail's length and form before it is counted here.

use std::hash::{BuildHasher, Hash, Hasher, RandomState};
use std::net::IpAddr;
use std::num::NonZeroUsize;
use std::sync::Mutex;

use governor::clock::{Clock, DefaultClock};
use governor::nanos::Nanos;
use governor::state::StateStore;
use governor::{Quota, RateLimiter as Gcra};
use lru::LruCache;

/// Keys kept at most; past it the least recently seen is forgotten.
pub const MAX_KEYS: usize = 100_000;

/// Limits attempts per action, e-mail and client IP.
pub struct RateLimiter {
    gcra: Gcra<u64, Recent, DefaultClock>,
    clock: DefaultClock,
    /// Per-process random keys, so nobody can aim two addresses at one bucket.
    hasher: RandomState,
}

impl std::fmt::Debug for RateLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimiter")
            .field("keys", &self.len())
            .finish()
    }
}

impl RateLimiter {
    /// `per_minute` attempts at once per key, refilled evenly over a minute; at most
    /// `max_keys` keys remembered.
    pub fn new(per_minute: u32, max_keys: usize) -> Self {
        let burst = std::num::NonZeroU32::new(per_minute.max(1)).expect("at least one");
        let keys = NonZeroUsize::new(max_keys.max(1)).expect("at least one");
        let clock = DefaultClock::default();
        Self {
            gcra: Gcra::new(Quota::per_minute(burst), Recent::new(keys), clock.clone()),
            clock,
            hasher: RandomState::new(),
        }
    }

    /// Counts one attempt at `action` for the client IP and the e-mail; when either is
    /// over its allowance, answers the seconds until the next attempt is allowed.
    pub fn hit(&self, action: &str, email: &str, ip: IpAddr) -> Result<(), u64> {
        let keys = [self.key(action, 'i', &ip), self.key(action, 'e', email)];
        for key in keys {
            if let Err(not_until) = self.gcra.check_key(&key) {
                let wait = not_until.wait_time_from(self.clock.now());
                return Err(wait.as_secs_f64().ceil().max(1.0) as u64);
            }
        }
        Ok(())
    }

    /// Keys remembered now.
    pub fn len(&self) -> usize {
        self.gcra.len()
    }

    /// Whether no key is remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn key(&self, action: &str, kind: char, value: &(impl Hash + ?Sized)) -> u64 {
        let mut h = self.hasher.build_hasher();
        (action, kind).hash(&mut h);
        value.hash(&mut h);
        h.finish()
    }
}

/// governor's per-key state (a theoretical arrival time) in a bounded LRU map.
struct Recent(Mutex<LruCache<u64, Nanos>>);

impl Recent {
    fn new(cap: NonZeroUsize) -> Self {
        Self(Mutex::new(LruCache::new(cap)))
    }
}

impl StateStore for Recent {
    type Key = u64;

    fn measure_and_replace<T, F, E>(&self, key: &u64, f: F) -> Result<T, E>
    where
        F: Fn(Option<Nanos>) -> Result<(T, Nanos), E>,
    {
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let (out, next) = f(map.get(key).copied())?;
        map.put(*key, next);
        Ok(out)
    }
}

impl governor::state::keyed::ShrinkableKeyedStateStore<u64> for Recent {
    fn retain_recent(&self, _drop_below: Nanos) {}

    fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const IP: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);

    #[test]
    fn a_burst_of_the_rate_then_refusals_with_the_wait() {
        let l = RateLimiter::new(3, 100);
        for _ in 0..3 {
            assert!(l.hit("sign-in", "a@example.com", IP).is_ok());
        }
        // One attempt comes back every 20 s.
        let wait = l.hit("sign-in", "a@example.com", IP).unwrap_err();
        assert!((1..=20).contains(&wait), "{wait}");
        // Other actions have their own allowance.
        assert!(l.hit("recover", "a@example.com", IP).is_ok());
    }

    #[test]
    fn each_email_and_ip_is_limited_apart() {
        let l = RateLimiter::new(2, 100);
        let other = IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 2));
        assert!(l.hit("sign-in", "a@example.com", IP).is_ok());
        assert!(l.hit("sign-in", "a@example.com", other).is_ok());
        // The e-mail is spent, from any IP.
        assert!(l.hit("sign-in", "a@example.com", other).is_err());
        // IP's own bucket still has one.
        assert!(l.hit("sign-in", "b@example.com", IP).is_ok());
        assert!(l.hit("sign-in", "c@example.com", IP).is_err());
    }

    #[test]
    fn keys_are_bounded_and_refusals_store_nothing() {
        let l = RateLimiter::new(1, 50);
        for i in 0..1_000 {
            let _ = l.hit("sign-in", &format!("u{i}@example.com"), IP);
        }
        // One IP key and at most 49 e-mails: the IP was refused from the second hit on,
        // so those e-mails were never counted.
        assert!(l.len() <= 50, "{}", l.len());
        assert_eq!(l.len(), 2);
        let ips = (0..1_000u32).map(|i| IpAddr::V4(i.into()));
        for ip in ips {
            let _ = l.hit("sign-in", "x@example.com", ip);
        }
        assert!(l.len() <= 50);
    }
}
