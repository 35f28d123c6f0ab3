//! What reading does to read state: opening an item the reader has not marked marks it
//! read (as every reader of the field does), and the count of what is left to read.
//!
//! The server decides both, so the web app and the terminal agree: a client says where it
//! opened the item from and draws the answer.

use chrono::{DateTime, Duration, Utc};

use radar_api::{ItemMarks, Mark, OpenedFrom};

use crate::backend::MarkChange;
use crate::{Result, Store, Viewer};

/// What opening an item did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opening {
    /// Whether this opening marked it read.
    pub marked_read: bool,
    /// Its marks now.
    pub marks: ItemMarks,
}

/// Adds the read mark and clears nothing: taken back at once if another mark turns out
/// to be there (see [`Store::open_item`]).
const ADD_READ: MarkChange = MarkChange {
    clear: ItemMarks::NONE,
    set: Some(Mark::Read),
};

/// Takes the read mark back.
const TAKE_READ_BACK: MarkChange = MarkChange {
    clear: ItemMarks::only(Mark::Read),
    set: None,
};

/// A reader's cut-off after a change, and the one before it (for an undo).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadBefore {
    /// Items published before this and without a mark count as read.
    pub read_before: Option<DateTime<Utc>>,
    /// The cut-off before the change.
    pub previous: Option<DateTime<Utc>>,
}

impl Store {
    /// "Mark all read" (`older_than` zero) or "mark older than a day / a week": one write,
    /// whatever the number of items. Items published before `now - older_than` that carry
    /// no mark count as read from now on; marked items keep their marks. The cut-off only
    /// moves forward here (a week after "all" changes nothing); [`Store::set_read_before`]
    /// puts back an earlier one.
    pub async fn mark_read_before(&self, user: &str, older_than: Duration) -> Result<ReadBefore> {
        let at = Utc::now() - older_than;
        let mut previous = None;
        let profile = self
            .change_profile(user, |p| {
                previous = p.read_before;
                p.read_before = Some(p.read_before.map_or(at, |t| t.max(at)));
            })
            .await?;
        Ok(ReadBefore {
            read_before: profile.read_before,
            previous,
        })
    }

    /// Sets the reader's cut-off exactly (none: every unmarked item is unread again): the
    /// undo of [`Store::mark_read_before`].
    pub async fn set_read_before(
        &self,
        user: &str,
        at: Option<DateTime<Utc>>,
    ) -> Result<ReadBefore> {
        let mut previous = None;
        let profile = self
            .change_profile(user, |p| {
                previous = p.read_before;
                p.read_before = at;
            })
            .await?;
        Ok(ReadBefore {
            read_before: profile.read_before,
            previous,
        })
    }

    /// The reader opened an item from `from`. An item with no mark, opened from the feed,
    /// Drops, TV or search by a reader who keeps mark-on-open on, is marked read; anything
    /// else is left as it is (a favourite stays a favourite). Unknown items are refused.
    ///
    /// "Read unless marked" is two steps no backend needs to know about: the read mark is
    /// added without clearing anything, and if the answer shows that another mark arrived
    /// in between (a favourite from another tab), the read mark is taken back. Either way
    /// the item ends with one mark, and the other mark, set on purpose, wins.
    pub async fn open_item(&self, user: &str, item: &str, from: OpenedFrom) -> Result<Opening> {
        let marks = self.item_marks(user, item).await?;
        let unmarked = marks == ItemMarks::default();
        if !unmarked || !from.reads() || !self.profile(user).await?.mark_on_open {
            // Still refuses an item that does not exist.
            self.item(item)
                .await?
                .ok_or(crate::Error::NotFound("item"))?;
            return Ok(Opening {
                marked_read: false,
                marks,
            });
        }
        let now = self
            .backend()
            .change_marks(user, item, ADD_READ, Utc::now())
            .await?;
        if now.favorite || now.hidden {
            let marks = self
                .backend()
                .change_marks(user, item, TAKE_READ_BACK, Utc::now())
                .await?;
            return Ok(Opening {
                marked_read: false,
                marks,
            });
        }
        self.mark_story(user, item, Mark::Read, true, true).await?;
        self.note_read(user, item, now).await;
        Ok(Opening {
            marked_read: true,
            marks: now,
        })
    }

