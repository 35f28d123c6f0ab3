//! Reading history and the Insights tab (docs/product.md §16).
//!
//! Each time a reader's read mark is set (a mark, or an item opened), the read is
//! recorded with its time through [`crate::backend::ReadingStore`], after the mark and
//! not in its step: the mark's one round trip stays as it was, and on sled the read is
//! not synced on its own (a crash may lose the last reads, never a mark). A reader's
//! history is read per reader for one week, never by a scan of all readers.
//!
//! All readers' totals for the week (readers per item, reads per topic, how many readers
//! read, the week's biggest stories) are counted by a job one process of a cluster runs
//! at a time (the daemon takes the `reading-totals` lease) and stored; a request reads
//! them in one lookup. Reads older than [`KEEP_READS`] are pruned by the same job.
//!
//! The comparison with all readers is shown only when at least
//! [`MIN_COMPARISON_READERS`] readers read this week, so no one's reading can be
//! inferred from it.

use std::collections::{BTreeMap, HashMap, HashSet};

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use radar_api::ItemMarks;
use radar_api::insights::{
    Comparison, Insights, MissedStory, ResumeTerm, SourceReads, TopicReads, TopicShare,
};

use crate::display::source_name;
use crate::topics::{TOPICS, tokens, topic_of};
use crate::{Error, NewsItem, Result, Store, User, from_json, to_json};

/// Fewest readers of the week the comparison with all readers is shown with.
pub const MIN_COMPARISON_READERS: u64 = 20;
/// "This week": the seven days ending now.
pub const WEEK: Duration = Duration::days(7);
/// How long reads are kept: the week of Insights, and the previous ISO week, whose
/// summary may be written up to a week after it ends.
pub const KEEP_READS: Duration = Duration::days(21);
/// Most reads one count reads.
const MAX_READS: usize = 2_000_000;
/// Most reads of one reader's week looked at.
const MAX_READER_READS: usize = 20_000;
/// Most of the week's items looked at.
const WEEK_ITEMS: usize = 5_000;
/// Stories missed listed.
const MISSED: usize = 5;
/// Resume terms listed.
const RESUME_TERMS: usize = 10;

/// A story of the week, as the totals job ranked it: its reports (lead first) and how
/// many outlets reported it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WeekStory {
    /// Item ids of its reports, the lead first.
    pub items: Vec<String>,
    /// How many outlets reported it.
    pub outlets: u64,
}

/// All readers' reading of a week, as the totals job counted it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ReadTotals {
    /// When it was counted (the week ends here).
    pub counted_at: Option<DateTime<Utc>>,
    /// Readers who read at least one item in the week.
    pub readers: u64,
    /// Reads of items that exist, each reader and item once.
    pub reads: u64,
    /// Reads per topic.
    pub topics: BTreeMap<String, u64>,
    /// Readers per item.
    pub item_readers: HashMap<String, u64>,
    /// The week's stories, biggest first (by coverage and reads).
    pub stories: Vec<WeekStory>,
}

/// The publication of an item: its source, else its link's host.
fn source_of(item: &NewsItem) -> String {
    item.source
        .clone()
        .or_else(|| source_name(item.url.as_deref()))
        .unwrap_or_else(|| "Source".to_string())
}

/// The name of an item's topic.
fn topic_name(item: &NewsItem) -> Option<&'static str> {
    topic_of(item).map(|t| TOPICS[t].0)
}

/// Counts of `keys`, most first, ties by name.
fn ranked(counts: HashMap<String, u64>) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = counts.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v
}

