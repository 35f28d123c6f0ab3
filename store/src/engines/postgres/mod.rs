//! The PostgreSQL backend: the store's data in a database that several `radar`
//! processes share (issue 31).
//!
//! # Client and pool
//!
//! tokio-postgres with deadpool-postgres: an async client that pipelines (the
//! independent statements of a transaction go out together, see [`prepare_all`]), speaks
//! the binary protocol, and prepares each statement once per connection
//! (`prepare_cached`); deadpool keeps [`connection::DEFAULT_POOL_SIZE`] connections per
//! process (`?pool_size=N` in the URL changes it), checks a connection before handing
//! it out again and replaces it when it broke, so a database restart or fail-over heals
//! by itself. A request that waits longer than [`connection::WAIT_TIMEOUT`] for a
//! connection, and every error of an unreachable database, is [`Error::Unreachable`] (a
//! 503 to try again). sqlx 0.8 would do as well; we have no use for its compile-time
//! checked queries (they need a database or a checked-in cache at build time), and
//! tokio-postgres gives direct control of pipelining and of the `json` type's raw bytes.
//!
//! TLS is not spoken yet (`NoTls`): connect over a Unix socket or a private network;
//! `sslmode=require` is refused when the store opens, with that advice. The store URL
//! is only ever shown through [`Redacted`], so its password never reaches a log or an
//! error.
//!
//! # Schema
//!
//! See `migrations/0001_initial.sql` and [`schema`]: every record is kept whole as JSON
//! (so it reads back exactly as written and gains fields without a migration) beside
//! the columns its constraints, lookups and orders need; an item's wire JSON is a
//! `json` column, which keeps its text byte for byte (`jsonb` would reorder its keys);
//! ordered text is `COLLATE "C"`, byte order whatever the database's locale. Every
//! listing walks an index: the newest-first feed `(published_ms DESC, id DESC)` with
//! its cursor as a row comparison, each mark's list `(reader, <mark>_at DESC)`, the
//! public listing's three orders, the waitlist by join time, the change log by number,
//! a story's members by their place (a listing of leads probes the covered members'
//! partial index, see `migrations/0006_stories.sql`). Counts (items, users, each
//! reader's marks, covered story members) are counters kept in the writing transaction,
//! never counted.
//!
//! # Atomic steps and locks
//!
//! Each trait method is one transaction at PostgreSQL's default isolation (read
//! committed) with explicit row locks, or one statement. A rule closure runs between a
//! `SELECT … FOR UPDATE` (or `FOR NO KEY UPDATE` of an account, which leaves the
//! account's foreign keys free for concurrent sessions) and the writes of its answer. Rows
//! are locked in one order everywhere (the items' version row before any item or story
//! member: story writes move the items' version too, so two merges never cross; a
//! reader's state row before the reader's marks; an account before what it owns; a
//! session before its tokens), so that concurrent writers wait for each other instead of
//! deadlocking. An item and the readers' state rows are the one pair taken both ways: a
//! removal takes the item, then the readers who have marks on it; a change of marks
//! takes the reader, then the item only when adding the reader's first mark on it. So
//! neither waits for the other in a circle. The hot write, a change of marks, is one
//! call of the `radar_change_marks` function: one round trip, one transaction, the
//! caller's session checked in it (see `migrations/0003_marks_in_session.sql`).
//!
//! Foreign keys hold where the interface says the other side must exist (a session's
//! account, a secret's owner, a mark's item, an entry's feed). The interface lets marks,
//! shares, API keys, quota counts, waitlist entries, checkouts and profiles name any
//! owner id, so those carry the id without a key, and `delete_user` deletes them in its
//! transaction.
//!
//! # The change log has no gaps a reader could skip
//!
//! Search replicas read `item_changes` after the number they applied last. Were the
//! numbers taken from a sequence by concurrent transactions, number 11 could commit
//! before number 10, and a replica that read up to 11 would never see 10. Instead every
//! item write and removal first locks the one row of `items_meta` and numbers its
//! entries from the last number it holds: item writes are serialised (an import writes
//! in batches, so this costs one lock per batch), numbers are handed out in commit
//! order, and once an entry is visible every smaller one is too (a lock is released
//! only after its transaction's commit is visible). The same row's number is the items'
//! version: it moves when a write commits, so a page built after reading it holds every
//! write up to it, and a page cached under it misses none of them.
//! [`Backend::flush`] has nothing to do: every write is committed before it returns.
//!
//! # Durability
//!
//! Acknowledged writes are committed with PostgreSQL's `synchronous_commit` as the
//! server has it (on by default: flushed to the WAL on disk before the commit returns).
//! Two kinds of counters commit without waiting for the disk (`synchronous_commit =
//! off` for their own transaction only): API quota counts and the sign-in limiter's and
//! mail pace's GCRA instants. A crash of the database may forget the last fraction of a
//! second of them, which lets a caller make that many more requests, never fewer, as
//! the embedded engine's checkpointed counters do.
//!
//! # Tests
//!
//! `testing` starts a throwaway PostgreSQL for the tests of this process (see there);
//! the tests of this module run each trait against it, and the end-to-end tests (with
//! the crate's `testing` feature) run `radar serve --store` on its databases.

