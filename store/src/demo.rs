//! The built-in demo data set, loaded once into an empty store so a new install shows
//! real-looking content at once.
//!
//! Items carry an age in hours rather than a date, so the demo always looks current: the
//! newest item is a few hours old whenever the store is first opened.

use chrono::{Duration, Utc};
use serde::Deserialize;

use crate::{NewItem, Result, Store};

#[derive(Deserialize)]
struct DemoItem {
    id: String,
    title: String,
    summary: String,
    short: String,
    content: String,
    url: Option<String>,
    age_hours: i64,
}

const DEMO_ITEMS: &str = include_str!("demo_items.json");

impl Store {
    /// Loads the demo items if this store has never held any; returns how many it added.
    /// A restart, or a store whose items were all removed, is left alone; of several
    /// processes starting on one shared backend, one loads it.
    pub async fn load_demo_if_empty(&self) -> Result<usize> {
        if self.backend().flag(DEMO_LOADED).await? || self.item_count().await? > 0 {
            return Ok(0);
        }
        if !self
            .backend()
            .lease(
                DEMO_LOADED,
                &uuid::Uuid::new_v4().to_string(),
                Utc::now() + Duration::minutes(5),
            )
            .await?
        {
            return Ok(0);
        }
        let items: Vec<DemoItem> = serde_json::from_str(DEMO_ITEMS)?;
        let now = Utc::now();
        // One batch: one flush and one search index commit for the whole set.
        self.upsert_items(items.iter().map(|d| NewItem {
            source: None,
            id: Some(d.id.clone()),
            title: d.title.clone(),
            summary: d.summary.clone(),
            short: d.short.clone(),
            content: d.content.clone(),
            url: d.url.clone(),
            published_date: now - Duration::hours(d.age_hours),
        }))
        .await?;
        self.backend().set_flag(DEMO_LOADED).await?;
        Ok(items.len())
    }
}

/// The flag of a store that held the demo once.
const DEMO_LOADED: &str = "demo_loaded";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::store_tests;
    use std::collections::HashSet;

    store_tests! {
        async fn demo_set_is_rich_enough_and_loads_once(store) {
            let n = store.load_demo_if_empty().await.unwrap();
            assert!(n >= 60, "only {n} demo items");
            assert_eq!(store.item_count().await.unwrap(), u64::try_from(n).unwrap());
            assert_eq!(store.load_demo_if_empty().await.unwrap(), 0);

            let items: Vec<DemoItem> = serde_json::from_str(DEMO_ITEMS).unwrap();
            let sources: HashSet<_> = items
                .iter()
                .filter_map(|i| crate::display::source_name(i.url.as_deref()))
                .collect();
            assert!(sources.len() >= 8, "only {} sources", sources.len());
            let span = items.iter().map(|i| i.age_hours).max().unwrap()
                - items.iter().map(|i| i.age_hours).min().unwrap();
            assert!(span >= 24 * 28, "demo spans only {span} hours");
            assert!(items.iter().any(|i| i.url.is_none()));
            assert!(
                items
                    .iter()
                    .filter(|i| i.summary.contains("[1]") || i.content.contains("[1]"))
                    .count()
                    >= 2
            );
            assert!(
                items
                    .iter()
                    .all(|i| !i.short.is_empty() && !i.content.is_empty())
            );
        }
    }
}
