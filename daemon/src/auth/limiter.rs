//! A small in-memory rate limiter for sign-in attempts: a fixed one-minute window per key
//! (`email:...`, `ip:...`). Memory stays bounded: expired windows are swept once the map
//! grows.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Counts attempts per key.
#[derive(Debug)]
pub struct RateLimiter {
    limit: u32,
    window: Duration,
    hits: Mutex<HashMap<String, (Instant, u32)>>,
}

impl RateLimiter {
    /// At most `limit` attempts per key per `window`.
    pub fn new(limit: u32, window: Duration) -> Self {
        Self {
            limit,
            window,
            hits: Mutex::new(HashMap::new()),
        }
    }

    /// Counts one attempt for every key; when any key is over its limit, answers the
    /// seconds until its window ends.
    pub fn hit(&self, keys: &[String]) -> Result<(), u64> {
        let now = Instant::now();
        let mut hits = self.hits.lock().unwrap_or_else(|p| p.into_inner());
        if hits.len() > 10_000 {
            hits.retain(|_, (start, _)| now.duration_since(*start) < self.window);
        }
        let mut wait = None;
        for key in keys {
            let entry = hits.entry(key.clone()).or_insert((now, 0));
            if now.duration_since(entry.0) >= self.window {
                *entry = (now, 0);
            }
            entry.1 = entry.1.saturating_add(1);
            if entry.1 > self.limit {
                let left = self
                    .window
                    .saturating_sub(now.duration_since(entry.0))
                    .as_secs()
                    .max(1);
                wait = Some(wait.map_or(left, |w: u64| w.max(left)));
            }
        }
        wait.map_or(Ok(()), Err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_each_key_separately_and_resets_after_the_window() {
        let l = RateLimiter::new(2, Duration::from_millis(50));
        let a = ["email:a".to_string()];
        assert!(l.hit(&a).is_ok());
        assert!(l.hit(&a).is_ok());
        assert!(l.hit(&a).is_err());
        assert!(l.hit(&["email:b".to_string()]).is_ok());
        std::thread::sleep(Duration::from_millis(60));
        assert!(l.hit(&a).is_ok());
    }
}
