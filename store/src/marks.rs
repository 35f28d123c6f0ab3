//! A reader's marks on items (docs/product.md §4): favourite, hidden and read are mutually
//! exclusive, so setting one clears the others in the same atomic step; shares are
//! recorded separately and do not interact with them.
//!
//! Which marks a mark excludes is decided here ([`excluded_by`]); the backend applies
//! the change it is given (clear these, set that) atomically and keeps the reader's
//! counts in step.

use chrono::Utc;

use radar_api::ItemMarks;

#[cfg(test)]
use crate::backend::MarkCounts;
use crate::backend::{MarkChange, Share};
use crate::{Mark, NewsItem, Result, SharedItem, Store, from_json};

/// The marks that setting `mark` clears: every other one, since a reader's marks on an
/// item are mutually exclusive (docs/product.md §4).
pub(crate) fn excluded_by(mark: Mark) -> ItemMarks {
    let mut out = ItemMarks::default();
    for m in Mark::ALL.into_iter().filter(|m| *m != mark) {
        out.set(m);
    }
    out
}

/// The change that sets (`on`) or clears `mark`: setting clears what it excludes;
/// clearing touches only that mark.
pub(crate) fn change_of(mark: Mark, on: bool) -> MarkChange {
    if on {
        MarkChange {
            clear: excluded_by(mark),
            set: Some(mark),
        }
    } else {
        let mut clear = ItemMarks::default();
        clear.set(mark);
        MarkChange { clear, set: None }
    }
}

impl Store {
    /// Marks an item, clearing the marks it excludes atomically, and answers the item's
    /// marks now, once the change is on disk. Unknown items are refused.
    pub async fn set_mark(&self, user: &str, item: &str, mark: Mark) -> Result<ItemMarks> {
        self.change_mark(user, item, mark, true).await
    }

    /// Removes one mark and leaves the others alone, and answers the item's marks now,
    /// once the change is on disk. Unknown items are refused; clearing a mark the item
    /// does not have is not an error.
    pub async fn clear_mark(&self, user: &str, item: &str, mark: Mark) -> Result<ItemMarks> {
        self.change_mark(user, item, mark, false).await
    }

    /// Sets (`on`) or clears a mark as [`Store::set_mark`] and [`Store::clear_mark`] do.
    pub async fn change_mark(
        &self,
        user: &str,
        item: &str,
        mark: Mark,
        on: bool,
    ) -> Result<ItemMarks> {
        let marks = self
            .backend()
            .change_marks(user, item, change_of(mark, on), Utc::now())
            .await?;
        self.mark_story(user, item, mark, on, false).await?;
        if mark == Mark::Read && on {
            self.note_read(user, item, marks).await;
        }
        Ok(marks)
    }

    /// [`Store::change_mark`] asked by a signed-in request whose token names `session`:
    /// made only while that session exists and is `user`'s, else
    /// `Error::NotFound("session")` (signed out, or the account deleted, since the token
    /// was issued). The check costs no round trip of its own on a shared database.
    pub async fn change_mark_in_session(
        &self,
        session: &str,
        user: &str,
        item: &str,
        mark: Mark,
        on: bool,
    ) -> Result<ItemMarks> {
        let marks = self
            .backend()
            .change_marks_in_session(session, user, item, change_of(mark, on), Utc::now())
            .await?;
        self.mark_story(user, item, mark, on, false).await?;
        if mark == Mark::Read && on {
            self.note_read(user, item, marks).await;
        }
        Ok(marks)
    }

    /// Whether the item carries the mark for this user.
    pub async fn has_mark(&self, user: &str, item: &str, mark: Mark) -> Result<bool> {
        Ok(self.item_marks(user, item).await?.has(mark))
    }

    /// The user's marks on one item.
    pub async fn item_marks(&self, user: &str, item: &str) -> Result<ItemMarks> {
        self.backend().item_marks(user, item).await
    }

    /// How many items of each mark the user has (one read, whatever the number of marks).
    #[cfg(test)]
    pub(crate) async fn mark_counts(&self, user: &str) -> Result<MarkCounts> {
        self.backend().mark_counts(user).await
    }

