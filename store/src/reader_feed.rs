//! The feed a caller sees (docs/product.md §4, §6 and §9): newest first, without the items the
//! caller took out of it (hidden or read: the marks that [`Mark::leaves_feed`]), capped at
//! five for anonymous and free callers, in pages of twenty for subscribers.
//!
//! A page is assembled from the items' stored JSON, which is their wire form, without
//! parsing it. The first page of everyone who is not a subscriber and has taken nothing
//! out of their feed is built once per change of the items and then served as it is,
//! and a reader's own first page once per change of the items or of their marks (see
//! `pages`).

use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::backend::{FeedPosition, Json, NewestQuery};
use crate::{Error, FeedPage, Mark, NewsItem, Result, Store, from_json};

/// Items an anonymous or free caller may read in the feed, Drops and TV mode.
pub const FREE_LIMIT: usize = 5;
/// Items a subscriber gets per page (and per Read More).
pub const SUBSCRIBER_PAGE: usize = 20;

/// The marks that take an item out of the feed, from the mark table.
pub(crate) static LEAVE_FEED: std::sync::LazyLock<Vec<Mark>> =
    std::sync::LazyLock::new(|| Mark::ALL.into_iter().filter(|m| m.leaves_feed()).collect());

/// Who is asking for the feed.
#[derive(Debug, Clone, Default)]
pub struct Viewer {
    /// The signed-in user, if any.
    pub user_id: Option<String>,
    /// Whether that user is a subscriber (see [`Store::is_subscriber`]).
    pub subscriber: bool,
}

impl Viewer {
    /// How many items a page holds for this viewer.
    pub(crate) fn page_size(&self) -> usize {
        if self.subscriber {
            SUBSCRIBER_PAGE
        } else {
            FREE_LIMIT
        }
    }
}

/// A page before it is written out: the items as stored JSON, and the rest of
/// [`FeedPage`].
struct RawPage {
    items: Vec<Json>,
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

/// A feed cursor: the position of the last item of the previous page, as the bytes of
/// its time (milliseconds, big-endian, sign bit flipped so that order is time order)
/// and its id, in base64url.
fn encode_cursor(p: &FeedPosition) -> String {
    let mut raw = (p.published_ms.cast_unsigned() ^ (1 << 63))
        .to_be_bytes()
        .to_vec();
    raw.extend_from_slice(p.id.as_bytes());
    URL_SAFE_NO_PAD.encode(raw)
}

/// Reads a cursor [`encode_cursor`] made.
fn decode_cursor(cursor: &str) -> Result<FeedPosition> {
    let bad = || Error::Invalid("cursor is not one this server gave out".into());
    let raw = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| bad())?;
    if raw.len() <= 8 {
        return Err(bad());
    }
    let time: [u8; 8] = raw[..8].try_into().map_err(|_| bad())?;
    Ok(FeedPosition {
        published_ms: (u64::from_be_bytes(time) ^ (1 << 63)).cast_signed(),
        id: String::from_utf8(raw[8..].to_vec()).map_err(|_| bad())?,
    })
}

impl Store {
    /// The caller's feed page after `cursor` (from a previous page's `nextCursor`).
    pub async fn feed_page(&self, viewer: &Viewer, cursor: Option<&str>) -> Result<FeedPage> {
        let (since_ms, stories) = self.reader_settings(viewer).await?;
        self.raw_page(viewer, cursor, since_ms, stories)
            .await?
            .parse()
    }

    /// [`Store::feed_page`] as its JSON answer, assembled from the stored items' bytes.
    /// First pages are kept and served again until the items or the reader's marks change
    /// (see `pages`).
    pub async fn feed_page_json(&self, viewer: &Viewer, cursor: Option<&str>) -> Result<Arc<[u8]>> {
        // Later pages, and the pages of a reader with a cut-off, are made for the caller:
        // it is cheap (the walk stops at the page's end), and neither cache below knows the
        // cut-off. A signed-in reader's versions and cut-off come in one lookup.
        let backend = self.backend();
        let head = match &viewer.user_id {
            Some(user) => Some(backend.feed_head(user).await?),
            None => None,
        };
        let since_ms = head
            .and_then(|h| h.read_before)
            .map(|t| t.timestamp_millis());
        let stories = head.is_none_or(|h| h.stories);
        // A reader who reads item by item is served as they ask, like a later page.
        if since_ms.is_some() || cursor.is_some() || !stories {
            return Ok(self
                .raw_page(viewer, cursor, since_ms, stories)
                .await?
                .to_json()
                .into());
        }
        let (Some(user), Some(head)) = (&viewer.user_id, head) else {
            let items = backend.items_version().await?;
            return self.shared_first_page(viewer, items).await;
        };
        let (items, reader) = (head.items_version, head.reader_version);
        if let Some(page) = self
            .pages()
            .reader_first(user, items, reader, viewer.subscriber)
        {
            return Ok(page);
        }
        if !viewer.subscriber && backend.mark_counts(user).await?.out_of_feed() == 0 {
            return self.shared_first_page(viewer, items).await;
        }
        let json: Arc<[u8]> = self
            .raw_page(viewer, None, None, true)
            .await?
            .to_json()
            .into();
        self.pages()
            .keep_reader_first(user, items, reader, viewer.subscriber, json.clone());
        Ok(json)
    }

