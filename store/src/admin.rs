//! What operators need beyond the readers' methods: idempotent imports that say what they
//! did, and listings for the admin commands. The listings that walk every user are for
//! operators only and never run inside a request handler.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::backend::NewestQuery;
use crate::{NewItem, NewsItem, Result, Store, User, from_json};

/// What importing one item did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ImportStatus {
    /// A new item.
    Added,
    /// An existing item (same id or URL) got new content.
    Updated,
    /// An existing item already held exactly this content; nothing was written.
    Unchanged,
}

/// The result of [`Store::import_item`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportOutcome {
    /// The item's id.
    pub id: String,
    /// What happened.
    pub status: ImportStatus,
}

/// True when storing `new` over `old` would change nothing a reader sees.
fn same_content(old: &NewsItem, new: &NewItem) -> bool {
    old.title == new.title
        && old.summary == new.summary
        && old.short == new.short
        && old.content == new.content
        && old.url == new.url
        && old.published_date == new.published_date
        && old.source == new.source_name()
}

/// Items an import holds and writes before it syncs them. About 30 MB of news-sized
/// items are held at once.
pub(crate) const IMPORT_BATCH: usize = 16 * 1024;

/// How long an import hands items to the search index writer before it commits them.
/// Each commit writes out the segments the writer holds, and tantivy merges them again
/// later: committing once per batch cost a tenth of a million-item import (see
/// `bench/README.md`). Until its commit, a batch's items are left in the change log, and
/// a crash has them indexed again when the store opens.
const IMPORT_COMMIT_EVERY: Duration = Duration::from_secs(30);

/// The change log entries of what an import handed to the index writer since its last
/// commit, and when that was.
struct Uncommitted {
    changes: Vec<u64>,
    since: Instant,
}

impl Store {
    /// Adds or updates an item like [`Store::upsert_item`], but leaves an identical item
    /// untouched and says which of the three happened. Durable on return.
    pub async fn import_item(&self, new: NewItem) -> Result<ImportOutcome> {
        let new = new.validate()?;
        if let Some(old) = self.existing_item(&new).await?
            && same_content(&old, &new)
        {
            return Ok(ImportOutcome {
                id: old.id,
                status: ImportStatus::Unchanged,
            });
        }
        let up = self.upsert_item(new).await?;
        let status = if up.created {
            ImportStatus::Added
        } else {
            ImportStatus::Updated
        };
        Ok(ImportOutcome { id: up.id, status })
    }

    /// Imports many items like [`Store::import_item`], in batches of [`IMPORT_BATCH`],
    /// each written [`crate::items::ITEMS_PER_WRITE`] items at a time and synced once.
    /// The search index is committed once every [`IMPORT_COMMIT_EVERY`] and at the end,
    /// so every item is searchable when this returns. Items are taken from `items` as they
    /// are needed, so a caller that parses them lazily holds one batch at a time. Each
    /// input's outcome is told to `outcome` with its position among the inputs (an
    /// invalid one with its reason), not always in input order; a storage failure stops
    /// the import and is the error. Two inputs for the same id or URL are applied in
    /// order, so an exact repeat counts as unchanged.
    pub async fn import_items(
        &self,
        items: impl IntoIterator<Item = NewItem>,
        mut outcome: impl FnMut(usize, Result<ImportOutcome>),
    ) -> Result<()> {
        let mut index = Uncommitted {
            changes: Vec::new(),
            since: Instant::now(),
        };
        let written = self.import_all(items, &mut outcome, &mut index).await;
        // What was written before a failure is committed all the same.
        let committed = self
            .commit_index(self.lock_replica().await, &mut index.changes)
            .await;
        written.and(committed)
    }

    async fn import_all(
        &self,
        items: impl IntoIterator<Item = NewItem>,
        outcome: &mut impl FnMut(usize, Result<ImportOutcome>),
        index: &mut Uncommitted,
    ) -> Result<()> {
        let mut pending: Vec<(usize, NewItem)> = Vec::new();
        let mut pending_keys = std::collections::HashSet::new();
        for (i, item) in items.into_iter().enumerate() {
            let item = match item.validate() {
                Ok(item) => item,
                Err(e) => {
                    outcome(i, Err(e));
                    continue;
                }
            };
            let key = item.id.clone().or_else(|| item.url.clone());
            if key.as_ref().is_some_and(|k| pending_keys.contains(k)) {
                self.import_batch(&mut pending, outcome, index).await?;
                pending_keys.clear();
            }
            if let Some(old) = self.existing_item(&item).await?
                && same_content(&old, &item)
            {
                let status = ImportStatus::Unchanged;
                outcome(i, Ok(ImportOutcome { id: old.id, status }));
                continue;
            }
            pending_keys.extend(key);
            pending.push((i, item));
            if pending.len() >= IMPORT_BATCH {
                self.import_batch(&mut pending, outcome, index).await?;
                pending_keys.clear();
            }
        }
        self.import_batch(&mut pending, outcome, index).await
    }

