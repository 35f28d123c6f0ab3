//! Source feeds, the items their entries became, and the scheduler's leases in
//! PostgreSQL. A lease is a time in the feed's row: `lease_due_feeds` takes due feeds
//! whose lease has lapsed with `FOR UPDATE SKIP LOCKED`, so fetchers on any number of
//! nodes asking at once each get other feeds, and none waits for another.

use chrono::{DateTime, Utc};

use super::{
    JsonText, PostgresBackend, bigint, db_error, exec_or, foreign_key_violation, get, opt, record,
    to_record, unique_violation,
};
use crate::backend::SourceStore;
use crate::{Error, Feed, Result};

/// The trait's rule that changes a feed (spelled as the trait spells it).
type FeedChange<'a> = dyn FnMut(&mut Feed) + Send + 'a;

#[async_trait::async_trait]
impl SourceStore for PostgresBackend {
    async fn insert_feed(&self, feed: &Feed) -> Result<()> {
        let body = to_record(feed)?;
        exec_or(
            &self.client().await?,
            "INSERT INTO feeds (id, url, added_at, next_due, record) VALUES ($1, $2, $3, $4, $5)",
            &[
                &feed.id,
                &feed.url,
                &feed.added_at,
                &feed.next_due,
                &JsonText(&body),
            ],
            |e| {
                unique_violation(e)
                    .map(|_| Error::Conflict(format!("the feed {} is already added", feed.url)))
            },
        )
        .await?;
        Ok(())
    }

    async fn feed(&self, id: &str) -> Result<Option<Feed>> {
        match self
            .opt("SELECT record FROM feeds WHERE id = $1", &[&id])
            .await?
        {
            Some(row) => Ok(Some(record(&row, 0)?)),
            None => Ok(None),
        }
    }

    async fn feed_by_url(&self, url: &str) -> Result<Option<Feed>> {
        match self
            .opt("SELECT record FROM feeds WHERE url = $1", &[&url])
            .await?
        {
            Some(row) => Ok(Some(record(&row, 0)?)),
            None => Ok(None),
        }
    }

    async fn feeds(&self) -> Result<Vec<Feed>> {
        let found = self
            .rows("SELECT record FROM feeds ORDER BY added_at, id", &[])
            .await?;
        found.iter().map(|row| record(row, 0)).collect()
    }

    async fn update_feed(&self, id: &str, change: &mut FeedChange<'_>) -> Result<Feed> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db_error)?;
        let Some(row) = opt(
            &tx,
            "SELECT record FROM feeds WHERE id = $1 FOR UPDATE",
            &[&id],
        )
        .await?
        else {
            return Err(Error::NotFound("feed"));
        };
        let mut feed: Feed = record(&row, 0)?;
        change(&mut feed);
        if feed.id != id {
            return Err(Error::Invalid("a feed's id does not change".into()));
        }
        let body = to_record(&feed)?;
        // A new due time ends the lease: the fetch that held it is done.
        exec_or(
            &tx,
            "UPDATE feeds SET url = $2, added_at = $3, \
                 lease_until = CASE WHEN next_due IS DISTINCT FROM $4 THEN NULL \
                                    ELSE lease_until END, \
                 next_due = $4, record = $5 \
             WHERE id = $1",
            &[
                &id,
                &feed.url,
                &feed.added_at,
                &feed.next_due,
                &JsonText(&body),
            ],
            |e| {
                unique_violation(e)
                    .map(|_| Error::Conflict(format!("the feed {} is already added", feed.url)))
            },
        )
        .await?;
        tx.commit().await.map_err(db_error)?;
        Ok(feed)
    }

    async fn remove_feed(&self, id: &str) -> Result<Option<Feed>> {
        // Its entries go with it (ON DELETE CASCADE); the items stay.
        match self
            .opt("DELETE FROM feeds WHERE id = $1 RETURNING record", &[&id])
            .await?
        {
            Some(row) => Ok(Some(record(&row, 0)?)),
            None => Ok(None),
        }
    }

    async fn entry_item(&self, feed_id: &str, guid: &str) -> Result<Option<String>> {
        match self
            .opt(
                "SELECT item_id FROM feed_entries WHERE feed_id = $1 AND guid = $2",
                &[&feed_id, &guid],
            )
            .await?
        {
            Some(row) => Ok(Some(get(&row, 0)?)),
            None => Ok(None),
        }
    }

    async fn put_entry_item(&self, feed_id: &str, guid: &str, item_id: &str) -> Result<()> {
        exec_or(
            &self.client().await?,
            "INSERT INTO feed_entries (feed_id, guid, item_id) VALUES ($1, $2, $3) \
             ON CONFLICT (feed_id, guid) DO UPDATE SET item_id = excluded.item_id \
             WHERE feed_entries.item_id <> excluded.item_id",
            &[&feed_id, &guid, &item_id],
            |e| foreign_key_violation(e).map(|_| Error::NotFound("feed")),
        )
        .await?;
        Ok(())
    }

    async fn lease_due_feeds(
        &self,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<Feed>> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let client = self.client().await?;
        // The most overdue first; a feed another fetcher is taking right now (its row
        // locked) is skipped, not waited for.
        let found = super::rows(
            &client,
            "UPDATE feeds SET lease_until = $2 WHERE id IN ( \
                 SELECT id FROM feeds \
                 WHERE (next_due IS NULL OR next_due <= $1) \
                   AND (lease_until IS NULL OR lease_until <= $1) \
                 ORDER BY next_due NULLS FIRST, id LIMIT $3 \
                 FOR UPDATE SKIP LOCKED) \
             RETURNING record",
            &[&now, &until, &bigint(limit)],
        )
        .await?;
        let mut leased = Vec::with_capacity(found.len());
        for row in &found {
            let feed: Feed = record(row, 0)?;
            leased.push(feed);
        }
        leased.sort_by(|a, b| {
            (a.next_due.is_some(), a.next_due, &a.id).cmp(&(
                b.next_due.is_some(),
                b.next_due,
                &b.id,
            ))
        });
        Ok(leased)
    }
}