    /// The first page every caller who is not a subscriber and has nothing out of their
    /// feed sees, built at most once per items version.
    async fn shared_first_page(&self, viewer: &Viewer, items: u64) -> Result<Arc<[u8]>> {
        if let Some(page) = self.pages().shared_first(items) {
            return Ok(page);
        }
        let anonymous = Viewer {
            user_id: None,
            subscriber: false,
        };
        debug_assert!(!viewer.subscriber);
        let page: Arc<[u8]> = self
            .raw_page(&anonymous, None, None, true)
            .await?
            .to_json()
            .into();
        // Items that changed while it was built moved the version on: it is kept under
        // the old one, and the next caller builds it again.
        self.pages().keep_shared_first(items, page.clone());
        Ok(page)
    }

    /// The viewer's page after `cursor`, for a reader whose cut-off is `since_ms` and who
    /// reads by story when `stories` (both read by the caller, who often needs them too).
    async fn raw_page(
        &self,
        viewer: &Viewer,
        cursor: Option<&str>,
        since_ms: Option<i64>,
        stories: bool,
    ) -> Result<RawPage> {
        let limit = viewer.page_size();
        let after = match cursor {
            None => None,
            Some(_) if !viewer.subscriber => return Err(beyond_allowance()),
            Some(c) => Some(decode_cursor(c)?),
        };
        let page = self
            .backend()
            .newest(NewestQuery {
                reader: viewer.user_id.as_deref(),
                leave_out: &LEAVE_FEED,
                after: after.as_ref(),
                since_ms,
                limit,
                leads_only: stories,
            })
            .await?;
        let items = if stories {
            self.with_stories(page.items).await?
        } else {
            page.items
        };
        let next_cursor = match (viewer.subscriber && page.has_more, &page.last) {
            (true, Some(p)) => Some(encode_cursor(p)),
            _ => None,
        };
        Ok(RawPage {
            items,
            next_cursor,
            has_more: page.has_more,
            limit,
            total: self
                .reachable_since(viewer, limit, since_ms, stories)
                .await?,
            subscriber: viewer.subscriber,
        })
    }

    /// How many items the viewer can reach from the first page: every item they have not
    /// taken out of their feed, and for a caller who is not a subscriber at most one page.
    /// Counted from the item counter and the viewer's mark counts, without walking any
    /// list, unless the viewer has a read-before cut-off (then see
    /// [`Store::reachable_since`]).
    pub(crate) async fn reachable(&self, viewer: &Viewer, limit: usize) -> Result<u64> {
        let (since_ms, stories) = self.reader_settings(viewer).await?;
        self.reachable_since(viewer, limit, since_ms, stories).await
    }

    /// [`Store::reachable`] with the viewer's cut-off and grouping known. With a cut-off,
    /// the items since it are counted (the walk costs what that span holds); without,
    /// the counters answer: by story, the items less the covered ones, less what the
    /// reader took out of their feed that was not covered.
    async fn reachable_since(
        &self,
        viewer: &Viewer,
        limit: usize,
        since_ms: Option<i64>,
        stories: bool,
    ) -> Result<u64> {
        if let Some(since_ms) = since_ms {
            let count = self
                .backend()
                .count_newest(NewestQuery {
                    reader: viewer.user_id.as_deref(),
                    leave_out: &LEAVE_FEED,
                    after: None,
                    since_ms: Some(since_ms),
                    limit: 0,
                    leads_only: stories,
                })
                .await?;
            return Ok(if viewer.subscriber {
                count
            } else {
                count.min(limit as u64)
            });
        }
        let backend = self.backend();
        let mut out_of_feed = match &viewer.user_id {
            Some(user) => backend.mark_counts(user).await?.out_of_feed(),
            None => 0,
        };
        let mut items = backend.item_count().await?;
        if stories {
            items = items.saturating_sub(backend.covered_count().await?);
            if let Some(user) = &viewer.user_id
                && out_of_feed > 0
            {
                out_of_feed = out_of_feed.saturating_sub(backend.covered_out_of_feed(user).await?);
            }
        }
        let visible = items.saturating_sub(out_of_feed);
        Ok(if viewer.subscriber {
            visible
        } else {
            visible.min(limit as u64)
        })
    }

