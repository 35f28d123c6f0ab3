//! The public listing of the catalogue behind `GET /api/v1/news`: every item, sorted by
//! publication date, title or id, in either direction, by page number.
//!
//! Bounded strategy: nothing is sorted per request. The backend keeps each order as an
//! index and walks it (see [`crate::backend::ItemStore::catalogue`]); `total` is the item
//! counter the same writes keep, not a count.

use serde::{Deserialize, Serialize};

use crate::{Error, NewsItem, Result, Store, from_json};

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

impl Store {
    /// One page (numbered from 1) of the whole catalogue in the given order, and the
    /// number of items in all. A page past the end is empty.
    pub async fn public_page(
        &self,
        sort: SortBy,
        order: SortOrder,
        page: u64,
        limit: u64,
    ) -> Result<(Vec<NewsItem>, u64)> {
        let (items, total) = self.public_page_raw(sort, order, page, limit).await?;
        let items = items.iter().map(|j| from_json(j)).collect::<Result<_>>()?;
        Ok((items, total))
    }

    /// [`Store::public_page`] with the items as their stored JSON, and the items'
    /// version the page was read at, for a caller that keeps pages ready (the daemon).
    pub async fn public_page_raw(
        &self,
        sort: SortBy,
        order: SortOrder,
        page: u64,
        limit: u64,
    ) -> Result<(Vec<crate::backend::Json>, u64)> {
        if page == 0 || limit == 0 {
            return Err(Error::Invalid("page and limit start at 1".into()));
        }
        let total = self.item_count().await?;
        let offset = (page - 1).saturating_mul(limit);
        let items = self.backend().catalogue(sort, order, offset, limit).await?;
        Ok((items, total))
    }

    /// The items' version: it moves on with every write of items, in whichever process
    /// sharing the backend; a page kept under an older one is stale.
    pub async fn items_version(&self) -> Result<u64> {
        self.backend().items_version().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::items::tests::new_item;
    use crate::testing::store_tests;
    use radar_api::public::{Pagination, PublicItem, PublicPage};
    use std::collections::HashMap;

    async fn fill(store: &Store, n: usize) {
        for i in 0..n {
            // Titles run opposite to dates so the orders differ.
            let date = format!("2026-01-01T{i:02}:00:00Z");
            let mut item = new_item(
                &format!("Title {:02}", n - i),
                Some(&format!("https://p.example/{i}")),
                &date,
            );
            item.id = Some(format!("id-{:02}", (i * 7) % n));
            store.upsert_item(item).await.unwrap();
        }
    }

    async fn all(store: &Store, sort: SortBy, order: SortOrder) -> Vec<String> {
        store
            .public_page(sort, order, 1, 1000)
            .await
            .unwrap()
            .0
            .into_iter()
            .map(|i| i.id)
            .collect()
    }

    /// Pages of the listing kept as JSON under the items' version they were built at,
    /// as the daemon keeps those of `GET /api/v1/news` (by page and limit here).
    type Kept = HashMap<(u64, u64), (u64, Vec<u8>)>;

    /// A page of the listing newest first, the kept one while the items' version has not
    /// moved, else built and kept.
    async fn json_page(store: &Store, kept: &mut Kept, page: u64, limit: u64) -> PublicPage {
        let version = store.items_version().await.unwrap();
        let json = match kept.get(&(page, limit)) {
            Some((v, json)) if *v == version => json.clone(),
            _ => {
                let (items, total) = store
                    .public_page(SortBy::PublishedDate, SortOrder::Desc, page, limit)
                    .await
                    .unwrap();
                let json = serde_json::to_vec(&PublicPage {
                    pagination: Pagination::of(total, page, limit),
                    items: items.into_iter().map(PublicItem::from).collect(),
                })
                .unwrap();
                kept.insert((page, limit), (version, json.clone()));
                json
            }
        };
        serde_json::from_slice(&json).unwrap()
    }

    store_tests! {
        async fn the_kept_json_page_is_the_listing_and_follows_every_item_write(store) {
            fill(&store, 11).await;
            let mut kept = Kept::new();
            let page = json_page(&store, &mut kept, 2, 4).await;
            let (items, _) = store
                .public_page(SortBy::PublishedDate, SortOrder::Desc, 2, 4)
                .await
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

            let newest = json_page(&store, &mut kept, 1, 4).await.items[0].clone();
            let mut edit = new_item(
                "A new headline",
                newest.url.as_deref(),
                "2026-01-01T10:00:00Z",
            );
            edit.id = Some(newest.id.clone());
            store.upsert_item(edit).await.unwrap();
            assert_eq!(
                json_page(&store, &mut kept, 1, 4).await.items[0].title,
                "A new headline"
            );
            store
                .upsert_item(new_item(
                    "Newer",
                    Some("https://p.example/new"),
                    "2026-02-01T00:00:00Z",
                ))
                .await
                .unwrap();
            let first = json_page(&store, &mut kept, 1, 4).await;
            assert_eq!(
                (first.items[0].title.as_str(), first.pagination.total),
                ("Newer", 12)
            );
            store.remove_item(&first.items[0].id).await.unwrap();
            assert_eq!(
                json_page(&store, &mut kept, 1, 4).await.items[0].title,
                "A new headline"
            );
        }

        async fn every_sort_and_direction_is_a_consistent_order(store) {
            fill(&store, 11).await;
            let by_date = all(&store, SortBy::PublishedDate, SortOrder::Asc).await;
            let by_title = all(&store, SortBy::Title, SortOrder::Asc).await;
            let by_id = all(&store, SortBy::Id, SortOrder::Asc).await;
            assert_eq!(by_date.len(), 11);
            let mut rev = by_date.clone();
            rev.reverse();
            assert_eq!(by_title, rev, "titles run opposite to dates");
            let mut sorted = by_id.clone();
            sorted.sort();
            assert_eq!(by_id, sorted);
            let mut desc = all(&store, SortBy::Id, SortOrder::Desc).await;
            desc.reverse();
            assert_eq!(desc, by_id);
        }

        async fn pages_concatenate_to_the_whole_listing_from_either_end(store) {
            fill(&store, 11).await;
            for sort in [SortBy::PublishedDate, SortBy::Title, SortBy::Id] {
                for order in [SortOrder::Asc, SortOrder::Desc] {
                    let whole = all(&store, sort, order).await;
                    for limit in [1, 2, 3, 4, 5, 10, 11, 12] {
                        let mut joined = Vec::new();
                        for page in 1.. {
                            let (items, total) =
                                store.public_page(sort, order, page, limit).await.unwrap();
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
                    .await
                    .unwrap()
                    .0
                    .is_empty()
            );
            assert!(
                store
                    .public_page(SortBy::Id, SortOrder::Asc, 0, 10)
                    .await
                    .is_err()
            );
        }

        // Regression: the title index once sorted "Story 1" after "Story 11".
        async fn a_title_sorts_before_its_extensions(store) {
            for (i, title) in ["Story 11", "Story 1", "Story 2"].into_iter().enumerate() {
                store
                    .upsert_item(new_item(
                        title,
                        Some(&format!("https://t.example/{i}")),
                        "2026-01-01T00:00:00Z",
                    ))
                    .await
                    .unwrap();
            }
            let titles: Vec<_> = store
                .public_page(SortBy::Title, SortOrder::Asc, 1, 10)
                .await
                .unwrap()
                .0
                .into_iter()
                .map(|i| i.title)
                .collect();
            assert_eq!(titles, ["Story 1", "Story 11", "Story 2"]);
        }
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
