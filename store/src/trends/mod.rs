//! Trends: the named things and topics whose mentions rose or fell most this week (the 7
//! days ending now) against the four weeks before, ranked by change, not by size.
//!
//! Where the counts live. They are part of each process's replica, beside the search
//! index, not a table of the backend: every item write already reaches the replica
//! through one place (the search index's `replace_documents`, called by the write
//! methods and, on a shared database, by following the backend's change log), and that
//! place now also takes back what the item counted before and counts what it holds now.
//! So every daemon of a cluster computes the same counts from the same log, with no job
//! to schedule, no lease and no counter table to keep consistent with the items; an
//! update never counts an item twice (the item's terms are replaced, keyed by its id)
//! and a removal takes its count back. The price: the counts are in memory, rebuilt
//! when the store opens from the items of the kept weeks, read through the backend's
//! date index (`published_between`), never from every item. A counter table in every
//! engine was the other way; it would need its own change log to be followed, or a
//! job with a lease to fill it, to say the same thing the item log already says.
//!
//! Terms are extracted from an item's title and summary (see `extract`); counts are per
//! UTC day, and a week is 7 days ending on the day asked (see `counts`). A request
//! reads the counts and ranks; it never reads items, except the few stories it shows.

mod counts;
mod extract;

use std::sync::Mutex;

use chrono::{DateTime, Duration, Utc};
use radar_api::trends::{Trend, TrendStory, TrendsPage};

pub use counts::{BASE_WEEKS, MIN_COUNT, WEEKS};

use crate::{Error, NewsItem, Result, Store, from_json};

/// Trends each list holds for a free reader.
pub const FREE_TRENDS: usize = 3;
/// Trends each list holds for a subscriber (and a program with an API key).
pub const SUBSCRIBER_TRENDS: usize = 10;
/// Stories shown with each trend.
pub const STORIES: usize = 3;

/// A process's trend counts (see the module's docs), and the last ranking made from them,
/// which every request answers from until the counts change or the day does.
#[derive(Default)]
pub(crate) struct Trends {
    counts: Mutex<counts::Counts>,
    ranked: Mutex<Option<Ranking>>,
}

/// A ranking: the generation of the counts and the day it was made for, and its lists
/// (a subscriber's length; a free reader's are their first few).
struct Ranking {
    generation: u64,
    day: counts::Day,
    rising: Vec<counts::Ranked>,
    falling: Vec<counts::Ranked>,
}

/// The day (since 1970-01-01, UTC) of a moment.
fn day(t: DateTime<Utc>) -> counts::Day {
    t.timestamp().div_euclid(86_400)
}

/// What an item counts: its publication time (milliseconds) and its terms.
fn counted(item: &NewsItem) -> (i64, Vec<extract::Term>) {
    (
        item.published_date.timestamp_millis(),
        extract::terms(&item.title, &item.summary),
    )
}

/// What `item` counts for on day `today`: none when no chart reaches its day, so that an
/// archive's items (most of a year-long import) cost no extraction of their terms.
fn counted_on(item: &NewsItem, today: counts::Day) -> Option<(i64, Vec<extract::Term>)> {
    counts::kept(item.published_date.timestamp_millis(), today).then(|| counted(item))
}

impl Trends {
    fn counts(&self) -> std::sync::MutexGuard<'_, counts::Counts> {
        // The counts are changed item by item, each change whole: a panic elsewhere
        // leaves them consistent.
        self.counts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The rising and falling terms for the week ending on `day`, a subscriber's length.
    fn ranked(&self, day: counts::Day) -> (Vec<counts::Ranked>, Vec<counts::Ranked>) {
        let c = self.counts();
        let mut kept = self
            .ranked
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let generation = c.generation();
        if let Some(r) = kept.as_ref()
            && r.generation == generation
            && r.day == day
        {
            return (r.rising.clone(), r.falling.clone());
        }
        let (rising, falling) = c.rank(day, SUBSCRIBER_TRENDS, STORIES);
        *kept = Some(Ranking {
            generation,
            day,
            rising: rising.clone(),
            falling: falling.clone(),
        });
        (rising, falling)
    }

    /// Counts `item` (none: removed) in place of what item `id` counted before.
    pub(crate) fn apply(&self, id: &str, item: Option<&NewsItem>) {
        let now = day(Utc::now());
        let counted = item.and_then(|item| counted_on(item, now));
        let mut c = self.counts();
        c.prune(now);
        c.apply(id, now, counted);
    }

