//! Weekly summaries, the outbox, readers' profiles and documents in PostgreSQL.

use chrono::{DateTime, Utc};

use super::{JsonText, PostgresBackend, changed, exec_or, record, to_record, unique_violation};
use crate::backend::{Doc, DocStore, OutboxStore, ProfileStore, SummaryStore};
use crate::{Error, Mail, Profile, Result, WeeklySummary};

#[async_trait::async_trait]
impl SummaryStore for PostgresBackend {
    async fn put_summary(&self, summary: &WeeklySummary) -> Result<()> {
        let body = to_record(summary)?;
        exec_or(
            &self.client().await?,
            "INSERT INTO summaries (id, start_date, record) VALUES ($1, $2, $3) \
             ON CONFLICT (id) DO UPDATE SET start_date = excluded.start_date, \
                 record = excluded.record",
            &[&summary.id, &summary.start_date, &JsonText(&body)],
            |e| {
                unique_violation(e).map(|_| {
                    Error::Conflict(format!(
                        "another summary covers the week starting {}",
                        summary.start_date.date_naive()
                    ))
                })
            },
        )
        .await?;
        Ok(())
    }

    async fn put_summary_once(&self, summary: &WeeklySummary) -> Result<bool> {
        let body = to_record(summary)?;
        let added = self
            .exec(
                "INSERT INTO summaries (id, start_date, record) VALUES ($1, $2, $3) \
                 ON CONFLICT DO NOTHING",
                &[&summary.id, &summary.start_date, &JsonText(&body)],
            )
            .await?;
        Ok(added == 1)
    }

    async fn summary(&self, id: &str) -> Result<Option<WeeklySummary>> {
        match self
            .opt("SELECT record FROM summaries WHERE id = $1", &[&id])
            .await?
        {
            Some(row) => Ok(Some(record(&row, 0)?)),
            None => Ok(None),
        }
    }

    async fn summary_of_week(&self, start: DateTime<Utc>) -> Result<Option<WeeklySummary>> {
        match self
            .opt(
                "SELECT record FROM summaries WHERE start_date = $1",
                &[&start],
            )
            .await?
        {
            Some(row) => Ok(Some(record(&row, 0)?)),
            None => Ok(None),
        }
    }

    async fn summaries(&self) -> Result<Vec<WeeklySummary>> {
        let found = self
            .rows(
                "SELECT record FROM summaries ORDER BY start_date DESC, id DESC",
                &[],
            )
            .await?;
        found.iter().map(|row| record(row, 0)).collect()
    }

    async fn remove_summary(&self, id: &str) -> Result<Option<WeeklySummary>> {
        match self
            .opt(
                "DELETE FROM summaries WHERE id = $1 RETURNING record",
                &[&id],
            )
            .await?
        {
            Some(row) => Ok(Some(record(&row, 0)?)),
            None => Ok(None),
        }
    }
}

#[async_trait::async_trait]
impl OutboxStore for PostgresBackend {
    async fn put_mail(&self, mail: &Mail) -> Result<()> {
        let body = to_record(mail)?;
        self.exec(
            "INSERT INTO mails (id, to_key, created_at, record) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (id) DO UPDATE SET to_key = excluded.to_key, \
                 created_at = excluded.created_at, record = excluded.record",
            &[
                &mail.id,
                &mail.to.to_lowercase(),
                &mail.created_at,
                &JsonText(&body),
            ],
        )
        .await?;
        Ok(())
    }

    async fn mail(&self, id: &str) -> Result<Option<Mail>> {
        match self
            .opt("SELECT record FROM mails WHERE id = $1", &[&id])
            .await?
        {
            Some(row) => Ok(Some(record(&row, 0)?)),
            None => Ok(None),
        }
    }

    async fn mails(&self) -> Result<Vec<Mail>> {
        let found = self
            .rows(
                "SELECT record FROM mails ORDER BY created_at DESC, id DESC",
                &[],
            )
            .await?;
        found.iter().map(|row| record(row, 0)).collect()
    }

