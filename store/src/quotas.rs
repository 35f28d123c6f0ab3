//! Daily request quotas of the public news API (spec sections 6 and 9).
//!
//! A counter per API key owner per UTC day lives in `quota_userday`, so it survives
//! restarts. Counting by owner rather than by key string means rotating a key does not
//! reset the day's quota (there is one key per user, so "per key" and "per owner" are the
//! same count otherwise). Counters of past days are dropped when the owner's first request
//! of a new day arrives, so the tree holds about one counter per active key.

use chrono::{DateTime, Duration, NaiveDate, Utc};

use crate::{Result, Store, keys};

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

fn day_key(owner: &str, day: NaiveDate) -> Vec<u8> {
    keys::join(
        owner.as_bytes(),
        day.format("%Y%m%d").to_string().as_bytes(),
    )
}

impl Store {
    /// Counts one request of `owner` at `now` against a daily `limit`. A refused request is
    /// not counted, so the counter never runs past the limit.
    pub fn consume_quota(&self, owner: &str, limit: u64, now: DateTime<Utc>) -> Result<QuotaUse> {
        let today = now.date_naive();
        let key = day_key(owner, today);
        let tree = &self.t.quota_userday;
        let mut first_today = false;
        let mut allowed = false;
        let after = tree.update_and_fetch(&key, |old| {
            first_today = old.is_none();
            let used = keys::u64_from(old);
            allowed = used < limit;
            Some(keys::u64_value(if allowed { used + 1 } else { used }).to_vec())
        })?;
        let used = keys::u64_from(after.as_deref());
        if first_today {
            for entry in tree.scan_prefix(keys::prefix(owner)) {
                let (k, _) = entry?;
                if k.as_ref() != key.as_slice() {
                    tree.remove(k)?;
                }
            }
        }
        if allowed {
            self.flush()?;
        }
        let reset_at = (today + Duration::days(1))
            .and_hms_opt(0, 0, 0)
            .expect("midnight exists")
            .and_utc();
        Ok(QuotaUse {
            limit,
            remaining: limit.saturating_sub(used),
            reset_at,
            allowed,
        })
    }

    /// How many requests `owner` made on the UTC day of `now`.
    pub fn quota_used(&self, owner: &str, now: DateTime<Utc>) -> Result<u64> {
        Ok(keys::u64_from(
            self.t
                .quota_userday
                .get(day_key(owner, now.date_naive()))?
                .as_deref(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Options, test_store};

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn counts_up_to_the_limit_then_refuses() {
        let (_d, store) = test_store();
        let now = at("2026-11-22T10:00:00Z");
        for i in 1..=3 {
            let q = store.consume_quota("u1", 3, now).unwrap();
            assert!(q.allowed);
            assert_eq!(q.remaining, 3 - i);
        }
        let q = store.consume_quota("u1", 3, now).unwrap();
        assert!(!q.allowed);
        assert_eq!(q.remaining, 0);
        assert_eq!(q.reset_at, at("2026-11-23T00:00:00Z"));
        assert_eq!(store.quota_used("u1", now).unwrap(), 3);
        // Another owner has its own counter.
        assert!(store.consume_quota("u2", 3, now).unwrap().allowed);
    }

    #[test]
    fn a_new_utc_day_starts_over_and_drops_old_counters() {
        let (_d, store) = test_store();
        store
            .consume_quota("u1", 1, at("2026-11-22T23:59:59Z"))
            .unwrap();
        assert!(
            !store
                .consume_quota("u1", 1, at("2026-11-22T23:59:59Z"))
                .unwrap()
                .allowed
        );
        assert!(
            store
                .consume_quota("u1", 1, at("2026-11-23T00:00:00Z"))
                .unwrap()
                .allowed
        );
        assert_eq!(store.t.quota_userday.len(), 1);
    }

    #[test]
    fn counters_survive_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let now = at("2026-11-22T10:00:00Z");
        {
            let store = Store::open(dir.path(), Options::default()).unwrap();
            store.consume_quota("u1", 100, now).unwrap();
            store.consume_quota("u1", 100, now).unwrap();
        }
        let store = Store::open(dir.path(), Options::default()).unwrap();
        assert_eq!(store.quota_used("u1", now).unwrap(), 2);
    }
}