    /// Writes the pending inputs of an import, tells each its outcome, and commits the
    /// search index if the last commit is [`IMPORT_COMMIT_EVERY`] old.
    async fn import_batch(
        &self,
        pending: &mut Vec<(usize, NewItem)>,
        outcome: &mut impl FnMut(usize, Result<ImportOutcome>),
        index: &mut Uncommitted,
    ) -> Result<()> {
        if pending.is_empty() {
            return Ok(());
        }
        let (at, batch): (Vec<usize>, Vec<NewItem>) = pending.drain(..).unzip();
        let writer = self.lock_replica().await;
        let (done, _) = self
            .write_checked(
                writer.as_deref(),
                batch.into_iter().map(Ok),
                &mut index.changes,
            )
            .await?;
        if index.since.elapsed() >= IMPORT_COMMIT_EVERY {
            self.commit_index(writer, &mut index.changes).await?;
            index.since = Instant::now();
        }
        for (i, up) in at.into_iter().zip(done) {
            let status = if up.created {
                ImportStatus::Added
            } else {
                ImportStatus::Updated
            };
            outcome(i, Ok(ImportOutcome { id: up.id, status }));
        }
        Ok(())
    }

    /// Whether the daemon's schedule already wrote (or tried to write) the summary of
    /// `week`, so a summary the operator removed is not written again behind their back.
    pub async fn summary_scheduled(&self, week: &str) -> Result<bool> {
        self.backend()
            .flag(&format!("summary_scheduled:{week}"))
            .await
    }

    /// Records that the schedule handled the summary of `week`; answers true for the one
    /// caller that recorded it first. Durable on return.
    pub async fn record_summary_scheduled(&self, week: &str) -> Result<bool> {
        self.backend()
            .set_flag(&format!("summary_scheduled:{week}"))
            .await
    }

    /// The newest `limit` items, newest first (for operators' listings).
    pub async fn newest_items(&self, limit: usize) -> Result<Vec<NewsItem>> {
        let page = self
            .backend()
            .newest(NewestQuery {
                reader: None,
                leave_out: &[],
                after: None,
                since_ms: None,
                limit,
                leads_only: false,
            })
            .await?;
        page.items.iter().map(|json| from_json(json)).collect()
    }

    /// How many accounts there are.
    pub async fn user_count(&self) -> Result<u64> {
        self.backend().user_count().await
    }

    /// Every account in e-mail order, calling `progress` after each one. Walks all users:
    /// for operators only, never inside a request handler.
    pub async fn all_users(&self, mut progress: impl FnMut()) -> Result<Vec<User>> {
        const PAGE: usize = 1024;
        let mut out: Vec<User> = Vec::new();
        loop {
            let after = out.last().map(|u| u.email.clone());
            let page = self.backend().users_after(after.as_deref(), PAGE).await?;
            let done = page.len() < PAGE;
            for user in page {
                out.push(user);
                progress();
            }
            if done {
                return Ok(out);
            }
        }
    }

