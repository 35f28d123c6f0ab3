//! What would be process-local state in a single process, made explicit so that a
//! backend shared by several processes can make it global: flags of work done once,
//! leases of jobs that must run on one process at a time, the token secret, and the
//! sign-in limiter's and mail pace's counts.

use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::Result;

/// A job held by one process until `until`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    /// Which job.
    pub name: String,
    /// Who holds it.
    pub holder: String,
    /// When it lapses unless renewed.
    pub until: DateTime<Utc>,
}

/// Coordination between the processes that share a backend.
#[async_trait::async_trait]
pub trait Coordination: Send + Sync {
    /// Whether the flag `name` is set (work done once: the demo loaded, a week's summary
    /// scheduled, an index built).
    async fn flag(&self, name: &str) -> Result<bool>;

    /// Sets the flag `name`; answers true for the one caller that set it first.
    async fn set_flag(&self, name: &str) -> Result<bool>;

    /// Takes or renews the lease of job `name` for `holder` until `until`; answers
    /// whether `holder` holds it now (false while another holder's lease runs).
    async fn lease(&self, name: &str, holder: &str, until: DateTime<Utc>) -> Result<bool>;

    /// The secret `name` (the token signing key), made once from `make` by the first
    /// caller and the same for every caller afterwards.
    async fn shared_secret(
        &self,
        name: &str,
        make: &(dyn Fn() -> Vec<u8> + Sync),
    ) -> Result<Vec<u8>>;

    /// Lets one event of `key` through a rate of one per `interval` with bursts of up
    /// to `burst` (GCRA: see [`crate::rate::Gcra`]), or answers how long until the next
    /// one may pass. The sign-in limiter and the mail pace; exact for every process
    /// sharing the backend. `key` is already a digest (no address is stored as given).
    async fn rate(
        &self,
        key: &[u8; 32],
        interval: Duration,
        burst: u32,
        now: DateTime<Utc>,
    ) -> Result<Option<Duration>>;
}
