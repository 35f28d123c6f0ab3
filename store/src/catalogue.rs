//! The public listing of the catalogue behind `GET /api/v1/news`: every item, sorted by
//! publication date, title or id, in either direction, by page number.
//!
//! Bounded strategy: nothing is sorted per request. Each sort order is a sled index kept
//! up to date on every write (`published_itemid`, `title_itemid`, and `items` itself for
//! ids, see [`crate::items`]), and a page walks its index in the requested direction.
//! Page offsets skip index keys without decoding an item, and a page in the far half of
//! the listing is walked from the other end, so one request reads at most
//! `min(offset, total - offset) + limit` keys and decodes at most `limit` items. `total`
//! is the `item_count` counter maintained by the same transactions, not a count.

use std::num::NonZeroUsize;
use std::sync::Arc;

use lru::LruCache;
use radar_api::public::{Pagination, PublicItem, PublicPage};
use serde::{Deserialize, Serialize};

use crate::{Error, NewsItem, Result, Store, keys};

/// How many distinct public pages are kept ready: API clients mostly poll the first few
/// pages of a few orders, so a small cache answers nearly every request.
const PUBLIC_PAGES_KEPT: usize = 256;

/// Which page of the listing: sort, order, page number and limit.
type PageKey = (SortBy, SortOrder, u64, u64);

/// Public pages as JSON, each with the items generation it was built at.
pub(crate) struct PublicPages(LruCache<PageKey, (u64, Arc<[u8]>)>);

impl Default for PublicPages {
    fn default() -> Self {
        Self(LruCache::new(
            NonZeroUsize::new(PUBLIC_PAGES_KEPT).expect("a positive size"),
        ))
    }
}

/// The order of the public listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SortBy {
    /// By publication time (ties by id).
    #[default]
    PublishedDate,
    /// By title, ignoring case (ties by id).
    Title,
    /// By id.
    Id,
}

impl std::str::FromStr for SortBy {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "published_date" => Ok(Self::PublishedDate),
            "title" => Ok(Self::Title),
            "id" => Ok(Self::Id),
            _ => Err(Error::Invalid(format!(
                "sort must be published_date, title or id, not {s:?}"
            ))),
        }
    }
}

/// The direction of the public listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SortOrder {
    /// Smallest first.
    Asc,
    /// Largest (newest) first.
    #[default]
    Desc,
}

impl std::str::FromStr for SortOrder {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "asc" => Ok(Self::Asc),
            "desc" => Ok(Self::Desc),
            _ => Err(Error::Invalid(format!(
                "order must be asc or desc, not {s:?}"
            ))),
        }
    }
}

/// Reads the item id out of an index key.
type IdOfKey = fn(&[u8]) -> Option<&str>;

impl Store {
    /// [`Store::public_page`] as the JSON answer of `GET /api/v1/news`. Every key holder
    /// asking the same page at the same items generation gets the same bytes, so they are
    /// built once and kept (a few hundred pages, least recently used dropped first).
    pub fn public_page_json(
        &self,
        sort: SortBy,
        order: SortOrder,
        page: u64,
        limit: u64,
    ) -> Result<Arc<[u8]>> {
        let key = (sort, order, page, limit);
        let generation = self.items_generation();
        let mut kept = self.mem.public_pages.lock().expect("page lock");
        if let Some((g, json)) = kept.0.get(&key)
            && *g == generation
        {
            return Ok(json.clone());
        }
        drop(kept);
        let (items, total) = self.public_page(sort, order, page, limit)?;
        let json: Arc<[u8]> = serde_json::to_vec(&PublicPage {
            pagination: Pagination::of(total, page, limit),
            items: items.into_iter().map(PublicItem::from).collect(),
        })?
        .into();
        // Built from items older than `generation` at worst: an item written meanwhile
        // bumped the generation, so this page is never served after that write.
        kept = self.mem.public_pages.lock().expect("page lock");
        kept.0.put(key, (generation, json.clone()));
        Ok(json)
    }