mod accounts;
mod billing;
mod connection;
mod coordination;
mod items;
mod keys;
mod marks;
mod reading;
mod records;
mod schema;
mod sources;
mod stories;
/// Always compiled (it is small, and the linker drops it from `radar`): a cargo feature
/// for it would build the store and everything above it twice in one `make test`.
#[doc(hidden)]
pub mod testing;
#[cfg(test)]
mod tests;
mod transfer;

use std::fmt;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use deadpool_postgres::{GenericClient, Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use tokio_postgres::error::SqlState;
use tokio_postgres::types::{FromSql, IsNull, ToSql, Type, to_sql_checked};
use tokio_postgres::{NoTls, Row, Statement};

use crate::backend::{Backend, Json};
use crate::sessions::Session;
use crate::{Error, Result, User};

pub(crate) use connection::{Redacted, redact};

/// How often [`Backend::upkeep`] deletes counters that have run out (quota counts of
/// past days, limiter instants in the past) and the change log's old entries. Every
/// process does it; it is idempotent.
const PRUNE_EVERY: Duration = Duration::from_secs(60);

/// How long the change log keeps an entry. A running node's replica follows the log
/// within a second (the daemon's upkeep), so only a node stopped for longer finds its
/// position pruned, and rebuilds its replica from the items when it starts.
pub(crate) const CHANGE_LOG_KEEPS: chrono::Duration = chrono::Duration::days(7);

/// The store's data in a PostgreSQL database.
pub struct PostgresBackend {
    pool: Pool,
    /// The store URL, redacted: what logs and errors may show.
    shown: String,
    /// When upkeep last pruned.
    pruned: Mutex<Option<Instant>>,
}

#[allow(
    clippy::missing_fields_in_debug,
    reason = "secrets and connections are left out on purpose"
)]
impl fmt::Debug for PostgresBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PostgresBackend")
            .field("url", &self.shown)
            .field("pool_size", &self.pool.status().max_size)
            .finish()
    }
}

