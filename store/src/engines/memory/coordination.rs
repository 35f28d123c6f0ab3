//! Flags, job leases, shared secrets and rate limits in memory.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::MemoryBackend;
use crate::Result;
use crate::backend::{Coordination as CoordinationStore, Lease};
use crate::rate::Gcra;

/// What the processes sharing a backend coordinate through.
#[derive(Default)]
pub(super) struct Coordination {
    flags: HashSet<String>,
    leases: HashMap<String, Lease>,
    secrets: HashMap<String, Vec<u8>>,
    /// Key -> its GCRA theoretical arrival time.
    rates: HashMap<[u8; 32], DateTime<Utc>>,
}

#[async_trait::async_trait]
impl CoordinationStore for MemoryBackend {
    async fn flag(&self, name: &str) -> Result<bool> {
        Ok(self.lock().coordination.flags.contains(name))
    }

    async fn set_flag(&self, name: &str) -> Result<bool> {
        Ok(self.lock().coordination.flags.insert(name.to_string()))
    }

    /// The interface gives no `now` here, so a running lease is one whose `until` is
    /// after the system clock's now.
    async fn lease(&self, name: &str, holder: &str, until: DateTime<Utc>) -> Result<bool> {
        let now = Utc::now();
        let mut state = self.lock();
        let leases = &mut state.coordination.leases;
        if let Some(held) = leases.get(name)
            && held.holder != holder
            && held.until > now
        {
            return Ok(false);
        }
        leases.insert(
            name.to_string(),
            Lease {
                name: name.to_string(),
                holder: holder.to_string(),
                until,
            },
        );
        Ok(true)
    }

    async fn shared_secret(
        &self,
        name: &str,
        make: &(dyn Fn() -> Vec<u8> + Sync),
    ) -> Result<Vec<u8>> {
        let mut state = self.lock();
        Ok(state
            .coordination
            .secrets
            .entry(name.to_string())
            .or_insert_with(make)
            .clone())
    }

    async fn rate(
        &self,
        key: &[u8; 32],
        interval: Duration,
        burst: u32,
        now: DateTime<Utc>,
    ) -> Result<Option<Duration>> {
        let mut state = self.lock();
        let rates = &mut state.coordination.rates;
        match Gcra::step(rates.get(key).copied(), interval, burst, now) {
            Gcra::Pass(tat) => {
                rates.insert(*key, tat);
                Ok(None)
            }
            Gcra::Wait(wait) => Ok(Some(wait)),
        }
    }
}
