//! Stories in PostgreSQL: `story_members` (each grouped item's story, its place in it and
//! whether another member leads it), `story_merges` (merged ids), and the covered count
//! on `items_meta` (see `migrations/0006_stories.sql`).
//!
//! A write of a story moves the items' version, which is the number of the change log's
//! last entry (see the module doc of `postgres`), so it logs an entry for the item it
//! places or takes out: a search replica indexes that item again, which changes
//! nothing. Taking the version's row first, as every item write does, also serialises
//! story writes, so two processes placing items at once never merge the same stories
//! twice or number two members alike.

use std::collections::HashSet;
use std::sync::LazyLock;

use deadpool_postgres::Transaction;
use futures_util::future::{try_join, try_join3};

use super::items::LOCK_ITEMS;
use super::{PostgresBackend, db_error, get, get_unsigned, prepare_all};
use crate::backend::StoryStore;
use crate::{Error, Mark, Result};

/// Logs a change of one item and moves the items' version to it, with the covered count.
const LOG: &str = "INSERT INTO item_changes (seq, item_id) VALUES ($1, $2)";
const META: &str = "UPDATE items_meta SET version = $1, covered = covered + $2";

/// The story a story id answers for: itself, or the story it merged into.
const RESOLVE: &str = "SELECT coalesce(m.into_story, o.id) FROM unnest($1::text[]) \
     WITH ORDINALITY AS o(id, n) LEFT JOIN story_merges AS m ON m.story = o.id ORDER BY o.n";

/// Moves the members of the stories `$2` (in that order, each in its own order) after
/// those of `$1`; answers how many more members are covered. When `$1` had none, the
/// first member moved leads it.
const MOVE_MEMBERS: &str = "WITH base AS (\
         SELECT coalesce(max(joined), 0) AS j FROM story_members WHERE story = $1), \
     moved AS (\
         SELECT item, covered AS was, row_number() OVER (\
             ORDER BY array_position($2::text[], story), joined) AS n \
         FROM story_members WHERE story = ANY($2::text[])), \
     up AS (\
         UPDATE story_members AS s SET story = $1, joined = base.j + moved.n, \
             covered = (base.j > 0 OR moved.n > 1) \
         FROM base, moved WHERE s.item = moved.item \
         RETURNING s.covered::integer - moved.was::integer AS gained) \
     SELECT coalesce(sum(gained), 0)::bigint FROM up";

/// The ids that led to the stories `$2` lead to `$1` now.
const REDIRECT_MERGES: &str =
    "UPDATE story_merges SET into_story = $1 WHERE into_story = ANY($2::text[])";
const RECORD_MERGES: &str =
    "INSERT INTO story_merges (story, into_story) SELECT unnest($2::text[]), $1";

/// Puts item `$1` last in story `$2` (its lead when the story has no member); nothing
/// when the item has a story. Answers whether it is covered, no row when it had a story.
const JOIN: &str = "INSERT INTO story_members (item, story, joined, covered) \
     SELECT $1, $2, coalesce(max(joined), 0) + 1, max(joined) IS NOT NULL \
     FROM story_members WHERE story = $2 \
     ON CONFLICT (item) DO NOTHING RETURNING covered";

/// Takes item `$1` out of its story and, when it led it, hands the lead to the next
/// member. Answers how many fewer members are covered (0 or 1), no row when the item
/// had no story. Every part reads the rows as they were before the statement, hence the
/// item left out of the next member by name.
const LEAVE: &str = "WITH gone AS (\
         DELETE FROM story_members WHERE item = $1 RETURNING story, covered), \
     next AS (\
         SELECT s.item FROM story_members AS s JOIN gone ON s.story = gone.story \
         WHERE NOT gone.covered AND s.item <> $1 ORDER BY s.joined LIMIT 1), \
     promoted AS (\
         UPDATE story_members AS s SET covered = false FROM next \
         WHERE s.item = next.item AND s.covered RETURNING 1) \
     SELECT (gone.covered OR EXISTS (SELECT 1 FROM promoted))::integer::bigint FROM gone";

/// How many of a reader's items that left their feed are covered: the reader's marks
/// (by their key) joined to the covered members' index.
pub(super) static COVERED_OUT_OF_FEED: LazyLock<String> = LazyLock::new(|| {
    let leaves = Mark::ALL
        .into_iter()
        .filter(|m| m.leaves_feed())
        .map(|m| format!("m.{} IS NOT NULL", super::marks::columns(m).0))
        .collect::<Vec<_>>()
        .join(" OR ");
    format!(
        "SELECT count(*) FROM marks AS m JOIN story_members AS s \
         ON s.item = m.item AND s.covered WHERE m.reader = $1 AND ({leaves})"
    )
});

