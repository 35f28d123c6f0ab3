//! Readers' marks and shares in PostgreSQL: `marks` (one row per reader and item with
//! the time of each mark), `reader_state` (counts and version), `shares`.

use std::sync::LazyLock;

use chrono::{DateTime, Utc};

use super::{JsonText, PostgresBackend, get, get_unsigned, record, to_record};
use crate::backend::{MarkChange, MarkCounts, MarkStore, Share};
use crate::{Error, ItemMarks, Mark, Result};

/// A mark's two columns: when the reader set it (in `marks`, with a partial index per
/// mark) and how many items carry it (in `reader_state`). The statements below are written
/// from this table once, so a mark kind is one line here and a migration.
pub(super) fn columns(mark: Mark) -> (&'static str, &'static str) {
    match mark {
        Mark::Favorite => ("favorite_at", "favorites"),
        Mark::Hidden => ("hidden_at", "hidden"),
        Mark::Read => ("read_at", "read"),
    }
}

/// `SELECT <each mark set?> FROM marks` for one reader and item.
static ITEM_MARKS: LazyLock<String> = LazyLock::new(|| {
    let set = Mark::ALL.map(|m| format!("{} IS NOT NULL", columns(m).0));
    format!(
        "SELECT {} FROM marks WHERE reader = $1 AND item = $2",
        set.join(", ")
    )
});

/// One statement per mark, each walking its own partial index, newest mark first.
static MARKED_IDS: LazyLock<[String; Mark::ALL.len()]> = LazyLock::new(|| {
    Mark::ALL.map(|m| {
        let at = columns(m).0;
        format!(
            "SELECT item FROM marks WHERE reader = $1 AND {at} IS NOT NULL \
             ORDER BY {at} DESC, item DESC"
        )
    })
});

/// The reader's count of each mark, in [`Mark::ALL`] order.
static MARK_COUNTS: LazyLock<String> = LazyLock::new(|| {
    let counts = Mark::ALL.map(|m| columns(m).1);
    format!(
        "SELECT {} FROM reader_state WHERE reader = $1",
        counts.join(", ")
    )
});

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

impl PostgresBackend {
    /// A change of marks in one statement, with the check of `session` when there is
    /// one (see [`crate::backend::Backend::change_marks_in_session`]).
    pub(super) async fn change_marks_as(
        &self,
        session: Option<&str>,
        reader: &str,
        item: &str,
        change: MarkChange,
        at: DateTime<Utc>,
    ) -> Result<ItemMarks> {
        let clear = bits(change.clear);
        let set = change.set.map_or(0, bit);
        let row = self
            .one(
                "SELECT radar_change_marks($1, $2, $3, $4, $5, $6)",
                &[&reader, &item, &clear, &set, &at, &session],
            )
            .await?;
        match get::<Option<i32>>(&row, 0)? {
            None => Err(Error::NotFound("item")),
            Some(-1) => Err(Error::NotFound("session")),
            Some(b) => Ok(marks_of(b)),
        }
    }
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
        self.change_marks_as(None, reader, item, change, at).await
    }

    async fn item_marks(&self, reader: &str, item: &str) -> Result<ItemMarks> {
        let row = self.opt(&ITEM_MARKS, &[&reader, &item]).await?;
        let mut marks = ItemMarks::NONE;
        if let Some(row) = row {
            for m in Mark::ALL {
                if get(&row, m.index())? {
                    marks.set(m);
                }
            }
        }
        Ok(marks)
    }

    async fn marked_ids(&self, reader: &str, mark: Mark) -> Result<Vec<String>> {
        let rows = self.rows(&MARKED_IDS[mark.index()], &[&reader]).await?;
        rows.iter().map(|row| get(row, 0)).collect()
    }

    async fn mark_counts(&self, reader: &str) -> Result<MarkCounts> {
        let row = self.opt(&MARK_COUNTS, &[&reader]).await?;
        let mut counts = MarkCounts::default();
        if let Some(row) = row {
            for m in Mark::ALL {
                counts.0[m.index()] = get_unsigned(&row, m.index())?;
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
            Some(row) => get_unsigned(&row, 0)?,
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