    /// How many items the viewer may still read in their feed: the first feed page's
    /// `total`, counted from counters without walking any list.
    pub async fn unread_count(&self, viewer: &Viewer) -> Result<u64> {
        self.reachable(viewer, viewer.page_size()).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;
    use crate::items::tests::new_item;
    use crate::marks::tests::counts;
    use crate::testing::store_tests;

    async fn item(store: &Store, title: &str) -> String {
        store
            .upsert_item(new_item(title, None, "2026-01-01T00:00:00Z"))
            .await
            .unwrap()
            .id
    }

    store_tests! {
        async fn opening_from_the_feed_reads_an_unmarked_item_once(store) {
            let a = item(&store, "A").await;
            let opened = store.open_item("u", &a, OpenedFrom::Feed).await.unwrap();
            assert!(opened.marked_read && opened.marks.read);
            assert_eq!(counts(&store, "u").await, [0, 0, 1]);
            // Opening it again changes nothing more.
            let again = store.open_item("u", &a, OpenedFrom::Drops).await.unwrap();
            assert!(!again.marked_read && again.marks.read);
            assert_eq!(counts(&store, "u").await, [0, 0, 1]);
        }

        async fn opening_leaves_other_marks_and_own_lists_alone(store) {
            let fav = item(&store, "Fav").await;
            let shared = item(&store, "Shared").await;
            store.set_mark("u", &fav, Mark::Favorite).await.unwrap();
            let opened = store.open_item("u", &fav, OpenedFrom::Feed).await.unwrap();
            assert!(!opened.marked_read && opened.marks.favorite && !opened.marks.read);
            for from in [OpenedFrom::Favorites, OpenedFrom::Hidden, OpenedFrom::Read, OpenedFrom::Shared] {
                let opened = store.open_item("u", &shared, from).await.unwrap();
                assert_eq!(opened.marks, ItemMarks::default(), "{from:?}");
            }
            assert_eq!(counts(&store, "u").await, [1, 0, 0]);
        }

        async fn the_setting_turns_it_off_and_unknown_items_are_refused(store) {
            let a = item(&store, "A").await;
            store.set_mark_on_open("u", false).await.unwrap();
            let opened = store.open_item("u", &a, OpenedFrom::Feed).await.unwrap();
            assert!(!opened.marked_read && !opened.marks.read);
            for from in [OpenedFrom::Feed, OpenedFrom::Favorites] {
                assert!(matches!(
                    store.open_item("u", "nope", from).await,
                    Err(Error::NotFound("item"))
                ));
            }
        }

        async fn opening_while_the_item_is_favourited_ends_with_the_favourite(store) {
            for round in 0..20 {
                let a = item(&store, &format!("Raced {round}")).await;
                let (opened, fav) = tokio::join!(
                    store.open_item("u", &a, OpenedFrom::Feed),
                    store.set_mark("u", &a, Mark::Favorite)
                );
                opened.unwrap();
                fav.unwrap();
                let marks = store.item_marks("u", &a).await.unwrap();
                assert!(marks.favorite && !marks.read && !marks.hidden, "round {round}: {marks:?}");
            }
            assert_eq!(counts(&store, "u").await, [20, 0, 0]);
        }

        async fn the_unread_count_falls_with_each_read(store) {
            let ids = [item(&store, "A").await, item(&store, "B").await];
            let reader = Viewer { user_id: Some("u".into()), subscriber: true };
            assert_eq!(store.unread_count(&reader).await.unwrap(), 2);
            store.open_item("u", &ids[0], OpenedFrom::Feed).await.unwrap();
            assert_eq!(store.unread_count(&reader).await.unwrap(), 1);
            assert_eq!(
                store.unread_count(&reader).await.unwrap(),
                store.feed_page(&reader, None).await.unwrap().total
            );
        }

        async fn a_cut_off_reads_every_older_unmarked_item_in_one_write_and_undoes(store) {
            let now = Utc::now();
            let mut ids = Vec::new();
            for (title, hours) in [("New", 1), ("Day", 30), ("Week", 200), ("Fav", 300)] {
                let mut it = new_item(title, None, "2026-01-01T00:00:00Z");
                it.published_date = now - Duration::hours(hours);
                ids.push(store.upsert_item(it).await.unwrap().id);
            }
            store.set_mark("u", &ids[3], Mark::Favorite).await.unwrap();
            let reader = Viewer { user_id: Some("u".into()), subscriber: true };
            let feed = async |s: &Store| -> Vec<String> {
                s.feed_page(&reader, None).await.unwrap().items.into_iter().map(|i| i.title).collect()
            };
            assert_eq!(feed(&store).await, ["New", "Day", "Week", "Fav"]);

            let week = store.mark_read_before("u", Duration::days(7)).await.unwrap();
            assert_eq!(week.previous, None);
            assert_eq!(feed(&store).await, ["New", "Day"]);
            assert_eq!(store.unread_count(&reader).await.unwrap(), 2);
            let day = store.mark_read_before("u", Duration::days(1)).await.unwrap();
            assert_eq!(day.previous, week.read_before);
            assert_eq!(feed(&store).await, ["New"]);
            // A wider cut-off does not take back a narrower one.
            let again = store.mark_read_before("u", Duration::days(7)).await.unwrap();
            assert_eq!(again.read_before, day.read_before);
            let all = store.mark_read_before("u", Duration::zero()).await.unwrap();
            assert!(feed(&store).await.is_empty());
            assert_eq!(store.unread_count(&reader).await.unwrap(), 0);
            assert_eq!(store.feed_page(&reader, None).await.unwrap().total, 0);
            // Marks stay as they were: the favourite is still one, nothing was written per item.
            assert!(store.has_mark("u", &ids[3], Mark::Favorite).await.unwrap());
            assert_eq!(counts(&store, "u").await, [1, 0, 0]);
            // A free reader's count is capped as the feed is.
            let free = Viewer { user_id: Some("u".into()), subscriber: false };
            assert_eq!(store.unread_count(&free).await.unwrap(), 0);
            // Undo puts the earlier cut-off back.
            store.set_read_before("u", all.previous).await.unwrap();
            assert_eq!(feed(&store).await, ["New"]);
            store.set_read_before("u", None).await.unwrap();
            assert_eq!(feed(&store).await, ["New", "Day", "Week", "Fav"]);
            // Another reader never saw any of it.
            let other = Viewer { user_id: Some("v".into()), subscriber: true };
            assert_eq!(store.unread_count(&other).await.unwrap(), 4);
        }
    }
}
