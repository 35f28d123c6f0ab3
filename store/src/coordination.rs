//! What the daemon needs to agree on with every other process sharing the store: the
//! token signing secret, rate limits (sign-in attempts, mailed links) and jobs that must
//! run on one process at a time. The backend makes each exact for all of them (see
//! [`crate::backend::Coordination`]).

use std::time::Duration;

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};

use crate::{Result, Store};

impl Store {
    /// The secret `name`, made by `make` the first time any process asks and the same
    /// for every process afterwards (the token signing key).
    pub async fn shared_secret(
        &self,
        name: &str,
        make: &(dyn Fn() -> Vec<u8> + Sync),
    ) -> Result<Vec<u8>> {
        self.backend().shared_secret(name, make).await
    }

    /// Lets one event of `key` (any parts: an action, a kind, an address) through a rate
    /// of one per `interval` with bursts of `burst`, or answers how long until the next
    /// may pass. The key is stored as a digest, never as given.
    pub async fn rate(
        &self,
        key: &[&str],
        interval: Duration,
        burst: u32,
        now: DateTime<Utc>,
    ) -> Result<Option<Duration>> {
        let mut h = Sha256::new();
        for part in key {
            h.update(part.as_bytes());
            h.update([0]);
        }
        self.backend()
            .rate(&h.finalize().into(), interval, burst, now)
            .await
    }

    /// Takes or renews the lease of job `name` for `holder` until `until`: answers
    /// whether `holder` may run it now.
    pub async fn lease(&self, name: &str, holder: &str, until: DateTime<Utc>) -> Result<bool> {
        self.backend().lease(name, holder, until).await
    }
}
