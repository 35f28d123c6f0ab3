//! The e-mail send frequency limit for addresses without an account.
//!
//! A registered user's last link of each kind is timed in the store
//! (`confirmation_sent_at`, `recovery_sent_at`), as GoTrue times them on the user. GoTrue
//! answers 429 only for registered addresses, which tells them apart from unknown ones;
//! Radar keeps the same clock for unknown addresses here, in memory, so `/recover` and
//! `/resend` answer alike whether or not the address has an account. Losing this clock
//! on a restart costs nothing: no mail was sent to those addresses.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The most addresses remembered at once; past it, expired entries are dropped first and
/// new addresses are not remembered until room frees up (the per-IP request limit keeps
/// one client far below this).
const CAPACITY: usize = 100_000;

/// When each unknown address last "got" a link of a kind.
#[derive(Debug)]
pub struct UnknownAddressPace {
    interval: Duration,
    last: Mutex<HashMap<String, Instant>>,
}

impl UnknownAddressPace {
    /// A clock allowing one link of a kind per `interval` to each address.
    pub fn new(interval: Duration) -> Self {
        Self {
            interval,
            last: Mutex::new(HashMap::new()),
        }
    }

    /// Counts a request for a link of `kind` to `email`: `Err(seconds to wait)` when one
    /// was counted less than the interval ago.
    pub fn hit(&self, kind: &str, email: &str) -> Result<(), u64> {
        if self.interval.is_zero() {
            return Ok(());
        }
        let now = Instant::now();
        let key = format!("{kind} {email}");
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(at) = last.get(&key)
            && now.duration_since(*at) < self.interval
        {
            let left = self.interval - now.duration_since(*at);
            return Err(left.as_secs_f64().ceil().max(1.0) as u64);
        }
        if last.len() >= CAPACITY {
            last.retain(|_, at| now.duration_since(*at) < self.interval);
        }
        if last.len() < CAPACITY {
            last.insert(key, now);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_waits_the_interval_per_kind() {
        let pace = UnknownAddressPace::new(Duration::from_secs(60));
        assert_eq!(pace.hit("recovery", "a@example.com"), Ok(()));
        let wait = pace.hit("recovery", "a@example.com").unwrap_err();
        assert!((59..=60).contains(&wait), "{wait}");
        assert_eq!(pace.hit("signup", "a@example.com"), Ok(()));
        assert_eq!(pace.hit("recovery", "b@example.com"), Ok(()));
        let off = UnknownAddressPace::new(Duration::ZERO);
        assert_eq!(off.hit("recovery", "a@example.com"), Ok(()));
        assert_eq!(off.hit("recovery", "a@example.com"), Ok(()));
    }
}