    /// Deletes an account and every record of it anywhere in the store: what
    /// [`Store::delete_user`] deletes, and the mails kept for its address.
    pub async fn purge_user(&self, id: &str) -> Result<User> {
        let user = self.delete_user(id).await?;
        self.backend().remove_mails_to(&user.email).await?;
        Ok(user)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Imports `items` and answers each one's outcome, in input order; fails the test if
    /// any input has none or two.
    pub(crate) async fn import_all(
        store: &Store,
        items: Vec<NewItem>,
    ) -> Vec<Result<ImportOutcome>> {
        let mut out: Vec<Option<Result<ImportOutcome>>> =
            std::iter::repeat_with(|| None).take(items.len()).collect();
        store
            .import_items(items, |i, o| assert!(out[i].replace(o).is_none()))
            .await
            .unwrap();
        out.into_iter().map(|o| o.expect("an outcome")).collect()
    }
    use crate::items::tests::new_item;
    use crate::testing::store_tests;

    store_tests! {
        async fn import_says_added_updated_or_unchanged(store) {
            let item = new_item("A", Some("https://a.example/1"), "2026-01-01T00:00:00Z");
            let a = store.import_item(item.clone()).await.unwrap();
            assert_eq!(a.status, ImportStatus::Added);
            assert_eq!(
                store.import_item(item.clone()).await.unwrap(),
                ImportOutcome {
                    id: a.id.clone(),
                    status: ImportStatus::Unchanged
                }
            );
            let edited = NewItem {
                summary: "New summary".into(),
                ..item
            };
            assert_eq!(
                store.import_item(edited).await.unwrap().status,
                ImportStatus::Updated
            );
            assert_eq!(store.item_count().await.unwrap(), 1);
        }

        async fn batch_import_applies_repeats_in_order(store) {
            let a = new_item("A", Some("https://a.example/1"), "2026-01-01T00:00:00Z");
            let a2 = NewItem {
                summary: "changed".into(),
                ..a.clone()
            };
            let bad = new_item("", None, "2026-01-01T00:00:00Z");
            let out = import_all(
                &store,
                vec![
                    a.clone(),
                    a.clone(),
                    bad,
                    a2,
                    new_item("B", None, "2026-01-02T00:00:00Z"),
                ],
            )
            .await;
            let status: Vec<_> = out
                .iter()
                .map(|o| o.as_ref().map(|o| o.status).map_err(std::string::ToString::to_string))
                .collect();
            assert_eq!(status[0], Ok(ImportStatus::Added));
            assert_eq!(status[1], Ok(ImportStatus::Unchanged));
            assert!(status[2].as_ref().unwrap_err().contains("title"));
            assert_eq!(status[3], Ok(ImportStatus::Updated));
            assert_eq!(status[4], Ok(ImportStatus::Added));
            assert_eq!(store.item_count().await.unwrap(), 2);
        }

        async fn newest_items_and_users_are_listed_in_order(store) {
            store
                .upsert_item(new_item("Old", None, "2026-01-01T00:00:00Z"))
                .await
                .unwrap();
            store
                .upsert_item(new_item("New", None, "2026-02-01T00:00:00Z"))
                .await
                .unwrap();
            let titles: Vec<_> = store
                .newest_items(10)
                .await
                .unwrap()
                .into_iter()
                .map(|i| i.title)
                .collect();
            assert_eq!(titles, ["New", "Old"]);
            assert_eq!(store.newest_items(1).await.unwrap().len(), 1);
            store
                .create_user("b@example.com", "h".into(), Default::default(), true)
                .await
                .unwrap();
            store
                .create_user("a@example.com", "h".into(), Default::default(), true)
                .await
                .unwrap();
            let mut seen = 0;
            let emails: Vec<_> = store
                .all_users(|| seen += 1)
                .await
                .unwrap()
                .into_iter()
                .map(|u| u.email)
                .collect();
            assert_eq!(
                (emails, seen),
                (
                    vec!["a@example.com".to_string(), "b@example.com".to_string()],
                    2
                )
            );
        }

        async fn purge_leaves_nothing_of_the_user(store) {
            let u = store
                .create_user("gone@example.com", "h".into(), Default::default(), true)
                .await
                .unwrap();
            let keep = store
                .create_user("keep@example.com", "h".into(), Default::default(), true)
                .await
                .unwrap();
            store.api_key(&u.id).await.unwrap();
            store.join_waitlist(&u).await.unwrap();
            store.set_resume(&u.id, "resume").await.unwrap();
            store
                .outbox_add("gone@example.com", "Reset", "link", "recovery")
                .await
                .unwrap();
            store
                .outbox_add("keep@example.com", "Reset", "link", "recovery")
                .await
                .unwrap();
            store.purge_user(&u.id).await.unwrap();
            assert!(store.user(&u.id).await.unwrap().is_none());
            if let Some(engine) = store.internals() {
                assert!(!engine.index_has("userid_apikey", u.id.as_bytes()));
                assert!(!engine.index_has("userid_profile", u.id.as_bytes()));
            }
            assert!(store.waitlist_entry(&u.id).await.unwrap().is_none());
            let left: Vec<_> = store
                .outbox_list()
                .await
                .unwrap()
                .into_iter()
                .map(|m| m.to)
                .collect();
            assert_eq!(left, ["keep@example.com"]);
            assert!(store.user(&keep.id).await.unwrap().is_some());
            assert!(matches!(
                store.purge_user(&u.id).await,
                Err(crate::Error::NotFound("user"))
            ));
        }
    }
}