    /// The signed-in viewer's read-before cut-off, in milliseconds, and whether they
    /// read by story (everyone else does).
    pub(crate) async fn reader_settings(&self, viewer: &Viewer) -> Result<(Option<i64>, bool)> {
        let Some(user) = &viewer.user_id else {
            return Ok((None, true));
        };
        let profile = self.backend().profile(user).await?;
        Ok((
            profile
                .as_ref()
                .and_then(|p| p.read_before)
                .map(|t| t.timestamp_millis()),
            profile.is_none_or(|p| p.stories),
        ))
    }

    /// One item for the in-app reader, with its story's other outlets. Subscribers may
    /// open any item; other callers the items of their first feed page (every source of
    /// its stories) and the ones in their own lists (Favs, Read, Trash, Shared), so a
    /// deep link cannot walk past the free allowance.
    pub async fn readable_item(&self, viewer: &Viewer, id: &str) -> Result<NewsItem> {
        let mut item = self.readable_alone(viewer, id).await?;
        if self.reader_settings(viewer).await?.1 {
            item.story = self.story_of_item(id).await?;
        }
        Ok(item)
    }

    /// [`Store::readable_item`] without its story.
    async fn readable_alone(&self, viewer: &Viewer, id: &str) -> Result<NewsItem> {
        let item = self.item(id).await?.ok_or(Error::NotFound("item"))?;
        if viewer.subscriber {
            return Ok(item);
        }
        if let Some(user) = &viewer.user_id {
            let marks = self.backend().item_marks(user, id).await?;
            if Mark::ALL.into_iter().any(|m| marks.has(m))
                || self.backend().has_shared(user, id).await?
            {
                return Ok(item);
            }
        }
        if self.feed_page(viewer, None).await?.items.iter().any(|i| {
            i.id == id
                || i.story
                    .as_ref()
                    .is_some_and(|s| s.outlets.iter().any(|o| o.id == id))
        }) {
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
    use crate::testing::store_tests;

    async fn fill(store: &Store, n: usize) -> Vec<String> {
        let mut ids = Vec::with_capacity(n);
        for i in 0..n {
            let date = format!("2026-01-{:02}T{:02}:00:00Z", 1 + i / 24, i % 24);
            let item = new_item(
                &format!("Item {i}"),
                Some(&format!("https://n.example/{i}")),
                &date,
            );
            ids.push(store.upsert_item(item).await.unwrap().id);
        }
        ids
    }

    store_tests! {
        async fn anonymous_gets_newest_five_and_no_cursor(store) {
            let ids = fill(&store, 30).await;
            let page = store.feed_page(&Viewer::default(), None).await.unwrap();
            let got: Vec<_> = page.items.iter().map(|i| i.id.clone()).collect();
            let want: Vec<_> = ids.iter().rev().take(5).cloned().collect();
            assert_eq!(got, want);
            assert!(page.has_more && page.next_cursor.is_none());
            assert!(matches!(
                store
                    .feed_page(&Viewer::default(), Some("AAAAAAAAAAAAAA"))
                    .await,
                Err(Error::Forbidden(_))
            ));
        }

        async fn subscriber_pages_through_everything_once(store) {
            let ids = fill(&store, 45).await;
            let viewer = Viewer {
                user_id: Some("u1".into()),
                subscriber: true,
            };
            let mut seen = Vec::new();
            let mut cursor = None;
            loop {
                let page = store.feed_page(&viewer, cursor.as_deref()).await.unwrap();
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
                store.feed_page(&viewer, Some("!!")).await,
                Err(Error::Invalid(_))
            ));
        }

        async fn a_readers_kept_first_page_follows_their_marks_and_new_items(store) {
            let ids = fill(&store, 30).await;
            let viewer = Viewer {
                user_id: Some("u1".into()),
                subscriber: true,
            };
            let first = async |store: &Store| -> FeedPage {
                serde_json::from_slice(&store.feed_page_json(&viewer, None).await.unwrap()).unwrap()
            };
            let page = first(&store).await;
            assert_eq!(page.items[0].id, ids[29]);
            assert!(Arc::ptr_eq(
                &store.feed_page_json(&viewer, None).await.unwrap(),
                &store.feed_page_json(&viewer, None).await.unwrap()
            ));
            store.set_mark("u1", &ids[29], Mark::Hidden).await.unwrap();
            let page = first(&store).await;
            assert_eq!(page.items[0].id, ids[28]);
            assert_eq!(page.total, 29);
            let new = store
                .upsert_item(new_item("Newest", None, "2026-03-01T00:00:00Z"))
                .await
                .unwrap();
            assert_eq!(first(&store).await.items[0].id, new.id);
            assert_eq!(first(&store).await.total, 30);
            store
                .clear_mark("u1", &ids[29], Mark::Hidden)
                .await
                .unwrap();
            assert_eq!(first(&store).await.items[1].id, ids[29]);
            let free = Viewer {
                subscriber: false,
                ..viewer.clone()
            };
            let page: FeedPage =
                serde_json::from_slice(&store.feed_page_json(&free, None).await.unwrap()).unwrap();
            assert_eq!(page.items.len(), FREE_LIMIT);
        }

        async fn hidden_and_read_items_are_left_out_for_that_viewer_only(store) {
            let ids = fill(&store, 10).await;
            let newest = &ids[9];
            let second = &ids[8];
            store.set_mark("u1", newest, Mark::Hidden).await.unwrap();
            store.set_mark("u1", second, Mark::Read).await.unwrap();
            let mine = store
                .feed_page(
                    &Viewer {
                        user_id: Some("u1".into()),
                        subscriber: false,
                    },
                    None,
                )
                .await
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
                .await
                .unwrap();
            assert_eq!(&theirs.items[0].id, newest);
        }

        async fn total_is_what_the_viewer_can_reach(store) {
            let ids = fill(&store, 30).await;
            let sub = Viewer {
                user_id: Some("u1".into()),
                subscriber: true,
            };
            let free = Viewer {
                user_id: Some("u1".into()),
                subscriber: false,
            };
            assert_eq!(store.feed_page(&sub, None).await.unwrap().total, 30);
            assert_eq!(
                store.feed_page(&free, None).await.unwrap().total,
                FREE_LIMIT as u64
            );
            for id in &ids[..27] {
                store.set_mark("u1", id, Mark::Read).await.unwrap();
            }
            let page = store.feed_page(&free, None).await.unwrap();
            assert_eq!((page.total, page.items.len()), (3, 3));
            assert!(!page.has_more && !page.subscriber);
            assert!(store.feed_page(&sub, None).await.unwrap().subscriber);
        }

        async fn a_free_viewer_opens_only_items_within_reach(store) {
            let ids = fill(&store, 30).await;
            let free = Viewer {
                user_id: Some("u1".into()),
                subscriber: false,
            };
            let newest = ids.last().unwrap();
            assert_eq!(
                &store.readable_item(&free, newest).await.unwrap().id,
                newest
            );
            assert!(matches!(
                store.readable_item(&free, &ids[0]).await,
                Err(Error::Forbidden(_))
            ));
            store.set_mark("u1", &ids[0], Mark::Favorite).await.unwrap();
            assert!(store.readable_item(&free, &ids[0]).await.is_ok());
            assert!(matches!(
                store.readable_item(&Viewer::default(), &ids[0]).await,
                Err(Error::Forbidden(_))
            ));
            assert!(matches!(
                store.readable_item(&free, "nope").await,
                Err(Error::NotFound(_))
            ));
        }

        async fn the_assembled_json_is_the_typed_page(store) {
            let ids = fill(&store, 30).await;
            store.set_mark("u1", &ids[29], Mark::Read).await.unwrap();
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
                let typed = store.feed_page(&viewer, None).await.unwrap();
                let json = store.feed_page_json(&viewer, None).await.unwrap();
                let parsed: FeedPage = serde_json::from_slice(&json).unwrap();
                assert_eq!(parsed, typed);
                assert_eq!(
                    serde_json::from_slice::<serde_json::Value>(&json).unwrap(),
                    serde_json::to_value(&typed).unwrap(),
                    "same fields, same names"
                );
            }
        }

        async fn the_shared_first_page_follows_item_and_mark_changes(store) {
            let ids = fill(&store, 10).await;
            let free = Viewer {
                user_id: Some("u1".into()),
                subscriber: false,
            };
            let first = async |v: &Viewer| -> Vec<String> {
                let page: FeedPage =
                    serde_json::from_slice(&store.feed_page_json(v, None).await.unwrap()).unwrap();
                page.items.into_iter().map(|i| i.id).collect()
            };
            assert_eq!(first(&Viewer::default()).await[0], ids[9]);
            let newer = store
                .upsert_item(crate::items::tests::new_item(
                    "Newest",
                    None,
                    "2026-02-01T00:00:00Z",
                ))
                .await
                .unwrap()
                .id;
            assert_eq!(
                first(&Viewer::default()).await[0],
                newer,
                "an item write is seen"
            );
            store.set_mark("u1", &newer, Mark::Hidden).await.unwrap();
            assert_eq!(
                first(&free).await[0],
                ids[9],
                "the reader's own marks are seen"
            );
            assert_eq!(first(&Viewer::default()).await[0], newer);
            store.clear_mark("u1", &newer, Mark::Hidden).await.unwrap();
            assert_eq!(first(&free).await[0], newer);
            store.remove_item(&newer).await.unwrap();
            assert_eq!(first(&Viewer::default()).await[0], ids[9]);
        }
    }
}