    async fn remove_mails_to(&self, address: &str) -> Result<usize> {
        let n = self
            .exec(
                "DELETE FROM mails WHERE to_key = $1",
                &[&address.to_lowercase()],
            )
            .await?;
        Ok(changed(n))
    }
}

#[async_trait::async_trait]
impl ProfileStore for PostgresBackend {
    async fn profile(&self, user_id: &str) -> Result<Option<Profile>> {
        match self
            .opt(
                "SELECT record FROM profiles WHERE user_id = $1",
                &[&user_id],
            )
            .await?
        {
            Some(row) => Ok(Some(record(&row, 0)?)),
            None => Ok(None),
        }
    }

    async fn put_profile(&self, user_id: &str, profile: &Profile) -> Result<()> {
        let body = to_record(profile)?;
        self.exec(
            "INSERT INTO profiles (user_id, record) VALUES ($1, $2) \
             ON CONFLICT (user_id) DO UPDATE SET record = excluded.record",
            &[&user_id, &JsonText(&body)],
        )
        .await?;
        Ok(())
    }
}

/// Moves the version of the kind of the documents a statement changed (its rows answer
/// their kind); answers how many it changed. One statement, so one round trip.
fn bumping(change: &str) -> String {
    format!(
        "WITH changed AS ({change} RETURNING kind), \
         bumped AS (INSERT INTO doc_kinds (kind, version) SELECT kind, 1 FROM changed \
             ON CONFLICT (kind) DO UPDATE SET version = doc_kinds.version + 1) \
         SELECT count(*) FROM changed"
    )
}

#[async_trait::async_trait]
impl DocStore for PostgresBackend {
    async fn doc(&self, kind: &str, key: &str) -> Result<Option<Doc>> {
        Ok(self
            .opt(
                "SELECT version, body FROM docs WHERE kind = $1 AND key = $2",
                &[&kind, &key],
            )
            .await?
            .map(|row| Doc {
                version: u64::try_from(row.get::<_, i64>(0)).unwrap_or_default(),
                json: row.get(1),
            }))
    }

    async fn put_doc(
        &self,
        kind: &str,
        key: &str,
        json: Option<&[u8]>,
        expected: u64,
    ) -> Result<bool> {
        let expected = i64::try_from(expected)
            .map_err(|_| Error::Invalid(format!("version {expected} is out of range")))?;
        let row = match (json, expected) {
            (Some(json), 0) => {
                self.one(
                    &bumping(
                        "INSERT INTO docs (kind, key, version, body) VALUES ($1, $2, 1, $3) \
                         ON CONFLICT (kind, key) DO NOTHING",
                    ),
                    &[&kind, &key, &json],
                )
                .await?
            }
            (Some(json), _) => {
                self.one(
                    &bumping(
                        "UPDATE docs SET version = version + 1, body = $3 \
                         WHERE kind = $1 AND key = $2 AND version = $4",
                    ),
                    &[&kind, &key, &json, &expected],
                )
                .await?
            }
            (None, 0) => return Ok(self.doc(kind, key).await?.is_none()),
            (None, _) => {
                self.one(
                    &bumping("DELETE FROM docs WHERE kind = $1 AND key = $2 AND version = $3"),
                    &[&kind, &key, &expected],
                )
                .await?
            }
        };
        Ok(row.get::<_, i64>(0) == 1)
    }

    async fn doc_keys(&self, kind: &str, after: Option<&str>, limit: usize) -> Result<Vec<String>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = self
            .rows(
                "SELECT key FROM docs WHERE kind = $1 AND ($2::text IS NULL OR key > $2) \
                 ORDER BY key LIMIT $3",
                &[&kind, &after, &limit],
            )
            .await?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    async fn docs_version(&self, kind: &str) -> Result<u64> {
        Ok(self
            .opt("SELECT version FROM doc_kinds WHERE kind = $1", &[&kind])
            .await?
            .map_or(0, |r| u64::try_from(r.get::<_, i64>(0)).unwrap_or_default()))
    }
}