impl PostgresBackend {
    /// Connects to the database at `url` (`postgres://USER[:PASSWORD]@HOST[:PORT]/DB`,
    /// `?host=/socket/dir` for a Unix socket, `&pool_size=N`), checks that it can hold
    /// Radar's data, and brings its schema up to date (see [`schema`]). Errors say what
    /// to fix, naming the URL redacted.
    pub(crate) async fn open(url: &str) -> Result<Self> {
        let target = connection::parse(url)?;
        let shown = connection::redact(url);
        let manager = Manager::from_config(
            target.config,
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(target.pool_size)
            .wait_timeout(Some(connection::WAIT_TIMEOUT))
            .create_timeout(Some(connection::CONNECT_TIMEOUT))
            .recycle_timeout(Some(connection::CONNECT_TIMEOUT))
            .runtime(Runtime::Tokio1)
            .build()
            .map_err(|e| Error::Open(format!("cannot set up connections to {shown}: {e}")))?;
        let mut client = pool.get().await.map_err(|e| {
            // Unreachable, not Open: a daemon waits for a database that is starting.
            Error::Unreachable(format!(
                "cannot connect to the PostgreSQL database {shown}: {}. Check that it \
                 runs and that the URL's host, port, user, password and database are right",
                describe_pool(&e)
            ))
        })?;
        check_server(&client, &shown).await?;
        let found = schema::migrate(&mut client, url).await?;
        drop(client);
        tracing::info!(
            store = %shown,
            pool_size = target.pool_size,
            schema_found = found,
            schema = schema::LATEST,
            "opened the PostgreSQL database"
        );
        Ok(Self {
            pool,
            shown,
            pruned: Mutex::new(None),
        })
    }

    /// The store URL with its password hidden.
    #[cfg(test)]
    pub(crate) fn url(&self) -> &str {
        &self.shown
    }

    /// The most connections this process opens.
    #[cfg(test)]
    pub(crate) fn pool_size(&self) -> usize {
        self.pool.status().max_size
    }

    /// The schema version the database is at (what `schema_version` holds).
    #[cfg(test)]
    pub(crate) async fn schema_version(&self) -> Result<i32> {
        let row = self
            .one("SELECT coalesce(max(version), 0) FROM schema_version", &[])
            .await?;
        get(&row, 0)
    }

    /// A connection from the pool.
    async fn client(&self) -> Result<deadpool_postgres::Object> {
        self.pool.get().await.map_err(|e| match e {
            deadpool_postgres::PoolError::Backend(e) => db_error(e),
            e => Error::Unreachable(format!(
                "the database {} is unavailable: {}",
                self.shown,
                describe_pool(&e)
            )),
        })
    }

    /// Runs one statement and answers its rows.
    async fn rows(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<Row>> {
        rows(&self.client().await?, sql, params).await
    }

    /// Runs one statement and answers its row, if any.
    async fn opt(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Option<Row>> {
        opt(&self.client().await?, sql, params).await
    }

    /// Runs one statement that answers one row.
    async fn one(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Row> {
        let c = self.client().await?;
        let st = prepare(&c, sql).await?;
        c.query_one(&st, params).await.map_err(db_error)
    }

    /// Runs one statement and answers how many rows it changed.
    async fn exec(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<u64> {
        exec(&self.client().await?, sql, params).await
    }

    /// Deletes counters that have run out, at most once per [`PRUNE_EVERY`].
    async fn prune(&self) -> Result<()> {
        {
            let mut last = self
                .pruned
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if last.is_some_and(|t| t.elapsed() < PRUNE_EVERY) {
                return Ok(());
            }
            *last = Some(Instant::now());
        }
        let now = chrono::Utc::now();
        let yesterday = now.date_naive() - chrono::Days::new(1);
        self.exec(
            "DELETE FROM rate_limits WHERE tat < $1 OR tat IS NULL",
            &[&now],
        )
        .await?;
        self.exec("DELETE FROM quotas WHERE day < $1", &[&yesterday])
            .await?;
        self.prune_change_log(now - CHANGE_LOG_KEEPS).await?;
        Ok(())
    }

    /// Deletes the change log's entries written before `before`, as a prefix of the log
    /// (every number up to the newest of them), and records the last number gone, so a
    /// replica can tell that its position was pruned.
    async fn prune_change_log(&self, before: chrono::DateTime<chrono::Utc>) -> Result<u64> {
        self.exec(
            "WITH cut AS (SELECT max(seq) AS seq FROM item_changes WHERE at < $1), \
                  gone AS (DELETE FROM item_changes WHERE seq <= (SELECT seq FROM cut)) \
             UPDATE items_meta SET pruned_through = (SELECT seq FROM cut) \
             WHERE (SELECT seq FROM cut) > pruned_through",
            &[&before],
        )
        .await
    }
}

/// Refuses a server Radar cannot keep its data in, saying why.
async fn check_server(client: &deadpool_postgres::Object, shown: &str) -> Result<()> {
    let row = client
        .query_one(
            "SELECT current_setting('server_version_num')::integer, \
                    current_setting('server_encoding')",
            &[],
        )
        .await
        .map_err(db_error)?;
    let version: i32 = get(&row, 0)?;
    let encoding: String = get(&row, 1)?;
    if version < 120_000 {
        return Err(Error::Open(format!(
            "the database {shown} runs PostgreSQL {}.{}; Radar needs 12 or newer",
            version / 10_000,
            version % 10_000
        )));
    }
    if encoding != "UTF8" {
        return Err(Error::Open(format!(
            "the database {shown} is encoded in {encoding}; Radar keeps text in UTF8: \
             create the database with ENCODING 'UTF8'"
        )));
    }
    Ok(())
}

#[async_trait::async_trait]
impl Backend for PostgresBackend {
    fn engine(&self) -> &'static str {
        "postgres"
    }

    async fn flush(&self) -> Result<()> {
        // Every write was committed before it returned.
        Ok(())
    }

    async fn upkeep(&self) -> Result<()> {
        self.prune().await
    }

    fn shared_change_log(&self) -> bool {
        true
    }

    async fn session_and_user(
        &self,
        session_id: &str,
    ) -> Result<Option<(std::sync::Arc<Session>, std::sync::Arc<User>)>> {
        let row = self
            .opt(
                "SELECT s.record, u.record FROM sessions AS s \
                 JOIN users AS u ON u.id = s.user_id WHERE s.id = $1",
                &[&session_id],
            )
            .await?;
        match row {
            Some(row) => Ok(Some((
                std::sync::Arc::new(record(&row, 0)?),
                std::sync::Arc::new(record(&row, 1)?),
            ))),
            None => Ok(None),
        }
    }

    async fn change_marks_in_session(
        &self,
        session: &str,
        reader: &str,
        item: &str,
        change: crate::backend::MarkChange,
        at: chrono::DateTime<chrono::Utc>,
    ) -> Result<crate::ItemMarks> {
        self.change_marks_as(Some(session), reader, item, change, at)
            .await
    }

    async fn feed_head(&self, reader: &str) -> Result<crate::backend::FeedHead> {
        let row = self
            .one(
                "SELECT m.version, coalesce(r.version, 0), p.record FROM items_meta AS m \
                 LEFT JOIN reader_state AS r ON r.reader = $1 \
                 LEFT JOIN profiles AS p ON p.user_id = $1",
                &[&reader],
            )
            .await?;
        let profile = match get::<Option<RawJson>>(&row, 2)? {
            Some(raw) => Some(serde_json::from_slice::<crate::Profile>(&raw.0)?),
            None => None,
        };
        Ok(crate::backend::FeedHead {
            items_version: get_unsigned(&row, 0)?,
            reader_version: get_unsigned(&row, 1)?,
            read_before: profile.as_ref().and_then(|p| p.read_before),
            stories: profile.is_none_or(|p| p.stories),
        })
    }

    fn transfer(&self) -> Option<&dyn crate::backend::transfer::Transfer> {
        Some(self)
    }

    async fn ping(&self) -> Result<()> {
        self.client()
            .await?
            .simple_query("")
            .await
            .map_err(db_error)?;
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// Statements.

/// Prepares a statement once per connection.
async fn prepare<C: GenericClient>(c: &C, sql: &str) -> Result<Statement> {
    c.prepare_cached(sql).await.map_err(db_error)
}

async fn rows<C: GenericClient>(
    c: &C,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<Vec<Row>> {
    let st = prepare(c, sql).await?;
    c.query(&st, params).await.map_err(db_error)
}

async fn opt<C: GenericClient>(
    c: &C,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<Option<Row>> {
    let st = prepare(c, sql).await?;
    c.query_opt(&st, params).await.map_err(db_error)
}

async fn exec<C: GenericClient>(c: &C, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<u64> {
    let st = prepare(c, sql).await?;
    c.execute(&st, params).await.map_err(db_error)
}

/// A column of a row, or an error (never a panic) when it does not read as `T`.
fn get<'a, T: FromSql<'a>>(row: &'a Row, idx: usize) -> Result<T> {
    row.try_get(idx)
        .map_err(|e| Error::Storage(format!("reading a database row: {e}")))
}

/// A column that holds a count, a version or a sequence number, as unsigned (see
/// [`unsigned`]).
fn get_unsigned<T: TryFrom<i64>>(row: &Row, idx: usize) -> Result<T> {
    unsigned(get::<i64>(row, idx)?)
}

/// A `bigint` count, version or sequence number as the store's unsigned type. PostgreSQL
/// has no unsigned integers, so these are `bigint` and never written negative; one that
/// is, or that does not fit `T`, is an error (never a panic).
fn unsigned<T: TryFrom<i64>>(n: i64) -> Result<T> {
    T::try_from(n)
        .map_err(|_| Error::Storage(format!("reading a database row: {n} is not a count")))
}

/// A count, limit or offset as a `bigint` parameter, at most `i64::MAX` (no table holds
/// as many rows).
fn bigint(n: impl TryInto<i64>) -> i64 {
    n.try_into().unwrap_or(i64::MAX)
}

/// A count of rows a statement changed, at most `usize::MAX`.
fn changed(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// A record kept as JSON.
fn record<T: serde::de::DeserializeOwned>(row: &Row, idx: usize) -> Result<T> {
    let raw: RawJson = get(row, idx)?;
    Ok(serde_json::from_slice(&raw.0)?)
}

/// A record as the JSON kept for it.
fn to_record<T: serde::Serialize>(v: &T) -> Result<Vec<u8>> {
    Ok(serde_json::to_vec(v)?)
}

/// Prepares the statements of a pipeline, one by one and in order (a statement not yet
/// prepared on this connection costs a round trip). Then their executions can be sent
/// together (`try_join`): each is sent when first polled, in the order given, and the
/// server runs them in that order, so none waits for the answers of the others.
async fn prepare_all<C: GenericClient, const N: usize>(
    c: &C,
    sqls: [&str; N],
) -> Result<[Statement; N]> {
    let mut out = Vec::with_capacity(N);
    for sql in sqls {
        out.push(prepare(c, sql).await?);
    }
    Ok(out
        .try_into()
        .unwrap_or_else(|_| unreachable!("as many statements as asked")))
}

/// Runs one statement; `broke` turns the errors it knows (a constraint broken) into
/// the store's, the rest are [`db_error`]s.
async fn exec_or<C: GenericClient>(
    c: &C,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
    broke: impl FnOnce(&tokio_postgres::Error) -> Option<Error>,
) -> Result<u64> {
    let st = prepare(c, sql).await?;
    c.execute(&st, params)
        .await
        .map_err(|e| broke(&e).unwrap_or_else(|| db_error(e)))
}

// ---------------------------------------------------------------------------------------
// JSON as PostgreSQL's `json` type keeps it: its text, byte for byte.

/// JSON text to store in a `json` column as it is (the binary form of `json` is its
/// text).
#[derive(Debug)]
struct JsonText<'a>(&'a [u8]);

impl ToSql for JsonText<'_> {
    fn to_sql(
        &self,
        _: &Type,
        out: &mut BytesMut,
    ) -> std::result::Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        out.extend_from_slice(self.0);
        Ok(IsNull::No)
    }

    fn accepts(ty: &Type) -> bool {
        *ty == Type::JSON
    }

    to_sql_checked!();
}

/// The text of a `json` column as stored.
struct RawJson(Json);

impl<'a> FromSql<'a> for RawJson {
    fn from_sql(
        _: &Type,
        raw: &'a [u8],
    ) -> std::result::Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(Self(Json::copy_from_slice(raw)))
    }

    fn accepts(ty: &Type) -> bool {
        *ty == Type::JSON
    }
}

// ---------------------------------------------------------------------------------------
// Errors.

/// A database error as the store's error: an unreachable or overloaded database, a
/// connection lost, or a transaction to try again is [`Error::Unreachable`] (the daemon
/// answers 503 with Retry-After); any other failure of the database is
/// [`Error::Storage`]. Messages never carry a statement's values (PostgreSQL's DETAIL
/// may quote them).
fn db_error(e: tokio_postgres::Error) -> Error {
    let what = describe(&e);
    if is_unreachable(&e) {
        Error::Unreachable(format!("the database is unreachable: {what}"))
    } else if matches!(
        e.code(),
        Some(c) if *c == SqlState::T_R_SERIALIZATION_FAILURE || *c == SqlState::T_R_DEADLOCK_DETECTED
    ) {
        Error::Unreachable(format!("the database asked to try again: {what}"))
    } else {
        Error::Storage(format!("database error: {what}"))
    }
}

/// Whether the error says the database cannot be reached or is not accepting work:
/// the connection closed or failed, the server is shutting down or starting, or it has
/// no connection slot left.
fn is_unreachable(e: &tokio_postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    match e.code() {
        None => e.as_db_error().is_none(),
        Some(code) => {
            let c = code.code();
            c.starts_with("08") || c.starts_with("57P") || c.starts_with("53")
        }
    }
}

/// What went wrong, without the values a DETAIL line may quote.
fn describe(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{} ({})", db.message(), db.code().code()),
        None => e.to_string(),
    }
}

fn describe_pool(e: &deadpool_postgres::PoolError) -> String {
    match e {
        deadpool_postgres::PoolError::Backend(e) => describe(e),
        deadpool_postgres::PoolError::Timeout(_) => {
            "no connection could be had in time (the database is slow to answer, \
             unreachable, or every connection of the pool is busy)"
                .into()
        }
        e => e.to_string(),
    }
}

/// Whether a database error is the violation of a unique constraint, and which.
fn unique_violation(e: &tokio_postgres::Error) -> Option<&str> {
    (e.code() == Some(&SqlState::UNIQUE_VIOLATION))
        .then(|| e.as_db_error().and_then(|d| d.constraint()))
        .flatten()
}

/// Whether a database error is the violation of a foreign key, and which.
fn foreign_key_violation(e: &tokio_postgres::Error) -> Option<&str> {
    (e.code() == Some(&SqlState::FOREIGN_KEY_VIOLATION))
        .then(|| e.as_db_error().and_then(|d| d.constraint()))
        .flatten()
}
