//! The e-mail send frequency limit: one mailed link of a kind (confirmation, recovery)
//! per address every `--email-max-frequency` seconds, GoTrue's `SMTP_MAX_FREQUENCY`
//! (60 s). A request inside it is 429 `over_email_send_rate_limit`, "For security
//! purposes, you can only request this after N seconds." (see [`super::pace_mail`]).
//!
//! GoTrue times the last link on the user (`recovery_sent_at`, `confirmation_sent_at`),
//! so only a registered address gets the 429, which tells it apart from an unknown one.
//! Radar times every valid address that asks, registered or not, so `/recover` and
//! `/resend` keep answering alike. The clock lives in memory: a restart forgets it,
//! which costs at most one more link per address. Like the limiter's, its memory is
//! bounded: keys are keyed hashes, at most [`super::limiter::MAX_KEYS`] of them, the
//! least recently seen forgotten first; a refused request does not restart the clock.

use std::hash::{BuildHasher, RandomState};
use std::num::NonZeroUsize;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use lru::LruCache;

/// When each address last asked for a link of each kind.
pub struct SendPace {
    interval: Duration,
    last: Mutex<LruCache<u64, Instant>>,
    /// Per-process random keys, so nobody can aim two addresses at one clock.
    hasher: RandomState,
}

impl std::fmt::Debug for SendPace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SendPace")
            .field("interval", &self.interval)
            .finish_non_exhaustive()
    }
}

impl SendPace {
    /// One link of a kind per address every `interval` (zero: no limit); at most
    /// `max_keys` addresses remembered.
    pub fn new(interval: Duration, max_keys: usize) -> Self {
        let keys = NonZeroUsize::new(max_keys.max(1)).expect("at least one");
        Self {
            interval,
            last: Mutex::new(LruCache::new(keys)),
            hasher: RandomState::new(),
        }
    }

    /// Counts a request for a link of `kind` to `email`: when the last one counted is
    /// less than the interval old, answers the whole seconds left.
    pub fn hit(&self, kind: &str, email: &str) -> Result<(), u64> {
        if self.interval.is_zero() {
            return Ok(());
        }
        let key = self.hasher.hash_one((kind, email));
        let now = Instant::now();
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(at) = last.get(&key) {
            let since = now.duration_since(*at);
            if since < self.interval {
                return Err((self.interval - since).as_secs_f64().ceil().max(1.0) as u64);
            }
        }
        last.put(key, now);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_link_per_address_and_kind_each_interval() {
        let pace = SendPace::new(Duration::from_secs(60), 100);
        assert_eq!(pace.hit("recovery", "a@example.com"), Ok(()));
        let wait = pace.hit("recovery", "a@example.com").unwrap_err();
        assert!((59..=60).contains(&wait), "{wait}");
        // Other kinds and other addresses have their own clocks.
        assert_eq!(pace.hit("signup", "a@example.com"), Ok(()));
        assert_eq!(pace.hit("recovery", "b@example.com"), Ok(()));

        let quick = SendPace::new(Duration::from_millis(50), 100);
        assert_eq!(quick.hit("recovery", "a@example.com"), Ok(()));
        assert_eq!(quick.hit("recovery", "a@example.com"), Err(1));
        std::thread::sleep(Duration::from_millis(60));
        assert_eq!(quick.hit("recovery", "a@example.com"), Ok(()));

        let off = SendPace::new(Duration::ZERO, 100);
        assert_eq!(off.hit("recovery", "a@example.com"), Ok(()));
        assert_eq!(off.hit("recovery", "a@example.com"), Ok(()));
    }

    #[test]
    fn addresses_remembered_are_bounded() {
        let pace = SendPace::new(Duration::from_secs(60), 10);
        for i in 0..1_000 {
            assert_eq!(pace.hit("recovery", &format!("u{i}@example.com")), Ok(()));
        }
        assert!(pace.last.lock().unwrap().len() <= 10);
    }
}