/// The terms a resume may share with the week: the topics' keywords and the takeaways'
/// theme keywords, the ones the resume holds.
fn resume_terms(resume: &str) -> Vec<String> {
    let words = tokens(resume);
    let holds = |term: &str| {
        let parts: Vec<&str> = term.split(' ').collect();
        words
            .windows(parts.len())
            .any(|w| w.iter().zip(&parts).all(|(a, b)| a == b))
    };
    let mut out: Vec<String> = TOPICS
        .iter()
        .flat_map(|(_, kws)| kws.iter().map(|k| (*k).to_string()))
        .chain(crate::takeaways::theme_keywords())
        .filter(|t| holds(t))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// How many of `items` name `term` in their title or summary.
fn items_naming(term: &str, items: &[Vec<String>]) -> u64 {
    let parts: Vec<&str> = term.split(' ').collect();
    items
        .iter()
        .filter(|w| {
            w.windows(parts.len())
                .any(|win| win.iter().zip(&parts).all(|(a, b)| a == b))
        })
        .count() as u64
}

impl Store {
    /// Records a read when a change left the item read (the read mark set). A failure
    /// is logged, not answered: the mark it follows is made.
    pub(crate) async fn note_read(&self, reader: &str, item: &str, marks: ItemMarks) {
        if !marks.read {
            return;
        }
        if let Err(e) = self.backend().record_read(reader, item, Utc::now()).await {
            tracing::warn!(error = %e, "cannot record a read in the reading history");
        }
    }

    /// How many readers read each item in `[since, until)` (each reader once per item);
    /// none at all while fewer than [`MIN_COMPARISON_READERS`] readers read in the window,
    /// so an order drawn from it tells nothing of one reader. Reads every reader's reads
    /// of the window: for jobs only.
    pub async fn item_readers(
        &self,
        since: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<HashMap<String, u64>> {
        let reads = self
            .backend()
            .reads_between(since, until, MAX_READS)
            .await?;
        let pairs: HashSet<(String, String)> =
            reads.into_iter().map(|r| (r.reader, r.item)).collect();
        let readers: HashSet<&str> = pairs.iter().map(|(r, _)| r.as_str()).collect();
        if (readers.len() as u64) < MIN_COMPARISON_READERS {
            return Ok(HashMap::new());
        }
        let mut out: HashMap<String, u64> = HashMap::new();
        for (_, item) in pairs {
            *out.entry(item).or_default() += 1;
        }
        Ok(out)
    }

    /// Counts all readers' reading of the week ending `now` and stores it; prunes reads
    /// older than [`KEEP_READS`]. `stories` ranks the week's items into stories, biggest
    /// first, given each item's readers (the weekly summary's ranking, which lives with
    /// the summariser). The job of one process at a time.
    pub async fn count_reads(
        &self,
        now: DateTime<Utc>,
        stories: impl FnOnce(Vec<NewsItem>, &HashMap<String, u64>) -> Vec<WeekStory>,
    ) -> Result<ReadTotals> {
        self.backend().prune_reads(now - KEEP_READS).await?;
        let since = now - WEEK;
        let reads = self.backend().reads_between(since, now, MAX_READS).await?;
        let pairs: HashSet<(String, String)> =
            reads.into_iter().map(|r| (r.reader, r.item)).collect();
        let mut item_readers: HashMap<String, u64> = HashMap::new();
        for (_, item) in &pairs {
            *item_readers.entry(item.clone()).or_default() += 1;
        }
        let ids: Vec<String> = item_readers.keys().cloned().collect();
        let read_items: HashMap<String, NewsItem> = self
            .items_in_order(&ids)
            .await?
            .into_iter()
            .map(|i| (i.id.clone(), i))
            .collect();
        let mut topics: BTreeMap<String, u64> = BTreeMap::new();
        let mut readers: HashSet<&str> = HashSet::new();
        let mut counted = 0;
        for (reader, item) in &pairs {
            let Some(item) = read_items.get(item) else {
                continue;
            };
            readers.insert(reader);
            counted += 1;
            if let Some(t) = topic_name(item) {
                *topics.entry(t.to_string()).or_default() += 1;
            }
        }
        let week_items = self.items_between(since, now, WEEK_ITEMS).await?;
        let readers = readers.len() as u64;
        // Below the comparison's threshold reads do not order the stories either: the
        // order of the stories missed would tell what the few other readers read.
        let enough = readers >= MIN_COMPARISON_READERS;
        let stories = if enough {
            stories(week_items, &item_readers)
        } else {
            stories(week_items, &HashMap::new())
        };
        let totals = ReadTotals {
            counted_at: Some(now),
            readers,
            reads: counted,
            topics,
            stories,
            item_readers,
        };
        self.backend()
            .put_read_totals(&to_json(&totals).into())
            .await?;
        Ok(totals)
    }

    /// The stored totals of all readers (empty before the first count).
    pub async fn read_totals(&self) -> Result<ReadTotals> {
        match self.backend().read_totals().await? {
            Some(json) => from_json(&json),
            None => Ok(ReadTotals::default()),
        }
    }

    /// A subscriber's Insights for the week ending `now`; anyone else is refused
    /// (docs/product.md §16).
    pub async fn insights(&self, user: &User, now: DateTime<Utc>) -> Result<Insights> {
        if !self.is_subscriber(user) {
            return Err(Error::Forbidden(
                "Insights are for subscribers. Subscribe to unlock them.".into(),
            ));
        }
        let since = now - WEEK;
        let mine: Vec<String> = {
            let mut seen = HashSet::new();
            self.backend()
                .reads_of(&user.id, since, MAX_READER_READS)
                .await?
                .into_iter()
                .filter(|(_, at)| *at < now)
                .map(|(item, _)| item)
                .filter(|item| seen.insert(item.clone()))
                .collect()
        };
        let read = self.items_in_order(&mine).await?;
        let mut by_topic: HashMap<String, u64> = HashMap::new();
        let mut by_source: HashMap<String, u64> = HashMap::new();
        for item in &read {
            if let Some(t) = topic_name(item) {
                *by_topic.entry(t.to_string()).or_default() += 1;
            }
            *by_source.entry(source_of(item)).or_default() += 1;
        }
        let totals = self.read_totals().await?;
        let read_ids: HashSet<&str> = mine.iter().map(String::as_str).collect();
        let comparison = comparison(&totals, &by_topic, read.len() as u64);
        let missed = self.missed(&totals, &read_ids).await?;
        let profile = self.profile(&user.id).await?;
        let resume_terms = if profile.resume.trim().is_empty() {
            Vec::new()
        } else {
            let week: Vec<Vec<String>> = self
                .items_between(since, now, WEEK_ITEMS)
                .await?
                .iter()
                .map(|i| tokens(&format!("{} {}", i.title, i.summary)))
                .collect();
            let mut terms: Vec<ResumeTerm> = resume_terms(&profile.resume)
                .into_iter()
                .map(|term| ResumeTerm {
                    items: items_naming(&term, &week),
                    term,
                })
                .filter(|t| t.items > 0)
                .collect();
            terms.sort_by(|a, b| b.items.cmp(&a.items).then_with(|| a.term.cmp(&b.term)));
            terms.truncate(RESUME_TERMS);
            terms
        };
        Ok(Insights {
            since,
            until: now,
            reads: read.len() as u64,
            topics: ranked(by_topic)
                .into_iter()
                .map(|(topic, reads)| TopicReads { topic, reads })
                .collect(),
            sources: ranked(by_source)
                .into_iter()
                .map(|(source, reads)| SourceReads { source, reads })
                .collect(),
            comparison,
            missed,
            resume_terms,
            has_resume: !profile.resume.trim().is_empty(),
        })
    }

    /// The week's biggest stories of which the reader read no report.
    async fn missed(&self, totals: &ReadTotals, read: &HashSet<&str>) -> Result<Vec<MissedStory>> {
        let mut out = Vec::new();
        for story in &totals.stories {
            if out.len() == MISSED {
                break;
            }
            if story.items.iter().any(|i| read.contains(i.as_str())) {
                continue;
            }
            let Some(lead) = story.items.first() else {
                continue;
            };
            let Some(item) = self.item(lead).await? else {
                continue;
            };
            out.push(MissedStory {
                readers: (totals.readers >= MIN_COMPARISON_READERS).then(|| {
                    story
                        .items
                        .iter()
                        .map(|i| totals.item_readers.get(i).copied().unwrap_or(0))
                        .sum()
                }),
                id: item.id.clone(),
                source: source_of(&item),
                title: item.title,
                url: item.url,
                outlets: story.outlets,
            });
        }
        Ok(out)
    }
}

/// The reader's share of reads per topic against all readers', or why it is hidden.
fn comparison(totals: &ReadTotals, mine: &HashMap<String, u64>, my_reads: u64) -> Comparison {
    let shown = totals.readers >= MIN_COMPARISON_READERS;
    #[expect(
        clippy::cast_precision_loss,
        reason = "a share of counts far below 2^52 for display"
    )]
    let share = |n: u64, of: u64| if of == 0 { 0.0 } else { n as f64 / of as f64 };
    let topics = if shown {
        let mut names: Vec<&String> = totals.topics.keys().chain(mine.keys()).collect();
        names.sort();
        names.dedup();
        let mut t: Vec<TopicShare> = names
            .into_iter()
            .map(|name| TopicShare {
                topic: name.clone(),
                yours: share(mine.get(name).copied().unwrap_or(0), my_reads),
                everyone: share(totals.topics.get(name).copied().unwrap_or(0), totals.reads),
            })
            .collect();
        t.sort_by(|a, b| {
            b.everyone
                .total_cmp(&a.everyone)
                .then_with(|| a.topic.cmp(&b.topic))
        });
        t
    } else {
        Vec::new()
    };
    Comparison {
        shown,
        readers: totals.readers,
        min_readers: MIN_COMPARISON_READERS,
        hidden_reason: (!shown).then(|| {
            format!(
                "Shown once at least {MIN_COMPARISON_READERS} readers have read this week, so no one's reading can be inferred ({} so far).",
                totals.readers
            )
        }),
        counted_at: totals.counted_at,
        topics,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Mark;
    use crate::testing::{store_tests, user_with_id};

    /// Each item its own story, the most read first: the store's part needs no grouping.
    fn by_readers(items: Vec<NewsItem>, readers: &HashMap<String, u64>) -> Vec<WeekStory> {
        let mut v: Vec<(u64, String)> = items
            .into_iter()
            .map(|i| (readers.get(&i.id).copied().unwrap_or(0), i.id))
            .collect();
        v.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        v.into_iter()
            .map(|(_, id)| WeekStory {
                items: vec![id],
                outlets: 1,
            })
            .collect()
    }

    async fn week_item(store: &Store, title: &str) -> String {
        let date = (Utc::now() - Duration::hours(1)).to_rfc3339();
        store
            .upsert_item(crate::items::tests::new_item(
                title,
                Some(&format!("https://t.example/{}", title.len())),
                &date,
            ))
            .await
            .unwrap()
            .id
    }

    #[test]
    fn the_resume_terms_are_the_topics_and_themes_keywords_it_holds() {
        assert_eq!(
            resume_terms("Machine learning engineer; GPU clusters and robotics."),
            ["gpu", "machine learning", "robotics"]
        );
        let week = vec![tokens("New GPU for robotics"), tokens("GPU prices fall")];
        assert_eq!(items_naming("gpu", &week), 2);
        assert_eq!(items_naming("machine learning", &week), 0);
    }

    store_tests! {
        async fn the_comparison_needs_twenty_readers_and_missed_leaves_out_what_was_read(store) {
            let read_by_me = week_item(&store, "Warehouse robots fold laundry").await;
            let popular = week_item(&store, "Nvidia unveils GPU chips").await;
            let me = user_with_id(&store, "me").await;
            assert!(matches!(
                store.insights(&me, Utc::now()).await,
                Err(Error::Forbidden(_))
            ));
            let me = store.grant_subscription("me", None).await.unwrap();
            store.set_mark("me", &read_by_me, Mark::Read).await.unwrap();
            for n in 0..18 {
                store
                    .set_mark(&format!("r{n}"), &popular, Mark::Read)
                    .await
                    .unwrap();
            }
            // sled keeps times to the millisecond: a count ends after the last read's.
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            let totals = store.count_reads(Utc::now(), by_readers).await.unwrap();
            assert_eq!((totals.readers, totals.reads), (19, 19));
            let mine = store.insights(&me, Utc::now()).await.unwrap();
            assert!(!mine.comparison.shown);
            assert!(mine.comparison.topics.is_empty());
            assert_eq!(mine.reads, 1);
            assert_eq!(mine.missed.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(), [popular.as_str()]);
            assert_eq!(mine.missed[0].readers, None, "no count below 20 readers");

            // Reading it again counts once; a 20th reader shows the comparison.
            store.set_mark("r0", &popular, Mark::Read).await.unwrap();
            store.set_mark("r18", &popular, Mark::Read).await.unwrap();
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            store.count_reads(Utc::now(), by_readers).await.unwrap();
            let mine = store.insights(&me, Utc::now()).await.unwrap();
            assert!(mine.comparison.shown);
            assert_eq!(mine.comparison.readers, 20);
            assert_eq!(mine.missed[0].readers, Some(19));
            let robotics = mine.comparison.topics.iter().find(|t| t.topic == "Robotics").unwrap();
            assert!((robotics.yours - 1.0).abs() < 1e-9);
            assert!((robotics.everyone - 1.0 / 20.0).abs() < 1e-9);

            // Another subscriber's answer holds none of my reads.
            let other = user_with_id(&store, "other").await;
            let other = store.grant_subscription(&other.id, None).await.unwrap();
            let theirs = store.insights(&other, Utc::now()).await.unwrap();
            assert_eq!(theirs.reads, 0);
            assert!(theirs.topics.is_empty() && theirs.sources.is_empty());
        }
    }
}
