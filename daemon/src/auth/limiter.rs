//! The rate limiter of sign-ins, sign-ups and mailed links: a token bucket per e-mail
//! and per client IP (GCRA: `--sign-in-rate` attempts at once, then one more every
//! minute / rate), not a fixed window that lets a burst through at each minute's turn.
//!
//! The buckets are the store's (`radar_store::Store::rate`), so every daemon sharing
//! one store counts the same attempts. A key is a digest of the action and the e-mail or
//! IP, never the text itself; a refused attempt stores nothing; the embedded backend
//! keeps a bounded number of keys, the least recently seen forgotten first. The daemon
//! checks an e-mail's length and form before it is counted here.

use std::net::IpAddr;
use std::time::Duration;

use radar_store::Store;

/// Limits attempts per action, e-mail and client IP.
#[derive(Debug, Clone, Copy)]
pub struct RateLimiter {
    /// Attempts allowed at once, and per minute after that.
    per_minute: u32,
}

impl RateLimiter {
    /// A limiter of `per_minute` attempts per e-mail and per IP.
    pub fn new(per_minute: u32) -> Self {
        Self {
            per_minute: per_minute.max(1),
        }
    }

    /// Counts an attempt at `action` by `email` from `ip`. Both the e-mail's and the IP's
    /// buckets must have room; the error is the wait in whole seconds (at least 1).
    pub async fn hit(
        &self,
        store: &Store,
        action: &str,
        email: &str,
        ip: IpAddr,
    ) -> Result<Result<(), u64>, radar_store::Error> {
        let interval = Duration::from_secs(60) / self.per_minute;
        let ip = ip.to_string();
        let now = chrono::Utc::now();
        for key in [[action, "ip", ip.as_str()], [action, "email", email]] {
            let key = ["sign-in limit", key[0], key[1], key[2]];
            if let Some(wait) = store.rate(&key, interval, self.per_minute, now).await? {
                return Ok(Err(whole_seconds(wait)));
            }
        }
        Ok(Ok(()))
    }
}

/// A wait in whole seconds, rounded up, at least one.
pub(crate) fn whole_seconds(wait: Duration) -> u64 {
    wait.as_secs()
        .saturating_add(u64::from(wait.subsec_nanos() > 0))
        .max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const IP: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);

    async fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), Default::default()).await.unwrap();
        (dir, store)
    }

    #[tokio::test]
    async fn a_burst_of_the_rate_then_refusals_with_the_wait() {
        let (_d, s) = store().await;
        let l = RateLimiter::new(3);
        for _ in 0..3 {
            assert!(
                l.hit(&s, "sign-in", "a@example.com", IP)
                    .await
                    .unwrap()
                    .is_ok()
            );
        }
        // One attempt comes back every 20 s.
        let wait = l
            .hit(&s, "sign-in", "a@example.com", IP)
            .await
            .unwrap()
            .unwrap_err();
        assert!((1..=20).contains(&wait), "{wait}");
        // Other actions have their own allowance.
        assert!(
            l.hit(&s, "recover", "a@example.com", IP)
                .await
                .unwrap()
                .is_ok()
        );
    }

    #[tokio::test]
    async fn each_email_and_ip_is_limited_apart() {
        let (_d, s) = store().await;
        let l = RateLimiter::new(2);
        let other = IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 2));
        let hit = |email: &'static str, ip: IpAddr| {
            let s = s.clone();
            async move { l.hit(&s, "sign-in", email, ip).await.unwrap() }
        };
        assert!(hit("a@example.com", IP).await.is_ok());
        assert!(hit("a@example.com", other).await.is_ok());
        // The e-mail is spent, from any IP.
        assert!(hit("a@example.com", other).await.is_err());
        // IP's own bucket still has one.
        assert!(hit("b@example.com", IP).await.is_ok());
        assert!(hit("c@example.com", IP).await.is_err());
    }

    #[test]
    fn a_wait_rounds_up_to_whole_seconds_at_least_one() {
        assert_eq!(whole_seconds(Duration::ZERO), 1);
        assert_eq!(whole_seconds(Duration::from_nanos(1)), 1);
        assert_eq!(whole_seconds(Duration::from_secs(3)), 3);
        assert_eq!(whole_seconds(Duration::new(3, 1)), 4);
        assert_eq!(whole_seconds(Duration::from_millis(59_500)), 60);
        assert_eq!(whole_seconds(Duration::MAX), u64::MAX);
    }
}
