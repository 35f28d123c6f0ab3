//! Reading history (`reads`) and the reading totals (`read_totals`) in PostgreSQL.
//!
//! A read is one insert after the change of marks that set the read mark, not part of
//! `radar_change_marks`: that function's one round trip is kept for the marks, and a
//! read recorded a moment later is as good for a week's counts.

use chrono::{DateTime, Utc};

use super::{JsonText, PostgresBackend, RawJson, get};
use crate::Result;
use crate::backend::{Json, ReadEvent, ReadingStore};

/// A limit as PostgreSQL's `bigint`.
fn limit_of(limit: usize) -> i64 {
    i64::try_from(limit).unwrap_or(i64::MAX)
}

#[async_trait::async_trait]
impl ReadingStore for PostgresBackend {
    async fn record_read(&self, reader: &str, item: &str, at: DateTime<Utc>) -> Result<()> {
        self.exec(
            "INSERT INTO reads (reader, item, at) VALUES ($1, $2, $3)",
            &[&reader, &item, &at],
        )
        .await?;
        Ok(())
    }

    async fn reads_of(
        &self,
        reader: &str,
        since: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<(String, DateTime<Utc>)>> {
        let rows = self
            .rows(
                "SELECT item, at FROM reads WHERE reader = $1 AND at >= $2 \
                 ORDER BY at, item LIMIT $3",
                &[&reader, &since, &limit_of(limit)],
            )
            .await?;
        rows.iter()
            .map(|row| Ok((get::<String>(row, 0)?, get(row, 1)?)))
            .collect()
    }

    async fn reads_between(
        &self,
        since: DateTime<Utc>,
        until: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<ReadEvent>> {
        let rows = self
            .rows(
                "SELECT reader, item, at FROM reads WHERE at >= $1 AND at < $2 \
                 ORDER BY at, reader, item LIMIT $3",
                &[&since, &until, &limit_of(limit)],
            )
            .await?;
        rows.iter()
            .map(|row| {
                Ok(ReadEvent {
                    reader: get(row, 0)?,
                    item: get(row, 1)?,
                    at: get(row, 2)?,
                })
            })
            .collect()
    }

    async fn prune_reads(&self, before: DateTime<Utc>) -> Result<u64> {
        self.exec("DELETE FROM reads WHERE at < $1", &[&before])
            .await
    }

    async fn put_read_totals(&self, totals: &Json) -> Result<()> {
        self.exec(
            "INSERT INTO read_totals (id, record) VALUES (1, $1) \
             ON CONFLICT (id) DO UPDATE SET record = excluded.record",
            &[&JsonText(totals)],
        )
        .await?;
        Ok(())
    }

    async fn read_totals(&self) -> Result<Option<Json>> {
        match self
            .opt("SELECT record FROM read_totals WHERE id = 1", &[])
            .await?
        {
            Some(row) => Ok(Some(get::<RawJson>(&row, 0)?.0)),
            None => Ok(None),
        }
    }
}
