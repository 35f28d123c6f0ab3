//! The feed a caller sees (spec sections 4, 6 and 9): newest first, without the items the
//! caller hid or read, capped at five for anonymous and free callers, in pages of twenty
//! for subscribers.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::{Error, NewsItem, Result, Store};

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

/// One page of the feed.
///
/// `hasMore` says whether more items remain after this page, for every caller (a free
/// caller uses it to show Subscribe Now); `nextCursor` is given only to subscribers, who
/// may pass it back as `?cursor=` for the next page.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeedPage {
    /// The items, newest first.
    pub items: Vec<NewsItem>,
    /// Opaque position after the last item; null when there is nothing more to read.
    pub next_cursor: Option<String>,
    /// Whether more items remain after these.
    pub has_more: bool,
    /// The most items a page holds for this caller (5 or 20).
    pub limit: usize,
}

impl Store {
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
                return Err(Error::Forbidden(format!(
                    "free accounts read the newest {FREE_LIMIT} items; subscribe to read more"
                )));
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
        })
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
}