    /// One page (numbered from 1) of the whole catalogue in the given order, and the
    /// number of items in all. A page past the end is empty.
    pub fn public_page(
        &self,
        sort: SortBy,
        order: SortOrder,
        page: u64,
        limit: u64,
    ) -> Result<(Vec<NewsItem>, u64)> {
        if page == 0 || limit == 0 {
            return Err(Error::Invalid("page and limit start at 1".into()));
        }
        let total = self.item_count()?;
        let offset = (page - 1).saturating_mul(limit);
        if offset >= total {
            return Ok((Vec::new(), total));
        }
        let take = limit.min(total - offset);
        // Walk from whichever end is nearer to the page.
        let from_far_end = offset > total - offset - take;
        let (skip, reverse) = if from_far_end {
            (total - offset - take, order == SortOrder::Asc)
        } else {
            (offset, order == SortOrder::Desc)
        };
        let (tree, id_of): (&sled::Tree, IdOfKey) = match sort {
            SortBy::PublishedDate => (&self.t.published_itemid, keys::published_item_id),
            SortBy::Title => (&self.t.title_itemid, keys::title_item_id),
            SortBy::Id => (&self.t.items, |k| std::str::from_utf8(k).ok()),
        };
        let walk: Box<dyn Iterator<Item = sled::Result<sled::IVec>>> = if reverse {
            Box::new(tree.iter().keys().rev())
        } else {
            Box::new(tree.iter().keys())
        };
        let mut items = Vec::with_capacity(take as usize);
        for key in walk.skip(skip as usize).take(take as usize) {
            let key = key?;
            if let Some(item) = id_of(&key).map(|id| self.item(id)).transpose()?.flatten() {
                items.push(item);
            }
        }
        if from_far_end {
            items.reverse();
        }
        Ok((items, total))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::items::tests::new_item;
    use crate::test_store;

    fn fill(store: &Store, n: usize) {
        for i in 0..n {
            // Titles run opposite to dates so the orders differ.
            let date = format!("2026-01-01T{:02}:00:00Z", i);
            let mut item = new_item(
                &format!("Title {:02}", n - i),
                Some(&format!("https://p.example/{i}")),
                &date,
            );
            item.id = Some(format!("id-{:02}", (i * 7) % n));
            store.upsert_item(item).unwrap();
        }
    }

    fn all(store: &Store, sort: SortBy, order: SortOrder) -> Vec<String> {
        store
            .public_page(sort, order, 1, 1000)
            .unwrap()
            .0
            .into_iter()
            .map(|i| i.id)
            .collect()
    }

    fn json_page(store: &Store, page: u64, limit: u64) -> PublicPage {
        let json = store
            .public_page_json(SortBy::PublishedDate, SortOrder::Desc, page, limit)
            .unwrap();
        serde_json::from_slice(&json).unwrap()
    }

    #[test]
    fn the_kept_json_page_is_the_listing_and_follows_every_item_write() {
        let (_d, store) = test_store();
        fill(&store, 11);
        let page = json_page(&store, 2, 4);
        let (items, _) = store
            .public_page(SortBy::PublishedDate, SortOrder::Desc, 2, 4)
            .unwrap();
        assert_eq!(
            page.items,
            items.into_iter().map(PublicItem::from).collect::<Vec<_>>()
        );
        assert_eq!(page.pagination, Pagination::of(11, 2, 4));
        assert_eq!(
            (page.pagination.total_pages, page.pagination.has_next),
            (3, true)
        );

        let newest = json_page(&store, 1, 4).items[0].clone();
        let mut edit = new_item(
            "A new headline",
            newest.url.as_deref(),
            "2026-01-01T10:00:00Z",
        );
        edit.id = Some(newest.id.clone());
        store.upsert_item(edit).unwrap();
        assert_eq!(json_page(&store, 1, 4).items[0].title, "A new headline");
        store
            .upsert_item(new_item(
                "Newer",
                Some("https://p.example/new"),
                "2026-02-01T00:00:00Z",
            ))
            .unwrap();
        let first = json_page(&store, 1, 4);
        assert_eq!(
            (first.items[0].title.as_str(), first.pagination.total),
            ("Newer", 12)
        );
        store.remove_item(&first.items[0].id).unwrap();
        assert_eq!(json_page(&store, 1, 4).items[0].title, "A new headline");
    }

    #[test]
    fn every_sort_and_direction_is_a_consistent_order() {
        let (_d, store) = test_store();
        fill(&store, 11);
        let by_date = all(&store, SortBy::PublishedDate, SortOrder::Asc);
        let by_title = all(&store, SortBy::Title, SortOrder::Asc);
        let by_id = all(&store, SortBy::Id, SortOrder::Asc);
        assert_eq!(by_date.len(), 11);
        let mut rev = by_date.clone();
        rev.reverse();
        assert_eq!(by_title, rev, "titles run opposite to dates");
        let mut sorted = by_id.clone();
        sorted.sort();
        assert_eq!(by_id, sorted);
        let mut desc = all(&store, SortBy::Id, SortOrder::Desc);
        desc.reverse();
        assert_eq!(desc, by_id);
    }

    #[test]
    fn pages_concatenate_to_the_whole_listing_from_either_end() {
        let (_d, store) = test_store();
        fill(&store, 11);
        for sort in [SortBy::PublishedDate, SortBy::Title, SortBy::Id] {
            for order in [SortOrder::Asc, SortOrder::Desc] {
                let whole = all(&store, sort, order);
                for limit in [1, 2, 3, 4, 5, 10, 11, 12] {
                    let mut joined = Vec::new();
                    for page in 1.. {
                        let (items, total) = store.public_page(sort, order, page, limit).unwrap();
                        assert_eq!(total, 11);
                        if items.is_empty() {
                            break;
                        }
                        joined.extend(items.into_iter().map(|i| i.id));
                    }
                    assert_eq!(joined, whole, "{sort:?} {order:?} limit {limit}");
                }
            }
        }
        assert!(
            store
                .public_page(SortBy::Id, SortOrder::Asc, u64::MAX, 100)
                .unwrap()
                .0
                .is_empty()
        );
        assert!(
            store
                .public_page(SortBy::Id, SortOrder::Asc, 0, 10)
                .is_err()
        );
    }

    /// Regression: the title index once sorted "Story 1" after "Story 11".
    #[test]
    fn a_title_sorts_before_its_extensions() {
        let (_d, store) = test_store();
        for (i, title) in ["Story 11", "Story 1", "Story 2"].into_iter().enumerate() {
            store
                .upsert_item(new_item(
                    title,
                    Some(&format!("https://t.example/{i}")),
                    "2026-01-01T00:00:00Z",
                ))
                .unwrap();
        }
        let titles: Vec<_> = store
            .public_page(SortBy::Title, SortOrder::Asc, 1, 10)
            .unwrap()
            .0
            .into_iter()
            .map(|i| i.title)
            .collect();
        assert_eq!(titles, ["Story 1", "Story 11", "Story 2"]);
    }

    #[test]
    fn parameters_parse_or_name_themselves() {
        assert_eq!("title".parse::<SortBy>().unwrap(), SortBy::Title);
        assert!(
            "name"
                .parse::<SortBy>()
                .unwrap_err()
                .to_string()
                .starts_with("sort")
        );
        assert!(
            "up".parse::<SortOrder>()
                .unwrap_err()
                .to_string()
                .starts_with("order")
        );
    }
}
