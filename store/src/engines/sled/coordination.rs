//! Coordination for the one process sled's lock admits: flags in `meta` under their own
//! names (`demo_loaded`, `summary_scheduled:2026-W47`: they outlive
//! the process), leases and rate instants in memory (they need not), and shared secrets
//! as private files in the data directory (`DATA/jwt_secret`, as before this interface).

use std::collections::HashMap;
use std::num::NonZeroUsize;
use std::sync::Mutex;
use std::time::Duration;

use chrono::{DateTime, Utc};
use lru::LruCache;

use super::SledBackend;
use crate::backend::Coordination;
use crate::rate::Gcra;
use crate::{Error, Feed, Result};

/// Keys the rate limiter remembers: an attacker's fresh addresses push out the oldest,
/// which then start over (a bounded cost, never an unbounded map).
const RATE_KEYS: usize = 100_000;

/// What this process holds in memory for coordination.
pub(crate) struct Local {
    leases: Mutex<HashMap<String, (String, DateTime<Utc>)>>,
    feeds: Mutex<HashMap<String, DateTime<Utc>>>,
    rates: Mutex<LruCache<[u8; 32], DateTime<Utc>>>,
}

impl Default for Local {
    fn default() -> Self {
        Self {
            leases: Mutex::default(),
            feeds: Mutex::default(),
            rates: Mutex::new(LruCache::new(
                NonZeroUsize::new(RATE_KEYS).expect("non-zero"),
            )),
        }
    }
}

impl Local {
    /// Leases up to `limit` of the `due` feeds not leased until after `now`.
    pub(crate) fn lease_feeds(
        &self,
        due: impl Iterator<Item = Feed>,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
        limit: usize,
    ) -> Vec<Feed> {
        let mut held = self
            .feeds
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        held.retain(|_, end| *end > now);
        let mut out = Vec::new();
        for feed in due {
            if out.len() == limit {
                break;
            }
            if held.contains_key(&feed.id) {
                continue;
            }
            held.insert(feed.id.clone(), until);
            out.push(feed);
        }
        out
    }

    /// Ends the lease of a feed (its record was updated, or it was removed).
    pub(crate) fn release_feed(&self, id: &str) {
        self.feeds
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(id);
    }
}

#[async_trait::async_trait]
impl Coordination for SledBackend {
    async fn flag(&self, name: &str) -> Result<bool> {
        Ok(self.t.meta.contains_key(name)?)
    }

    async fn set_flag(&self, name: &str) -> Result<bool> {
        self.writable()?;
        let first = self
            .t
            .meta
            .compare_and_swap(name, None as Option<&[u8]>, Some(&[1u8][..]))?
            .is_ok();
        self.sync()?;
        Ok(first)
    }

    async fn lease(&self, name: &str, holder: &str, until: DateTime<Utc>) -> Result<bool> {
        let now = Utc::now();
        let mut leases = self
            .coordination
            .leases
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match leases.get(name) {
            Some((other, end)) if other != holder && *end > now => Ok(false),
            _ => {
                leases.insert(name.to_string(), (holder.to_string(), until));
                Ok(true)
            }
        }
    }

    async fn shared_secret(
        &self,
        name: &str,
        make: &(dyn Fn() -> Vec<u8> + Sync),
    ) -> Result<Vec<u8>> {
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return Err(Error::Invalid(format!("{name:?} is not a secret's name")));
        }
        let path = self.dir.join(name);
        match std::fs::read(&path) {
            Ok(secret) => Ok(secret.trim_ascii().to_vec()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                self.writable()?;
                let secret = crate::private::publish_private_file(&path, &make())?;
                Ok(secret.trim_ascii().to_vec())
            }
            Err(e) => Err(Error::Io(e)),
        }
    }

    async fn rate(
        &self,
        key: &[u8; 32],
        interval: Duration,
        burst: u32,
        now: DateTime<Utc>,
    ) -> Result<Option<Duration>> {
        let mut rates = self
            .coordination
            .rates
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match Gcra::step(rates.get(key).copied(), interval, burst, now) {
            Gcra::Pass(tat) => {
                rates.put(*key, tat);
                Ok(None)
            }
            Gcra::Wait(wait) => Ok(Some(wait)),
        }
    }
}
