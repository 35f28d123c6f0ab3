//! The feed a caller sees (spec sections 4, 6 and 9): newest first, without the items the
//! caller hid or read, capped at five for anonymous and free callers, in pages of twenty
//! for subscribers.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::{Error, FeedPage, Mark, NewsItem, Result, Store};

/// Items an anonymous or free caller may read in the feed, Drops and TV mode.
pub const FREE_LIMIT: usize = 5;
/// Items a subscriber gets per page (and per Read More).
pub const SUBSCRIBER_PAGE: usize = 20;

/// Who is asking for the feed.
#[derive(Debug, Clone, Default)]
pub struct Viewer {
    /// The signed-in user, if any.
    pub user_id: Option<String>,
    /// Whether that user is a subscriber (see [`Store::is_subscriber`]).
    pub subscriber: bool,
}

/// What a caller who is not a subscriber hears when they ask past their allowance.
fn beyond_allowance() -> Error {
    Error::Forbidden(format!(
        "Free accounts read the newest {FREE_LIMIT} items. Subscribe to read more."
    ))
}

impl Store {
    /// How many items the viewer can reach from the first page: every item they neither
    /// hid nor read, and for a caller who is not a subscriber at most one page. Counted
    /// from the item counter and the viewer's mark counts, without walking any list.
    fn reachable(&self, viewer: &Viewer, limit: usize) -> Result<u64> {
        let out_of_feed = match &viewer.user_id {
            Some(user) => self.mark_counts(user)?.out_of_feed(),
            None => 0,
        };
        let visible = self.item_count()?.saturating_sub(out_of_feed);
        Ok(if viewer.subscriber {
            visible
        } else {
            visible.min(limit as u64)
        })
    }

    /// The caller's feed page after `cursor` (from a previous page's `nextCursor`).
    pub fn feed_page(&self, viewer: &Viewer, cursor: Option<&str>) -> Result<FeedPage> {
        let limit = if viewer.subscriber {
            SUBSCRIBER_PAGE
        } else {
            FREE_LIMIT
        };
        let before = match cursor {
            None => None,
            Some(_) if !viewer.subscriber => {
                return Err(beyond_allowance());
            }
            Some(c) => Some(
                URL_SAFE_NO_PAD
                    .decode(c)
                    .ok()
                    .filter(|k| k.len() > 8)
                    .ok_or_else(|| {
                        Error::Invalid("cursor is not one this server gave out".into())
                    })?,
            ),
        };
        let hidden_or_read = |id: &str| -> Result<bool> {
            Ok(match &viewer.user_id {
                Some(user) => self.is_hidden_or_read(user, id)?,
                None => false,
            })
        };
        let (items, last_key, has_more) =
            self.items_newest_first(before.as_deref(), |id| Ok(!hidden_or_read(id)?), limit)?;
        let next_cursor = match (viewer.subscriber && has_more, last_key) {
            (true, Some(k)) => Some(URL_SAFE_NO_PAD.encode(k)),
            _ => None,
        };
        Ok(FeedPage {
            items,
            next_cursor,
            has_more,
            limit,
            total: self.reachable(viewer, limit)?,
            subscriber: viewer.subscriber,
        })
    }
}

