//! The backends: where a store keeps its data, each behind the same interface
//! ([`crate::backend::Backend`]). The embedded one is the default and needs nothing
//! installed; the others are for tests, or for several processes sharing one install.
//! Each engine lives in a module of its own, so that nothing outside it names it.

#[cfg(test)]
pub(crate) mod memory;
pub(crate) mod postgres;
pub(crate) mod sled;

use std::path::Path;
use std::sync::Arc;

use crate::backend::Backend;
use crate::{Options, Result};

pub use self::sled::space::{BALLAST_FILE, FULL_RETRY_AFTER};

#[cfg(test)]
pub(crate) use self::sled::testing::open as open_embedded_for_test;

/// Whether a store location names a database rather than a data directory.
pub fn is_database_url(location: &str) -> bool {
    location.starts_with("postgres://") || location.starts_with("postgresql://")
}

/// A store location as logs and messages may show it: a database URL with its password
/// hidden, a data directory as it is.
pub fn redact_url(location: &str) -> String {
    if is_database_url(location) {
        self::postgres::redact(location)
    } else {
        location.to_string()
    }
}

/// Opens the PostgreSQL backend at `url` and brings its schema up to date.
pub(crate) async fn open_database(url: &str) -> Result<Arc<dyn Backend>> {
    Ok(Arc::new(self::postgres::PostgresBackend::open(url).await?))
}

/// Opens the embedded backend in the data directory `dir` (it replays its journal and
/// may wait for its lock: call it off the async runtime).
pub(crate) fn open_embedded(dir: &Path, opts: &Options) -> Result<Arc<dyn Backend>> {
    Ok(Arc::new(self::sled::SledBackend::open(dir, opts)?))
}
