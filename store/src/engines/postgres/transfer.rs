//! What PostgreSQL answers for moving an install (see [`crate::backend::transfer`]): the
//! records the backend interface never lists, read straight from their tables.

use chrono::{DateTime, Utc};

use super::{PostgresBackend, get, record};
use crate::backend::transfer::Transfer;
use crate::secrets::SecretRecord;
use crate::sessions::RefreshRecord;
use crate::{CheckoutSession, Mark, Result};

/// A page size as a `bigint` parameter.
fn limit_of(limit: usize) -> i64 {
    super::bigint(limit)
}

#[async_trait::async_trait]
impl Transfer for PostgresBackend {
    async fn session_tokens(&self, session_id: &str) -> Result<Vec<([u8; 32], RefreshRecord)>> {
        let mut out = Vec::new();
        for row in self
            .rows(
                "SELECT hash, record FROM refresh_tokens WHERE session_id = $1 ORDER BY hash",
                &[&session_id],
            )
            .await?
        {
            let raw: &[u8] = get(&row, 0)?;
            if let Ok(hash) = <[u8; 32]>::try_from(raw) {
                out.push((hash, record(&row, 1)?));
            }
        }
        Ok(out)
    }

    async fn owned_secrets(&self, owner: &str) -> Result<Vec<SecretRecord>> {
        self.rows(
            "SELECT hash, owner, purpose, body FROM secrets WHERE owner = $1 ORDER BY purpose",
            &[&owner],
        )
        .await?
        .iter()
        .map(super::accounts::secret_of)
        .collect()
    }

    async fn reader_marks(
        &self,
        reader: &str,
    ) -> Result<Vec<(String, Vec<(Mark, DateTime<Utc>)>)>> {
        let mut out = Vec::new();
        for row in self
            .rows(
                "SELECT item, favorite_at, hidden_at, read_at FROM marks \
                 WHERE reader = $1 ORDER BY item",
                &[&reader],
            )
            .await?
        {
            let item: String = get(&row, 0)?;
            let mut marks = Vec::new();
            for (i, mark) in [(1, Mark::Favorite), (2, Mark::Hidden), (3, Mark::Read)] {
                if let Some(at) = get::<Option<DateTime<Utc>>>(&row, i)? {
                    marks.push((mark, at));
                }
            }
            out.push((item, marks));
        }
        Ok(out)
    }

    async fn checkouts_after(
        &self,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<CheckoutSession>> {
        self.rows(
            "SELECT record FROM checkouts WHERE $1::text IS NULL OR id > $1 ORDER BY id LIMIT $2",
            &[&after, &limit_of(limit)],
        )
        .await?
        .iter()
        .map(|row| record(row, 0))
        .collect()
    }

    async fn feed_entries(
        &self,
        feed_id: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<(String, String)>> {
        self.rows(
            "SELECT guid, item_id FROM feed_entries \
             WHERE feed_id = $1 AND ($2::text IS NULL OR guid > $2) ORDER BY guid LIMIT $3",
            &[&feed_id, &after, &limit_of(limit)],
        )
        .await?
        .iter()
        .map(|row| Ok((get(row, 0)?, get(row, 1)?)))
        .collect()
    }

    async fn flags_set(&self) -> Result<Vec<String>> {
        self.rows("SELECT name FROM flags ORDER BY name", &[])
            .await?
            .iter()
            .map(|row| get(row, 0))
            .collect()
    }

    async fn stored_secret(&self, name: &str) -> Result<Option<Vec<u8>>> {
        match self
            .opt(
                "SELECT secret FROM shared_secrets WHERE name = $1",
                &[&name],
            )
            .await?
        {
            Some(row) => Ok(Some(get(&row, 0)?)),
            None => Ok(None),
        }
    }
}
