//! The feed a caller sees (spec sections 4, 6 and 9): newest first, without the items the
//! caller hid or read, capped at five for anonymous and free callers, in pages of twenty
//! for subscribers.
//!
//! A page is assembled from the items' stored JSON, which is their wire form, without
//! parsing it; "hidden or read?" is answered by the reader's cached set (see
//! `out_of_feed`); and the first page of everyone who is not a subscriber and has hidden
//! and read nothing is built once per change of the items and then served as it is.

use std::collections::HashSet;
use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::out_of_feed::{FirstPage, OutSet};
use crate::{Error, FeedPage, Mark, NewsItem, Result, Store, from_json, keys};

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

/// A page before it is written out: the items as stored JSON, and the rest of
/// [`FeedPage`].
struct RawPage {
    items: Vec<sled::IVec>,
    next_cursor: Option<String>,
    has_more: bool,
    limit: usize,
    total: u64,
    subscriber: bool,
}

impl RawPage {
    /// The page as `FeedPage` JSON, the items' bytes copied as they are.
    fn to_json(&self) -> Vec<u8> {
        let size: usize = self.items.iter().map(|i| i.len() + 1).sum();
        let mut out = Vec::with_capacity(size + 128);
        out.extend_from_slice(b"{\"items\":[");
        for (n, item) in self.items.iter().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            out.extend_from_slice(item);
        }
        out.extend_from_slice(b"],\"nextCursor\":");
        serde_json::to_writer(&mut out, &self.next_cursor).expect("writing to a Vec");
        out.extend_from_slice(
            format!(
                ",\"hasMore\":{},\"limit\":{},\"total\":{},\"subscriber\":{}}}",
                self.has_more, self.limit, self.total, self.subscriber
            )
            .as_bytes(),
        );
        out
    }

    fn parse(self) -> Result<FeedPage> {
        Ok(FeedPage {
            items: self
                .items
                .iter()
                .map(|i| from_json::<NewsItem>(i))
                .collect::<Result<_>>()?,
            next_cursor: self.next_cursor,
            has_more: self.has_more,
            limit: self.limit,
            total: self.total,
            subscriber: self.subscriber,
        })
    }
}

/// What a caller who is not a subscriber hears when they ask past their allowance.
fn beyond_allowance() -> Error {
    Error::Forbidden(format!(
        "Free accounts read the newest {FREE_LIMIT} items. Subscribe to read more."
    ))
}

impl Store {
    /// The caller's feed page after `cursor` (from a previous page's `nextCursor`).
    pub fn feed_page(&self, viewer: &Viewer, cursor: Option<&str>) -> Result<FeedPage> {
        self.raw_page(viewer, cursor)?.parse()
    }

    /// [`Store::feed_page`] as its JSON answer, assembled from the stored items' bytes.
    /// A signed-in reader's first page is kept and served again until their marks or the
    /// items change (see `out_of_feed`).
    pub fn feed_page_json(&self, viewer: &Viewer, cursor: Option<&str>) -> Result<Arc<[u8]>> {
        let (out, version) = self.viewer_out_of_feed(viewer)?;
        let user = match (&viewer.user_id, cursor) {
            (_, None) if !viewer.subscriber && out.is_empty() => {
                return self.shared_first_page(viewer);
            }
            (Some(user), None) => user,
            _ => return Ok(self.raw_page_with(viewer, cursor, &out)?.to_json().into()),
        };
        let cache = &self.mem.out_of_feed;
        let generation = self.items_generation();
        if let Some(page) = cache.first_page(user, generation, viewer.subscriber) {
            return Ok(page);
        }
        let json: Arc<[u8]> = self.raw_page_with(viewer, None, &out)?.to_json().into();
        let page = FirstPage {
            generation,
            subscriber: viewer.subscriber,
            json: json.clone(),
        };
        cache.keep_first_page(user, version, page);
        Ok(json)
    }

    /// The first page every caller who is not a subscriber and has nothing hidden or read
    /// sees, built at most once per item generation.
    fn shared_first_page(&self, viewer: &Viewer) -> Result<Arc<[u8]>> {
        let generation = self.items_generation();
        if let Some((g, page)) = &*self.mem.first_page.lock().expect("page lock")
            && *g == generation
        {
            return Ok(page.clone());
        }
        let page: Arc<[u8]> = self
            .raw_page_with(viewer, None, &OutSet::default())?
            .to_json()
            .into();
        // Items that changed while it was built bumped the generation: it is not stored
        // under the new one, and the next caller builds it again.
        *self.mem.first_page.lock().expect("page lock") = Some((generation, page.clone()));
        Ok(page)
    }

    /// The ids the viewer took out of their feed (none for anonymous callers), and the
    /// version of that set.
    fn viewer_out_of_feed(&self, viewer: &Viewer) -> Result<(OutSet, u64)> {
        match &viewer.user_id {
            Some(user) => self
                .mem
                .out_of_feed
                .get_or_load(user, || self.load_out_of_feed(user)),
            None => Ok((OutSet::default(), 0)),
        }
    }