    /// Drops the days no chart reaches any more.
    pub(crate) fn prune(&self) {
        self.counts().prune(day(Utc::now()));
    }
}

/// One process's counts without a store around them, for the benchmark
/// (`store/examples/trends_bench.rs`): extraction, counting and ranking alone.
#[doc(hidden)]
pub struct CountsForBench {
    counts: counts::Counts,
    now: counts::Day,
}

impl CountsForBench {
    /// Empty counts on the day of `now`.
    pub fn new(now: DateTime<Utc>) -> Self {
        Self {
            counts: counts::Counts::default(),
            now: day(now),
        }
    }

    /// Counts an item written (in place of what its id counted before).
    pub fn write(&mut self, item: &NewsItem) {
        self.counts.apply(&item.id, self.now, Some(counted(item)));
    }

    /// Takes back what a removed item counted.
    pub fn remove(&mut self, id: &str) {
        self.counts.apply(id, self.now, None);
    }

    /// Ranks as a subscriber's request does; answers how many rising and falling.
    pub fn rank(&self) -> (usize, usize) {
        let (r, f) = self.counts.rank(self.now, SUBSCRIBER_TRENDS, STORIES);
        (r.len(), f.len())
    }

    /// How many items are counted.
    pub fn items(&self) -> usize {
        self.counts.items()
    }
}

impl Store {
    /// Counts the items of the kept weeks again, from the backend's date index: when the
    /// store opens, and after its replica was rebuilt. Called with the index writer's
    /// lock held, so no write applies between the read and the swap.
    pub(crate) async fn rebuild_trends(&self) -> Result<()> {
        let Some(trends) = self.trends_replica() else {
            return Ok(());
        };
        let now = Utc::now();
        let today = day(now);
        // A day of items at a time, so a start holds one day's JSON, not eight weeks'
        // (at a million items, gigabytes); items dated ahead come last, together.
        let end = now + Duration::days(366);
        let mut start = now - Duration::days(counts::KEPT_DAYS);
        let mut fresh = counts::Counts::default();
        while start < end {
            let stop = if start < now {
                start + Duration::days(1)
            } else {
                end
            };
            let items = self.backend().published_between(start, stop).await?;
            fresh = crate::run_blocking(move || {
                for json in items {
                    let item: NewsItem = from_json(&json)?;
                    fresh.apply(&item.id, today, Some(counted(&item)));
                }
                Ok(fresh)
            })
            .await?;
            start = stop;
        }
        let mut c = trends.counts();
        // The generation goes on, so no ranking of the old counts is served.
        let generation = c.generation();
        *c = fresh;
        c.set_generation_after(generation);
        Ok(())
    }

