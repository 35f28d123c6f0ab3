//! Readers' marks and shares in PostgreSQL: `marks` (one row per reader and item with
//! the time of each mark), `reader_state` (counts and version), `shares`.

use chrono::{DateTime, Utc};

use super::{JsonText, PostgresBackend, get, record, to_record};
use crate::backend::{MarkChange, MarkCounts, MarkStore, Share};
use crate::{Error, ItemMarks, Mark, Result};

/// A mark's bit in `radar_change_marks`'s arguments and answer.
fn bit(mark: Mark) -> i32 {
    1 << mark.index()
}

fn bits(marks: ItemMarks) -> i32 {
    Mark::ALL
        .into_iter()
        .filter(|m| marks.has(*m))
        .map(bit)
        .sum()
}

fn marks_of(bits: i32) -> ItemMarks {
    let mut marks = ItemMarks::default();
    for m in Mark::ALL {
        if bits & bit(m) != 0 {
            marks.set(m);
        }
    }
    marks
}

#[async_trait::async_trait]
impl MarkStore for PostgresBackend {
    async fn change_marks(
        &self,
        reader: &str,
        item: &str,
        change: MarkChange,
        at: DateTime<Utc>,
    ) -> Result<ItemMarks> {
        let clear = bits(change.clear);
        let set = change.set.map_or(0, bit);
        let row = self
            .one(
                "SELECT radar_change_marks($1, $2, $3, $4, $5)",
                &[&reader, &item, &clear, &set, &at],
            )
            .await?;
        match get::<Option<i32>>(&row, 0)? {
            None => Err(Error::NotFound("item")),
            Some(b) => Ok(marks_of(b)),
        }
    }

    async fn item_marks(&self, reader: &str, item: &str) -> Result<ItemMarks> {
        let row = self
            .opt(
                "SELECT favorite_at IS NOT NULL, hidden_at IS NOT NULL, read_at IS NOT NULL \
                 FROM marks WHERE reader = $1 AND item = $2",
                &[&reader, &item],
            )
            .await?;
        let Some(row) = row else {
            return Ok(ItemMarks::default());
        };
        Ok(ItemMarks {
            favorite: get(&row, 0)?,
            hidden: get(&row, 1)?,
            read: get(&row, 2)?,
        })
    }

    async fn marked_ids(&self, reader: &str, mark: Mark) -> Result<Vec<String>> {
        // One statement per mark, each walking its own partial index.
        let sql = match mark {
            Mark::Favorite => {
                "SELECT item FROM marks WHERE reader = $1 AND favorite_at IS NOT NULL \
                 ORDER BY favorite_at DESC, item DESC"
            }
            Mark::Hidden => {
                "SELECT item FROM marks WHERE reader = $1 AND hidden_at IS NOT NULL \
                 ORDER BY hidden_at DESC, item DESC"
            }
            Mark::Read => {
                "SELECT item FROM marks WHERE reader = $1 AND read_at IS NOT NULL \
                 ORDER BY read_at DESC, item DESC"
            }
        };
        let rows = self.rows(sql, &[&reader]).await?;
        rows.iter().map(|row| get(row, 0)).collect()
    }

    async fn mark_counts(&self, reader: &str) -> Result<MarkCounts> {
        let row = self
            .opt(
                "SELECT favorites, hidden, read FROM reader_state WHERE reader = $1",
                &[&reader],
            )
            .await?;
        let mut counts = MarkCounts::default();
        if let Some(row) = row {
            for m in Mark::ALL {
                counts.0[m.index()] = get::<i64>(&row, m.index())? as u64;
            }
        }
        Ok(counts)
    }

    async fn reader_version(&self, reader: &str) -> Result<u64> {
        let row = self
            .opt(
                "SELECT version FROM reader_state WHERE reader = $1",
                &[&reader],
            )
            .await?;
        Ok(match row {
            Some(row) => get::<i64>(&row, 0)? as u64,
            None => 0,
        })
    }

    async fn share(&self, reader: &str, item: &str, share: &Share) -> Result<()> {
        let body = to_record(share)?;
        let written = self
            .exec(
            "INSERT INTO shares (reader, item, at, record) \
             SELECT $1::text, $2::text, $3::timestamptz, $4::json WHERE EXISTS (SELECT 1 FROM items WHERE id = $2) \
             ON CONFLICT (reader, item) DO UPDATE SET at = excluded.at, record = excluded.record",
            &[&reader, &item, &share.at, &JsonText(&body)],
        )
        .await?;
        if written == 0 {
            return Err(Error::NotFound("item"));
        }
        Ok(())
    }

    async fn has_shared(&self, reader: &str, item: &str) -> Result<bool> {
        Ok(self
            .opt(
                "SELECT 1 FROM shares WHERE reader = $1 AND item = $2",
                &[&reader, &item],
            )
            .await?
            .is_some())
    }

    async fn shares(&self, reader: &str) -> Result<Vec<(String, Share)>> {
        let rows = self
            .rows(
                "SELECT item, record FROM shares WHERE reader = $1 ORDER BY at DESC, item DESC",
                &[&reader],
            )
            .await?;
        rows.iter()
            .map(|row| Ok((get(row, 0)?, record(row, 1)?)))
            .collect()
    }
}