    /// Reads a reader's hidden and read ids from disk.
    fn load_out_of_feed(&self, user: &str) -> Result<HashSet<Box<str>>> {
        let mut ids = HashSet::new();
        for tree in [&self.t.userid_hidden, &self.t.userid_read] {
            for key in tree.scan_prefix(keys::prefix(user)).keys() {
                if let Some(id) = keys::last_part(&key?) {
                    ids.insert(id.into());
                }
            }
        }
        Ok(ids)
    }

    fn raw_page(&self, viewer: &Viewer, cursor: Option<&str>) -> Result<RawPage> {
        let (out, _) = self.viewer_out_of_feed(viewer)?;
        self.raw_page_with(viewer, cursor, &out)
    }

    fn raw_page_with(
        &self,
        viewer: &Viewer,
        cursor: Option<&str>,
        out: &OutSet,
    ) -> Result<RawPage> {
        let limit = if viewer.subscriber {
            SUBSCRIBER_PAGE
        } else {
            FREE_LIMIT
        };
        let before = match cursor {
            None => None,
            Some(_) if !viewer.subscriber => return Err(beyond_allowance()),
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
        let (items, last_key, has_more) =
            self.item_json_newest_first(before.as_deref(), |id| !out.contains(id), limit)?;
        let next_cursor = match (viewer.subscriber && has_more, last_key) {
            (true, Some(k)) => Some(URL_SAFE_NO_PAD.encode(k)),
            _ => None,
        };
        Ok(RawPage {
            items,
            next_cursor,
            has_more,
            limit,
            total: self.reachable(viewer, limit)?,
            subscriber: viewer.subscriber,
        })
    }

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
    fn a_readers_kept_first_page_follows_their_marks_and_new_items() {
        let (_d, store) = test_store();
        let ids = fill(&store, 30);
        let viewer = Viewer {
            user_id: Some("u1".into()),
            subscriber: true,
        };
        let first = |store: &Store| -> FeedPage {
            serde_json::from_slice(&store.feed_page_json(&viewer, None).unwrap()).unwrap()
        };
        let page = first(&store);
        assert_eq!(page.items[0].id, ids[29]);
        assert!(Arc::ptr_eq(
            &store.feed_page_json(&viewer, None).unwrap(),
            &store.feed_page_json(&viewer, None).unwrap()
        ));
        store.set_mark("u1", &ids[29], Mark::Hidden).unwrap();
        let page = first(&store);
        assert_eq!(page.items[0].id, ids[28]);
        assert_eq!(page.total, 29);
        let new = store
            .upsert_item(new_item("Newest", None, "2026-03-01T00:00:00Z"))
            .unwrap();
        assert_eq!(first(&store).items[0].id, new.id);
        assert_eq!(first(&store).total, 30);
        store.clear_mark("u1", &ids[29], Mark::Hidden).unwrap();
        assert_eq!(first(&store).items[1].id, ids[29]);
        let free = Viewer {
            subscriber: false,
            ..viewer.clone()
        };
        let page: FeedPage =
            serde_json::from_slice(&store.feed_page_json(&free, None).unwrap()).unwrap();
        assert_eq!(page.items.len(), FREE_LIMIT);
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

    #[test]
    fn the_assembled_json_is_the_typed_page() {
        let (_d, store) = test_store();
        let ids = fill(&store, 30);
        store.set_mark("u1", &ids[29], Mark::Read).unwrap();
        for viewer in [
            Viewer::default(),
            Viewer {
                user_id: Some("u1".into()),
                subscriber: true,
            },
            Viewer {
                user_id: Some("u2".into()),
                subscriber: false,
            },
        ] {
            let typed = store.feed_page(&viewer, None).unwrap();
            let json = store.feed_page_json(&viewer, None).unwrap();
            let parsed: FeedPage = serde_json::from_slice(&json).unwrap();
            assert_eq!(parsed, typed);
            assert_eq!(
                serde_json::from_slice::<serde_json::Value>(&json).unwrap(),
                serde_json::to_value(&typed).unwrap(),
                "same fields, same names"
            );
        }
    }

    #[test]
    fn the_shared_first_page_follows_item_and_mark_changes() {
        let (_d, store) = test_store();
        let ids = fill(&store, 10);
        let free = Viewer {
            user_id: Some("u1".into()),
            subscriber: false,
        };
        let first = |v: &Viewer| -> Vec<String> {
            let page: FeedPage =
                serde_json::from_slice(&store.feed_page_json(v, None).unwrap()).unwrap();
            page.items.into_iter().map(|i| i.id).collect()
        };
        assert_eq!(first(&Viewer::default())[0], ids[9]);
        let newer = store
            .upsert_item(crate::items::tests::new_item(
                "Newest",
                None,
                "2026-02-01T00:00:00Z",
            ))
            .unwrap()
            .id;
        assert_eq!(first(&Viewer::default())[0], newer, "an item write is seen");
        store.set_mark("u1", &newer, Mark::Hidden).unwrap();
        assert_eq!(first(&free)[0], ids[9], "the reader's own marks are seen");
        assert_eq!(first(&Viewer::default())[0], newer);
        store.clear_mark("u1", &newer, Mark::Hidden).unwrap();
        assert_eq!(first(&free)[0], newer);
        store.remove_item(&newer).unwrap();
        assert_eq!(first(&Viewer::default())[0], ids[9]);
    }
}