    /// The trends at `at` (this week: the 7 UTC days ending on `at`'s day), at most
    /// [`SUBSCRIBER_TRENDS`] rising and falling for a subscriber or a program,
    /// [`FREE_TRENDS`] for a free reader, each with its [`WEEKS`] weekly counts and up to
    /// [`STORIES`] of this week's stories. Reads the counts; the items read are only the
    /// stories shown.
    pub async fn trends(&self, subscriber: bool, at: DateTime<Utc>) -> Result<TrendsPage> {
        self.search_replica_current().await?;
        let trends = self.trends_replica().ok_or_else(|| {
            Error::Unavailable(
                "this process keeps no trends: ask `radar serve`, whose replica follows the \
                 database"
                    .into(),
            )
        })?;
        let limit = if subscriber {
            SUBSCRIBER_TRENDS
        } else {
            FREE_TRENDS
        };
        let (mut rising, mut falling) = trends.ranked(day(at));
        rising.truncate(limit);
        falling.truncate(limit);
        let ids: Vec<String> = rising
            .iter()
            .chain(&falling)
            .flat_map(|r| r.story_ids.iter().cloned())
            .collect();
        let found = self.backend().items(&ids).await?;
        let mut stories = std::collections::HashMap::new();
        for json in found.into_iter().flatten() {
            let item: NewsItem = from_json(&json)?;
            stories.insert(item.id.clone(), item);
        }
        let finish = |list: Vec<counts::Ranked>| -> Vec<Trend> {
            list.into_iter()
                .map(|r| {
                    let shown: Vec<TrendStory> = r
                        .story_ids
                        .iter()
                        .filter_map(|id| stories.get(id))
                        .map(|i| TrendStory {
                            id: i.id.clone(),
                            title: i.title.clone(),
                            url: i.url.clone(),
                            source: i.source.clone(),
                            published_date: i.published_date,
                        })
                        .collect();
                    Trend {
                        term: r.text,
                        kind: r.kind,
                        weeks: r.weeks.to_vec(),
                        this_week: r.weeks[WEEKS - 1],
                        before: r.before,
                        change: r.change,
                        stories: shown,
                    }
                })
                .collect()
        };
        Ok(TrendsPage {
            at,
            rising: finish(rising),
            falling: finish(falling),
            limit,
            subscriber,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NewItem;
    use crate::testing::store_tests;

    /// `n` items mentioning `name` in their summaries, published `days_ago` before now.
    fn items(name: &str, n: usize, days_ago: i64) -> Vec<NewItem> {
        (0..n)
            .map(|i| NewItem {
                title: format!("Story {i} of {days_ago} days ago"),
                summary: format!("The week's talk was {name}, again."),
                url: Some(format!(
                    "https://{}.example/{days_ago}/{i}",
                    name.to_lowercase().replace(' ', "-")
                )),
                published_date: Utc::now() - Duration::days(days_ago) - Duration::hours(1),
                ..Default::default()
            })
            .collect()
    }

    fn terms(list: &[Trend]) -> Vec<&str> {
        list.iter().map(|t| t.term.as_str()).collect()
    }

    #[test]
    fn an_item_no_chart_reaches_has_no_terms_extracted() {
        let at = |days_ago: i64| {
            let published = Utc::now() - Duration::days(days_ago);
            serde_json::from_value::<NewsItem>(serde_json::json!({
                "id": "a", "title": "Zephyr Labs ships a model",
                "summary": "Zephyr Labs said so.", "short": "", "content": "",
                "url": "https://example.com/a", "source": "Example",
                "published_date": published,
            }))
            .unwrap()
        };
        let today = day(Utc::now());
        assert!(counted_on(&at(counts::KEPT_DAYS + 1), today).is_none());
        let kept = counted_on(&at(counts::KEPT_DAYS - 1), today).expect("counted");
        assert!(
            !kept.1.is_empty(),
            "the terms of an item in the chart are extracted"
        );
    }

    store_tests! {
        async fn a_rise_from_nothing_outranks_a_steady_forty_through_every_write(store) {
            for week in 0..5 {
                store.upsert_items(items("Acme Robotics", 40, week * 7 + 1)).await.unwrap();
            }
            let written = store.upsert_items(items("Zephyr Labs", 12, 2)).await.unwrap();
            let page = store.trends(true, Utc::now()).await.unwrap();
            assert_eq!(terms(&page.rising), ["Zephyr Labs"], "steady is not rising");
            let z = &page.rising[0];
            assert_eq!(z.weeks, [0, 0, 0, 0, 0, 0, 0, 12]);
            assert_eq!(z.stories.len(), STORIES);
            assert!(z.stories.iter().all(|s| s.title.starts_with("Story ")));
            assert!(page.rising.iter().chain(&page.falling).all(|t| t.term != "The"));

            // Writing the same items again counts nothing twice; a removal takes back.
            store.upsert_items(items("Zephyr Labs", 12, 2)).await.unwrap();
            store.remove_item(&written[0].id).await.unwrap();
            let page = store.trends(true, Utc::now()).await.unwrap();
            assert_eq!(page.rising[0].this_week, 11);

            // Counted again from the date index, the counts are the same.
            store.rebuild_trends().await.unwrap();
            assert_eq!(store.trends(true, Utc::now()).await.unwrap().rising, page.rising);

            // A free reader sees the first few.
            let free = store.trends(false, Utc::now()).await.unwrap();
            assert_eq!((free.limit, free.subscriber), (FREE_TRENDS, false));
        }

        #[options = crate::Options {
            trends: false,
            ..Default::default()
        }]
        async fn a_store_opened_without_trends_neither_counts_nor_serves_them(store) {
            store.upsert_items(items("Zephyr Labs", 12, 2)).await.unwrap();
            let answer = store.trends(true, Utc::now()).await;
            assert!(matches!(answer, Err(Error::Unavailable(_))), "{answer:?}");
        }
    }
}