/// The stories to merge into `root`, in the order named, each once: `resolved` is what
/// each named id answers for.
fn to_merge(root: &str, resolved: &[String]) -> Vec<String> {
    let mut seen = HashSet::from([root]);
    resolved
        .iter()
        .filter(|s| seen.insert(s.as_str()))
        .cloned()
        .collect()
}

/// Logs a story write as change `seq` of `item` and moves the items' version to it, with
/// the covered count by `gained`.
async fn log_change(tx: &Transaction<'_>, seq: i64, item: &str, gained: i64) -> Result<()> {
    let [log, meta] = prepare_all(tx, [LOG, META]).await?;
    try_join(
        tx.execute(&log, &[&seq, &item]),
        tx.execute(&meta, &[&seq, &gained]),
    )
    .await
    .map_err(db_error)?;
    Ok(())
}

#[async_trait::async_trait]
impl StoryStore for PostgresBackend {
    async fn place_in_story(&self, item: &str, story: &str, merged: &[String]) -> Result<()> {
        let named: Vec<&str> = std::iter::once(story)
            .chain(merged.iter().map(String::as_str))
            .collect();
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db_error)?;
        let [lock, resolve, move_members, redirect, record, join] = prepare_all(
            &tx,
            [
                LOCK_ITEMS,
                RESOLVE,
                MOVE_MEMBERS,
                REDIRECT_MERGES,
                RECORD_MERGES,
                JOIN,
            ],
        )
        .await?;
        let (head, resolved) = try_join(tx.query_one(&lock, &[]), tx.query(&resolve, &[&named]))
            .await
            .map_err(db_error)?;
        let base: i64 = get(&head, 0)?;
        let resolved = resolved
            .iter()
            .map(|row| get(row, 0))
            .collect::<Result<Vec<String>>>()?;
        let Some((root, others)) = resolved.split_first() else {
            return Err(Error::Storage("resolving a story answered no row".into()));
        };
        let merging = to_merge(root, others);
        let mut gained = 0i64;
        if !merging.is_empty() {
            let (moved, _, _) = try_join3(
                tx.query_one(&move_members, &[root, &merging]),
                tx.execute(&redirect, &[root, &merging]),
                tx.execute(&record, &[root, &merging]),
            )
            .await
            .map_err(db_error)?;
            gained += get::<i64>(&moved, 0)?;
        }
        let joined = tx
            .query_opt(&join, &[&item, root])
            .await
            .map_err(db_error)?;
        if let Some(row) = &joined {
            gained += i64::from(get::<bool>(row, 0)?);
        }
        // A call that changes nothing (the item placed already, no story to merge) leaves
        // the version where it is: every page kept under it still shows the stories.
        if !merging.is_empty() || joined.is_some() {
            log_change(&tx, base + 1, item, gained).await?;
        }
        tx.commit().await.map_err(db_error)?;
        Ok(())
    }

    async fn leave_story(&self, item: &str) -> Result<()> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db_error)?;
        let [lock, leave] = prepare_all(&tx, [LOCK_ITEMS, LEAVE]).await?;
        let (head, left) = try_join(tx.query_one(&lock, &[]), tx.query_opt(&leave, &[&item]))
            .await
            .map_err(db_error)?;
        let Some(left) = left else {
            // No story: nothing written, nothing to commit.
            return Ok(());
        };
        let seq = get::<i64>(&head, 0)? + 1;
        log_change(&tx, seq, item, -get::<i64>(&left, 0)?).await?;
        tx.commit().await.map_err(db_error)?;
        Ok(())
    }

    async fn story_of(&self, item: &str) -> Result<Option<String>> {
        match self
            .opt("SELECT story FROM story_members WHERE item = $1", &[&item])
            .await?
        {
            Some(row) => Ok(Some(get(&row, 0)?)),
            None => Ok(None),
        }
    }

    async fn story_members(&self, story: &str) -> Result<Vec<String>> {
        self.rows(
            "SELECT item FROM story_members WHERE story = \
             coalesce((SELECT into_story FROM story_merges WHERE story = $1), $1) \
             ORDER BY joined",
            &[&story],
        )
        .await?
        .iter()
        .map(|row| get(row, 0))
        .collect()
    }

    async fn covered_count(&self) -> Result<u64> {
        let row = self.one("SELECT covered FROM items_meta", &[]).await?;
        get_unsigned(&row, 0)
    }

    async fn covered_out_of_feed(&self, reader: &str) -> Result<u64> {
        let row = self.one(&COVERED_OUT_OF_FEED, &[&reader]).await?;
        get_unsigned(&row, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::to_merge;

    #[test]
    fn stories_merge_once_each_in_the_order_named() {
        let resolved: Vec<String> = ["b", "a", "c", "b"].map(String::from).into();
        assert_eq!(to_merge("a", &resolved), ["b", "c"]);
        assert!(to_merge("a", &[]).is_empty());
    }
}