    /// The user's items with this mark, most recently marked first.
    pub async fn marked_items(&self, user: &str, mark: Mark) -> Result<Vec<NewsItem>> {
        let ids = self.backend().marked_ids(user, mark).await?;
        self.items_in_order(&ids).await
    }

    /// The items of `ids` that exist, in that order.
    pub(crate) async fn items_in_order(&self, ids: &[String]) -> Result<Vec<NewsItem>> {
        self.backend()
            .items(ids)
            .await?
            .into_iter()
            .flatten()
            .map(|json| from_json(&json))
            .collect()
    }

    /// Records that the user shared an item on a platform (the latest share is kept),
    /// once the record is on disk.
    pub async fn record_share(&self, user: &str, item: &str, platform: &str) -> Result<()> {
        let share = Share {
            at: Utc::now(),
            platform: platform.to_string(),
        };
        self.backend().share(user, item, &share).await
    }

    /// Whether the user shared the item.
    pub async fn has_shared(&self, user: &str, item: &str) -> Result<bool> {
        self.backend().has_shared(user, item).await
    }

    /// The user's shared items, newest share first.
    pub async fn shared_items(&self, user: &str) -> Result<Vec<SharedItem>> {
        let shares = self.backend().shares(user).await?;
        let ids: Vec<String> = shares.iter().map(|(id, _)| id.clone()).collect();
        let items = self.backend().items(&ids).await?;
        let mut out = Vec::with_capacity(shares.len());
        for ((_, share), json) in shares.into_iter().zip(items) {
            if let Some(json) = json {
                out.push(SharedItem {
                    item: from_json(&json)?,
                    shared_at: share.at,
                    platform: share.platform,
                });
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::Error;
    use crate::items::tests::new_item;
    use crate::testing::{store_tests, user_with_id};

    /// The reader's counts of favourite, hidden and read items.
    pub(crate) async fn counts(store: &Store, user: &str) -> [u64; 3] {
        store.mark_counts(user).await.unwrap().0
    }

    store_tests! {
        async fn a_removed_item_cannot_be_marked_though_it_was_marked_before(store) {
            let id = store
                .upsert_item(new_item("A", None, "2026-01-01T00:00:00Z"))
                .await
                .unwrap()
                .id;
            // The first mark finds the item (sled then keeps its id as known to exist).
            store.set_mark("u", &id, Mark::Favorite).await.unwrap();
            store.remove_item(&id).await.unwrap();
            assert!(matches!(
                store.set_mark("u", &id, Mark::Favorite).await,
                Err(Error::NotFound(_))
            ));
        }

        async fn marks_are_mutually_exclusive(store) {
            let id = store
                .upsert_item(new_item("A", None, "2026-01-01T00:00:00Z"))
                .await
                .unwrap()
                .id;
            let all = async |s: &Store| {
                let mut has = [false; 3];
                for (h, m) in has
                    .iter_mut()
                    .zip([Mark::Favorite, Mark::Hidden, Mark::Read])
                {
                    *h = s.has_mark("u", &id, m).await.unwrap();
                }
                has
            };
            store.set_mark("u", &id, Mark::Favorite).await.unwrap();
            assert_eq!(all(&store).await, [true, false, false]);
            store.set_mark("u", &id, Mark::Read).await.unwrap();
            assert_eq!(all(&store).await, [false, false, true]);
            store.set_mark("u", &id, Mark::Hidden).await.unwrap();
            assert_eq!(all(&store).await, [false, true, false]);
            store.set_mark("u", &id, Mark::Favorite).await.unwrap();
            assert_eq!(all(&store).await, [true, false, false]);
            store.clear_mark("u", &id, Mark::Favorite).await.unwrap();
            assert_eq!(all(&store).await, [false, false, false]);
        }

        async fn unknown_items_cannot_be_marked(store) {
            assert!(matches!(
                store.set_mark("u", "nope", Mark::Read).await,
                Err(Error::NotFound("item"))
            ));
            assert!(matches!(
                store.record_share("u", "nope", "linkedin").await,
                Err(Error::NotFound("item"))
            ));
        }

        async fn lists_belong_to_one_user(store) {
            let a = store
                .upsert_item(new_item("A", None, "2026-01-01T00:00:00Z"))
                .await
                .unwrap()
                .id;
            let b = store
                .upsert_item(new_item("B", None, "2026-01-02T00:00:00Z"))
                .await
                .unwrap()
                .id;
            // Accounts whose ids are one a prefix of the other.
            user_with_id(&store, "u1").await;
            user_with_id(&store, "u10").await;
            store.set_mark("u1", &a, Mark::Favorite).await.unwrap();
            store.set_mark("u10", &b, Mark::Favorite).await.unwrap();
            let mine: Vec<_> = store
                .marked_items("u1", Mark::Favorite)
                .await
                .unwrap()
                .into_iter()
                .map(|i| i.id)
                .collect();
            assert_eq!(mine, vec![a.clone()]);
            store.record_share("u1", &a, "linkedin").await.unwrap();
            assert_eq!(store.shared_items("u1").await.unwrap().len(), 1);
            assert!(store.shared_items("u10").await.unwrap().is_empty());
            // Deleting an account is what forgets its marks.
            store.delete_user("u1").await.unwrap();
            assert!(
                store
                    .marked_items("u1", Mark::Favorite)
                    .await
                    .unwrap()
                    .is_empty()
            );
            assert_eq!(
                store
                    .marked_items("u10", Mark::Favorite)
                    .await
                    .unwrap()
                    .len(),
                1
            );
        }

        async fn counts_and_answers_follow_every_change(store) {
            let a = store
                .upsert_item(new_item("A", None, "2026-01-01T00:00:00Z"))
                .await
                .unwrap()
                .id;
            let b = store
                .upsert_item(new_item("B", None, "2026-01-02T00:00:00Z"))
                .await
                .unwrap()
                .id;
            let now = store.set_mark("u", &a, Mark::Favorite).await.unwrap();
            assert!(now.favorite && !now.hidden && !now.read);
            assert_eq!(counts(&store, "u").await, [1, 0, 0]);
            store.set_mark("u", &a, Mark::Read).await.unwrap();
            store.set_mark("u", &a, Mark::Read).await.unwrap();
            assert_eq!(
                counts(&store, "u").await,
                [0, 0, 1],
                "setting twice counts once"
            );
            store.set_mark("u", &b, Mark::Hidden).await.unwrap();
            assert_eq!(counts(&store, "u").await, [0, 1, 1]);
            assert_eq!(store.mark_counts("u").await.unwrap().out_of_feed(), 2);
            // Clearing a mark the item does not have changes nothing and reports the others.
            let now = store.clear_mark("u", &b, Mark::Favorite).await.unwrap();
            assert!(now.hidden);
            assert_eq!(counts(&store, "u").await, [0, 1, 1]);
            assert_eq!(store.item_marks("u", &b).await.unwrap(), now);
            store.clear_mark("u", &b, Mark::Hidden).await.unwrap();
            assert_eq!(counts(&store, "u").await, [0, 0, 1]);
            assert_eq!(counts(&store, "someone else").await, [0, 0, 0]);
        }

        async fn removing_an_item_clears_its_marks_for_everyone(store) {
            let a = store
                .upsert_item(new_item("A", None, "2026-01-01T00:00:00Z"))
                .await
                .unwrap()
                .id;
            store.set_mark("u1", &a, Mark::Read).await.unwrap();
            store.set_mark("u2", &a, Mark::Favorite).await.unwrap();
            store.remove_item(&a).await.unwrap();
            assert_eq!(counts(&store, "u1").await, [0, 0, 0]);
            assert_eq!(counts(&store, "u2").await, [0, 0, 0]);
            assert!(!store.has_mark("u1", &a, Mark::Read).await.unwrap());
            if let Some(engine) = store.internals() {
                assert_eq!(engine.index_len("itemuser_mark"), 0);
            }
        }
    }
}
