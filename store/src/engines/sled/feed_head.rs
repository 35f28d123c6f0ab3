//! The head of the feed: the newest items, kept in memory as their stored JSON.
//!
//! Almost every feed, Drops and TV request reads the first pages, so the newest
//! [`HEAD_LEN`] items' keys and JSON are read from sled once per change of the items (the
//! items generation) and every such page after that is assembled from memory, whatever
//! the reader hid or read. A page that reaches past the head goes on in sled.

use std::sync::{Arc, Mutex};

use super::{SledBackend, json, keys};
use crate::Result;
use crate::backend::Json;

/// How many of the newest items the head holds: enough for a few pages of 20 after a
/// reader's hidden and read items are skipped; about 2 KB each.
pub(crate) const HEAD_LEN: usize = 256;

/// One item of the head.
pub(crate) struct HeadItem {
    /// Its `published_itemid` key, which cursors carry.
    pub key: Box<[u8]>,
    /// Its id.
    pub id: Box<str>,
    /// Its stored JSON, which is its wire form.
    pub json: Json,
}

/// The newest items, newest first, as of one items generation.
pub(crate) struct Head {
    generation: u64,
    pub items: Vec<HeadItem>,
    /// Whether these are all the items there are.
    pub whole: bool,
}

impl Head {
    /// Where the items after `before` (a `published_itemid` key) start in the head: the
    /// first one older than it. `None` when they may lie past the head.
    pub(crate) fn start_after(&self, before: Option<&[u8]>) -> Option<usize> {
        let Some(before) = before else {
            return Some(0);
        };
        let at = self.items.partition_point(|i| &*i.key >= before);
        (at < self.items.len() || self.whole).then_some(at)
    }
}

/// The head as last read, behind a lock that also keeps two readers from reading it at
/// once after a change.
#[derive(Default)]
pub(crate) struct HeadCache(Mutex<Option<Arc<Head>>>);

impl SledBackend {
    /// The head for the current items generation, read from sled if items changed since
    /// it was last read.
    pub(crate) fn feed_head(&self) -> Result<Arc<Head>> {
        let generation = self.items_generation();
        let mut cached = self
            .mem
            .head
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(head) = &*cached
            && head.generation == generation
        {
            return Ok(head.clone());
        }
        let mut items = Vec::with_capacity(HEAD_LEN);
        let mut whole = true;
        for key in self.t.published_itemid.iter().keys().rev() {
            if items.len() == HEAD_LEN {
                whole = false;
                break;
            }
            let key = key?;
            let Some(id) = keys::published_item_id(&key) else {
                continue;
            };
            if let Some(value) = self.t.items.get(id)? {
                items.push(HeadItem {
                    key: (*key).into(),
                    id: id.into(),
                    json: json(value),
                });
            }
        }
        // Read under `generation`: if items changed meanwhile, the generation moved on and
        // the next caller reads the head again.
        let head = Arc::new(Head {
            generation,
            items,
            whole,
        });
        *cached = Some(head.clone());
        Ok(head)
    }
}

/// Tests of sled's head of newest items and of feed pages that run from it into the
/// trees: sled only.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::sled::testing::open_sled;
    use crate::items::tests::new_item;
    use crate::{Mark, Options, Store, Viewer};

    /// `n` items an hour apart, oldest first; answers their ids newest first.
    async fn fill(store: &Store, n: usize) -> Vec<String> {
        let items: Vec<_> = (0..n)
            .map(|i| {
                let date = format!("2026-02-{:02}T{:02}:00:00Z", 1 + i / 24, i % 24);
                new_item(
                    &format!("Item {i}"),
                    Some(&format!("https://h.example/{i}")),
                    &date,
                )
            })
            .collect();
        let mut ids: Vec<String> = store
            .upsert_items(items)
            .await
            .unwrap()
            .into_iter()
            .map(|u| u.id)
            .collect();
        ids.reverse();
        ids
    }

    /// Every page of the reader's feed by cursor, as ids.
    async fn walk(store: &Store, viewer: &Viewer) -> Vec<String> {
        let mut seen = Vec::new();
        let mut cursor = None;
        loop {
            let page = store.feed_page(viewer, cursor.as_deref()).await.unwrap();
            seen.extend(page.items.into_iter().map(|i| i.id));
            match page.next_cursor {
                Some(c) => cursor = Some(c),
                None => return seen,
            }
        }
    }

    #[tokio::test]
    async fn pages_run_from_the_head_into_sled_and_follow_every_item_write() {
        let dir = tempfile::tempdir().unwrap();
        let (store, sled) = open_sled(dir.path(), Options::default()).await.unwrap();
        let ids = fill(&store, HEAD_LEN + 45).await;
        let reader = Viewer {
            user_id: Some("r".into()),
            subscriber: true,
        };
        // Hidden and read items on both sides of the head's end are skipped.
        let out = [3, 40, HEAD_LEN - 1, HEAD_LEN, HEAD_LEN + 7];
        for (n, at) in out.iter().enumerate() {
            let mark = if n % 2 == 0 { Mark::Hidden } else { Mark::Read };
            store.set_mark("r", &ids[*at], mark).await.unwrap();
        }
        let expected: Vec<String> = ids
            .iter()
            .enumerate()
            .filter(|(i, _)| !out.contains(i))
            .map(|(_, id)| id.clone())
            .collect();
        assert_eq!(walk(&store, &reader).await, expected);
        assert!(!sled.feed_head().unwrap().whole);

        // A new newest item, an update that moves an old one to the top, and a removal
        // show at once.
        let newest = store
            .upsert_item(new_item(
                "Breaking",
                Some("https://h.example/new"),
                "2026-03-01T00:00:00Z",
            ))
            .await
            .unwrap()
            .id;
        let mut moved = new_item(
            "Item 0",
            Some("https://h.example/0"),
            "2026-03-02T00:00:00Z",
        );
        moved.title = "Item 0, updated".into();
        store.upsert_item(moved).await.unwrap();
        store.remove_item(&ids[1]).await.unwrap();
        let first = store.feed_page(&reader, None).await.unwrap();
        let titles: Vec<&str> = first
            .items
            .iter()
            .take(3)
            .map(|i| i.title.as_str())
            .collect();
        assert_eq!(titles[..2], ["Item 0, updated", "Breaking"]);
        assert_eq!(first.items[2].id, ids[0]);
        assert!(!first.items.iter().any(|i| i.id == ids[1]));
        assert_eq!(first.items[1].id, newest);
    }

    #[tokio::test]
    async fn a_small_store_is_all_head() {
        let dir = tempfile::tempdir().unwrap();
        let (store, sled) = open_sled(dir.path(), Options::default()).await.unwrap();
        let ids = fill(&store, 30).await;
        let head = sled.feed_head().unwrap();
        assert!(head.whole);
        assert_eq!(head.items.len(), 30);
        assert_eq!(&*head.items[0].id, ids[0].as_str());
        assert_eq!(head.start_after(Some(&head.items[29].key)), Some(30));
        let reader = Viewer {
            user_id: Some("r".into()),
            subscriber: true,
        };
        assert_eq!(walk(&store, &reader).await, ids);
    }
}
