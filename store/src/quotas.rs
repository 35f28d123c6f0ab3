//! Daily request quotas of the public news API (docs/product.md §6 and §9).
//!
//! A counter per API key owner per UTC day. Counting by owner rather than by key string
//! means rotating a key does not reset the day's quota (there is one key per user, so
//! "per key" and "per owner" are the same count otherwise). The backend counts, exactly
//! however many requests arrive at once and however many processes share it.

use std::time::Duration as StdDuration;

use chrono::{DateTime, Utc};

use crate::{Result, Store};

/// How often the daemon asks the backend for its upkeep, which for the embedded backend
/// writes the counters it keeps in memory to disk: the most a crash can forget.
pub const CHECKPOINT_EVERY: StdDuration = StdDuration::from_secs(1);

/// The outcome of counting one request against a quota.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuotaUse {
    /// Requests allowed per UTC day.
    pub limit: u64,
    /// Requests left today after this one (0 when refused).
    pub remaining: u64,
    /// When the day's counter starts over (next UTC midnight).
    pub reset_at: DateTime<Utc>,
    /// Whether this request is within the quota.
    pub allowed: bool,
}

impl QuotaUse {
    /// The answer of a backend that counted `used` requests on `day` (this one included
    /// when `allowed`) against `limit`.
    pub(crate) fn counted(limit: u64, used: u64, day: chrono::NaiveDate, allowed: bool) -> Self {
        let reset_at = (day + chrono::Duration::days(1))
            .and_hms_opt(0, 0, 0)
            .expect("midnight exists")
            .and_utc();
        Self {
            limit,
            remaining: limit.saturating_sub(used),
            reset_at,
            allowed,
        }
    }
}

impl Store {
    /// Counts one request of `owner` at `now` against a daily `limit`. A refused request is
    /// not counted, so the counter never runs past the limit.
    pub async fn consume_quota(
        &self,
        owner: &str,
        limit: u64,
        now: DateTime<Utc>,
    ) -> Result<QuotaUse> {
        self.backend().consume_quota(owner, limit, now).await
    }

    /// How many requests `owner` made on the UTC day of `now`.
    pub async fn quota_used(&self, owner: &str, now: DateTime<Utc>) -> Result<u64> {
        self.backend().quota_used(owner, now).await
    }
}

#[cfg(test)]
mod tests {
    use chrono::{DateTime, Utc};

    use crate::testing::store_tests;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    store_tests! {
        async fn counts_up_to_the_limit_then_refuses(store) {
            let now = at("2026-11-22T10:00:00Z");
            for i in 1..=3 {
                let q = store.consume_quota("u1", 3, now).await.unwrap();
                assert!(q.allowed);
                assert_eq!(q.remaining, 3 - i);
            }
            let q = store.consume_quota("u1", 3, now).await.unwrap();
            assert!(!q.allowed);
            assert_eq!(q.remaining, 0);
            assert_eq!(q.reset_at, at("2026-11-23T00:00:00Z"));
            assert_eq!(store.quota_used("u1", now).await.unwrap(), 3);
            // Another owner has its own counter.
            assert!(store.consume_quota("u2", 3, now).await.unwrap().allowed);
        }

        async fn a_new_utc_day_starts_over_and_drops_old_counters(store) {
            store
                .consume_quota("u1", 1, at("2026-11-22T23:59:59Z"))
                .await
                .unwrap();
            assert!(
                !store
                    .consume_quota("u1", 1, at("2026-11-22T23:59:59Z"))
                    .await
                    .unwrap()
                    .allowed
            );
            assert!(
                store
                    .consume_quota("u1", 1, at("2026-11-23T00:00:00Z"))
                    .await
                    .unwrap()
                    .allowed
            );
            // A backend that keeps counters in memory drops the past days' from its
            // index when it saves them.
            if let Some(engine) = store.internals() {
                engine.save_counters(at("2026-11-23T00:00:01Z"));
                assert_eq!(engine.index_len("quota_userday"), 1);
                assert_eq!(
                    store
                        .quota_used("u1", at("2026-11-22T12:00:00Z"))
                        .await
                        .unwrap(),
                    0,
                    "the past day's counter is gone from the tree"
                );
            }
        }

        async fn concurrent_requests_never_pass_the_limit(store) {
            let now = at("2026-11-22T10:00:00Z");
            let tasks: Vec<_> = (0..8)
                .map(|_| {
                    let store = store.store.clone();
                    tokio::spawn(async move {
                        let mut allowed = 0;
                        for _ in 0..50 {
                            if store.consume_quota("u1", 100, now).await.unwrap().allowed {
                                allowed += 1;
                            }
                        }
                        allowed
                    })
                })
                .collect();
            let mut allowed = 0;
            for t in tasks {
                allowed += t.await.unwrap();
            }
            assert_eq!(allowed, 100);
            if let Some(engine) = store.internals() {
                engine.save_counters(now);
                assert_eq!(engine.saved_quota("u1", now.date_naive()), 100);
            }
        }
    }
}
