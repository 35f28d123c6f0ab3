//! The schema and its migrations, embedded in the binary.
//!
//! Migrations are numbered from 1 and each is applied once, in order, in one
//! transaction with its row in `schema_version`. Opening a backend migrates under a
//! transaction-level advisory lock, so when several nodes start together one migrates
//! and the others wait for it and then find nothing to do; a failed migration leaves
//! nothing half-done (PostgreSQL's DDL is transactional). A database whose schema is
//! newer than this binary knows is refused with a clear error rather than used: a node
//! of an older release must not write into tables it does not understand, which is
//! what makes a rolling upgrade safe (new nodes migrate, old ones stop at their next
//! start instead of running beside them on a schema they cannot read).

use tokio_postgres::Client;

use super::{Redacted, db_error};
use crate::{Error, Result};

/// Every migration, in order: (version, SQL), listed from `migrations/` by `build.rs`.
const MIGRATIONS: &[(i32, &str)] = include!(concat!(env!("OUT_DIR"), "/migrations.rs"));

/// The schema version this binary writes and reads.
pub(super) const LATEST: i32 = MIGRATIONS[MIGRATIONS.len() - 1].0;

/// The advisory lock key of migrations: "radar" in ASCII, so an operator who sees it in
/// `pg_locks` can tell whose it is.
const MIGRATION_LOCK: i64 = 0x0072_6164_6172;

/// Brings the database's schema to [`LATEST`], or refuses one that is newer. Answers the
/// version it found.
pub(super) async fn migrate(client: &mut Client, url: &str) -> Result<i32> {
    let tx = client.transaction().await.map_err(db_error)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(db_error)?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS schema_version (
             version integer PRIMARY KEY,
             applied_at timestamptz NOT NULL DEFAULT now()
         )",
    )
    .await
    .map_err(db_error)?;
    let found: i32 = tx
        .query_one("SELECT coalesce(max(version), 0) FROM schema_version", &[])
        .await
        .map_err(db_error)?
        .get(0);
    if found > LATEST {
        return Err(Error::Open(format!(
            "the database {} has schema version {found}, newer than this Radar knows \
             (up to {LATEST}): a newer release has migrated it. Run that release (or \
             newer) here, or point --store at another database",
            Redacted(url)
        )));
    }
    for (version, sql) in MIGRATIONS.iter().filter(|(v, _)| *v > found) {
        tx.batch_execute(sql).await.map_err(|e| {
            Error::Open(format!(
                "migrating the database {} to schema version {version} failed: {}",
                Redacted(url),
                super::describe(&e)
            ))
        })?;
        tx.execute(
            "INSERT INTO schema_version (version) VALUES ($1)",
            &[version],
        )
        .await
        .map_err(db_error)?;
    }
    tx.commit().await.map_err(db_error)?;
    Ok(found)
}