impl Store {
    /// One item for the in-app reader. Subscribers may open any item; other callers the
    /// items of their first feed page and the ones in their own lists (Favs, Read, Trash,
    /// Shared), so a deep link cannot walk past the free allowance.
    pub fn readable_item(&self, viewer: &Viewer, id: &str) -> Result<NewsItem> {
        let item = self.item(id)?.ok_or(Error::NotFound("item"))?;
        if viewer.subscriber {
            return Ok(item);
        }
        if let Some(user) = &viewer.user_id {
            let marks = self.item_marks(user, id)?;
            if Mark::ALL.into_iter().any(|m| marks.has(m)) || self.has_shared(user, id)? {
                return Ok(item);
            }
        }
        if self
            .feed_page(viewer, None)?
            .items
            .iter()
            .any(|i| i.id == id)
        {
            return Ok(item);
        }
        Err(beyond_allowance())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Mark;
    use crate::items::tests::new_item;
    use crate::test_store;

    fn fill(store: &Store, n: usize) -> Vec<String> {
        (0..n)
            .map(|i| {
                let date = format!("2026-01-{:02}T{:02}:00:00Z", 1 + i / 24, i % 24);
                store
                    .upsert_item(new_item(
                        &format!("Item {i}"),
                        Some(&format!("https://n.example/{i}")),
                        &date,
                    ))
                    .unwrap()
                    .id
            })
            .collect()
    }

    #[test]
    fn anonymous_gets_newest_five_and_no_cursor() {
        let (_d, store) = test_store();
        let ids = fill(&store, 30);
        let page = store.feed_page(&Viewer::default(), None).unwrap();
        let got: Vec<_> = page.items.iter().map(|i| i.id.clone()).collect();
        let want: Vec<_> = ids.iter().rev().take(5).cloned().collect();
        assert_eq!(got, want);
        assert!(page.has_more && page.next_cursor.is_none());
        assert!(matches!(
            store.feed_page(&Viewer::default(), Some("AAAAAAAAAAAAAA")),
            Err(Error::Forbidden(_))
        ));
    }

    #[test]
    fn subscriber_pages_through_everything_once() {
        let (_d, store) = test_store();
        let ids = fill(&store, 45);
        let viewer = Viewer {
            user_id: Some("u1".into()),
            subscriber: true,
        };
        let mut seen = Vec::new();
        let mut cursor = None;
        loop {
            let page = store.feed_page(&viewer, cursor.as_deref()).unwrap();
            assert!(page.items.len() <= SUBSCRIBER_PAGE);
            seen.extend(page.items.iter().map(|i| i.id.clone()));
            match page.next_cursor {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        let want: Vec<_> = ids.iter().rev().cloned().collect();
        assert_eq!(seen, want);
        assert!(matches!(
            store.feed_page(&viewer, Some("!!")),
            Err(Error::Invalid(_))
        ));
    }

    #[test]
    fn hidden_and_read_items_are_left_out_for_that_viewer_only() {
        let (_d, store) = test_store();
        let ids = fill(&store, 10);
        let newest = &ids[9];
        let second = &ids[8];
        store.set_mark("u1", newest, Mark::Hidden).unwrap();
        store.set_mark("u1", second, Mark::Read).unwrap();
        let mine = store
            .feed_page(
                &Viewer {
                    user_id: Some("u1".into()),
                    subscriber: false,
                },
                None,
            )
            .unwrap();
        assert!(
            mine.items
                .iter()
                .all(|i| &i.id != newest && &i.id != second)
        );
        assert_eq!(mine.items.len(), FREE_LIMIT);
        let theirs = store
            .feed_page(
                &Viewer {
                    user_id: Some("u2".into()),
                    subscriber: false,
                },
                None,
            )
            .unwrap();
        assert_eq!(&theirs.items[0].id, newest);
    }

    #[test]
    fn total_is_what_the_viewer_can_reach() {
        let (_d, store) = test_store();
        let ids = fill(&store, 30);
        let sub = Viewer {
            user_id: Some("u1".into()),
            subscriber: true,
        };
        let free = Viewer {
            user_id: Some("u1".into()),
            subscriber: false,
        };
        assert_eq!(store.feed_page(&sub, None).unwrap().total, 30);
        assert_eq!(
            store.feed_page(&free, None).unwrap().total,
            FREE_LIMIT as u64
        );
        for id in &ids[..27] {
            store.set_mark("u1", id, Mark::Read).unwrap();
        }
        let page = store.feed_page(&free, None).unwrap();
        assert_eq!((page.total, page.items.len()), (3, 3));
        assert!(!page.has_more && !page.subscriber);
        assert!(store.feed_page(&sub, None).unwrap().subscriber);
    }

    #[test]
    fn a_free_viewer_opens_only_items_within_reach() {
        let (_d, store) = test_store();
        let ids = fill(&store, 30);
        let free = Viewer {
            user_id: Some("u1".into()),
            subscriber: false,
        };
        let newest = ids.last().unwrap();
        assert_eq!(&store.readable_item(&free, newest).unwrap().id, newest);
        assert!(matches!(
            store.readable_item(&free, &ids[0]),
            Err(Error::Forbidden(_))
        ));
        store.set_mark("u1", &ids[0], Mark::Favorite).unwrap();
        assert!(store.readable_item(&free, &ids[0]).is_ok());
        assert!(matches!(
            store.readable_item(&Viewer::default(), &ids[0]),
            Err(Error::Forbidden(_))
        ));
        assert!(matches!(
            store.readable_item(&free, "nope"),
            Err(Error::NotFound(_))
        ));
    }
}
