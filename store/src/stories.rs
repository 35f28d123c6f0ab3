//! Stories: the items that report one event, from every outlet, as one card with its
//! sources.
//!
//! - **Grouping** runs as items arrive ([`Store::group_arrivals`], called by every write
//!   of new items: import, feeds, add). The decision is `radar_stories`' (tiers: the same
//!   address, nearly the same text, the same event told differently); its outcome, each
//!   item's story, goes to the backend ([`crate::backend::StoryStore`]), which keeps it
//!   for every process. Over a backend shared by several processes, one of them groups
//!   for all, following the change log a second or so behind ([`Store::group_from_log`]).
//! - **The candidate index** (band buckets and features) is kept in memory, over the items
//!   published in the last [`WINDOW_DAYS`] days: stories span at most a few days, so an
//!   older item has nothing left to join, and the index stays the size of a fortnight of
//!   news however large the catalogue grows. It is built from the backend when the
//!   daemon starts (or on the first arrival, for a command): items already grouped keep
//!   their story, and items that were stored but not grouped (after a crash between the
//!   two writes) are grouped then; and it is built again once a day, so that it forgets
//!   what fell out of the window.
//!   Items published before the window arrive as archives and stay single.
//! - **Reading** a story (the default; a reader may switch it off in their profile) shows
//!   its lead alone in the feed, with the story spliced into its JSON
//!   ([`Store::with_stories`]); read and hidden apply to every member
//!   ([`Store::mark_story`]).

use chrono::{DateTime, Duration, Utc};
use radar_stories::{Article, Decision, Grouper, Index, MemoryIndex, Prepared, StoryId, Tier};

use crate::backend::Json;
use crate::marks::change_of;
use crate::{ItemMarks, Mark, NewsItem, Result, Store, from_json};

/// How far back from now an arriving item's publication may lie for it to be grouped,
/// and how many days of items the candidate index holds.
pub const WINDOW_DAYS: i64 = 14;

/// How often the candidate index is built again, to forget what left the window.
const REBUILD_EVERY: Duration = Duration::hours(24);

/// The lease of the grouping job of a shared backend (see [`Store::group_from_log`]).
const LEASE: &str = "story-grouping";

/// How long the grouping job's lease lasts unless renewed (every upkeep renews it).
const LEASE_FOR: Duration = Duration::seconds(30);

/// Where the grouping job has read the change log to: a document of this kind and key.
const POSITION: (&str, &str) = ("stories", "position");

/// Change log entries read per upkeep.
const CHANGES_PER_STEP: usize = 1000;

/// The grouping state of one process.
pub(crate) struct Stories {
    grouper: Grouper,
    window: tokio::sync::Mutex<Option<Window>>,
    /// This process's name as the holder of the grouping job's lease.
    holder: String,
}

impl Default for Stories {
    fn default() -> Self {
        Self {
            grouper: Grouper::default(),
            window: tokio::sync::Mutex::default(),
            holder: format!("stories-{}", uuid::Uuid::new_v4().simple()),
        }
    }
}

/// The grouping job's place in the change log, as stored.
#[derive(serde::Serialize, serde::Deserialize)]
struct Position {
    /// The last change log entry read.
    seq: u64,
}

/// The candidate index and when it was built.
struct Window {
    index: MemoryIndex,
    built: DateTime<Utc>,
    /// The arrival clock handed to the grouper: orders stories by age.
    clock: i64,
}

/// What grouping reads of an item.
fn article<'a>(item: &'a NewsItem, texts: &'a [&'a str; 2]) -> Article<'a> {
    Article {
        id: &item.id,
        url: item.url.as_deref(),
        title: &item.title,
        texts,
        content: &item.content,
        published: item.published_date.timestamp(),
    }
}

/// Whether an item published at `published` is grouped when it arrives at `now`.
fn in_window(published: DateTime<Utc>, now: DateTime<Utc>) -> bool {
    published >= now - Duration::days(WINDOW_DAYS) && published <= now + Duration::days(1)
}

/// Fewest items per thread when features are computed on several cores.
const PREPARE_PER_THREAD: usize = 64;

impl Stories {
    /// An item's features and bands (see [`Grouper::prepare`]).
    fn prepare(&self, item: &NewsItem) -> Prepared {
        let texts = [item.summary.as_str(), item.short.as_str()];
        self.grouper.prepare(&article(item, &texts))
    }

    /// [`Stories::prepare`] of many items, on every core: the larger part of grouping,
    /// which needs no index, so the decisions that follow (in order, one at a time) cost
    /// the rest.
    fn prepare_all(&self, items: &[&NewsItem]) -> Vec<Prepared> {
        let threads = std::thread::available_parallelism()
            .map_or(1, std::num::NonZero::get)
            .min(items.len().div_ceil(PREPARE_PER_THREAD));
        if threads <= 1 {
            return items.iter().map(|i| self.prepare(i)).collect();
        }
        let size = items.len().div_ceil(threads);
        std::thread::scope(|scope| {
            let parts: Vec<_> = items
                .chunks(size)
                .map(|chunk| {
                    scope.spawn(move || chunk.iter().map(|i| self.prepare(i)).collect::<Vec<_>>())
                })
                .collect();
            parts
                .into_iter()
                .flat_map(|part| part.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        })
    }

    /// Decides an item's story and applies it to the index: the decision to write.
    fn decide(&self, window: &mut Window, item: &NewsItem, prepared: Prepared) -> Decision {
        let decision = self.weigh(window, item, prepared);
        let Ok(()) = window.index.apply(&decision);
        decision
    }

    /// Puts an item already grouped back into the index, in the story it was given.
    fn restore(&self, window: &mut Window, item: &NewsItem, story: &str, prepared: Prepared) {
        let mut decision = self.weigh(window, item, prepared);
        if decision.tier == Tier::Known {
            return;
        }
        decision.story = StoryId::founded_by(story);
        decision.merged.clear();
        let Ok(()) = window.index.apply(&decision);
    }

    /// The grouper's decision for an item arriving now, not yet applied to the index.
    fn weigh(&self, window: &mut Window, item: &NewsItem, prepared: Prepared) -> Decision {
        let texts = [item.summary.as_str(), item.short.as_str()];
        window.clock += 1;
        let Ok(decision) = self.grouper.decide_prepared(
            &window.index,
            &article(item, &texts),
            prepared,
            window.clock,
        );
        decision
    }
}

impl Store {
    fn stories(&self) -> &Stories {
        &self.0.stories
    }

    /// Groups items just written for the first time (see the module doc): each joins or
    /// founds a story, in the order given. Items published outside the window stay
    /// single. On a backend shared by several processes, one process of the cluster
    /// groups every process's items, from the change log ([`Store::group_from_log`]), so
    /// that two processes never decide with two indexes: the items are grouped here when
    /// this process is that one, else within a second by the one that is.
    pub(crate) async fn group_arrivals(&self, items: &[&NewsItem]) -> Result<()> {
        if self.backend().shared_change_log() {
            return self.group_from_log().await;
        }
        let now = Utc::now();
        let items: Vec<&NewsItem> = items
            .iter()
            .copied()
            .filter(|i| in_window(i.published_date, now))
            .collect();
        if items.is_empty() {
            return Ok(());
        }
        let prepared = self.stories().prepare_all(&items);
        let mut guard = self.stories().window.lock().await;
        let window = self.window(&mut guard, now).await?;
        for (item, prepared) in items.into_iter().zip(prepared) {
            self.group_one(window, item, prepared).await?;
        }
        Ok(())
    }

    /// Builds the candidate index now (the daemon asks at start), so that the first
    /// arrival does not wait for it. Over a shared backend the grouping job builds it.
    pub async fn prepare_stories(&self) -> Result<()> {
        if self.backend().shared_change_log() {
            return Ok(());
        }
        let now = Utc::now();
        let mut guard = self.stories().window.lock().await;
        self.window(&mut guard, now).await?;
        Ok(())
    }

    /// Groups one item of the window that has no story yet.
    async fn group_one(
        &self,
        window: &mut Window,
        item: &NewsItem,
        prepared: Prepared,
    ) -> Result<()> {
        let decision = self.stories().decide(window, item, prepared);
        if decision.tier != Tier::Known {
            self.place(&item.id, &decision).await?;
        }
        Ok(())
    }

    /// The grouping job of a backend shared by several processes, run by every
    /// process's upkeep: the process that holds the `story-grouping` lease reads the
    /// change log from where the job left it and groups the items that have no story yet;
    /// the others do nothing. The lease moves to another process when its holder stops;
    /// the new holder builds its index from the backend, which holds every decision. A
    /// position the log no longer reaches (pruned) is given up: the index, built anew,
    /// groups the window's items that have no story.
    ///
    /// Only a serving process (one with a search replica: a daemon) runs the job: an
    /// admin command that took the lease would keep it past its exit.
    pub(crate) async fn group_from_log(&self) -> Result<()> {
        let backend = self.backend();
        if !backend.shared_change_log() || self.replica().is_none() {
            return Ok(());
        }
        let now = Utc::now();
        let mut guard = self.stories().window.lock().await;
        if !backend
            .lease(LEASE, &self.stories().holder, now + LEASE_FOR)
            .await?
        {
            // Another process groups: what this one knew is out of date from now on.
            *guard = None;
            return Ok(());
        }
        let doc = backend.doc(POSITION.0, POSITION.1).await?;
        let (version, mut seq) = match &doc {
            Some(d) => (d.version, from_json::<Position>(&d.json)?.seq),
            None => (0, 0),
        };
        if seq < backend.change_log_pruned_through().await? {
            *guard = None;
            seq = backend.items_version().await?;
        }
        let window = self.window(&mut guard, now).await?;
        let changes = backend.item_changes(seq, CHANGES_PER_STEP).await?;
        for change in &changes {
            seq = seq.max(change.seq);
            let Some(json) = backend.item(&change.id).await? else {
                continue;
            };
            let item: NewsItem = from_json(&json)?;
            if in_window(item.published_date, now) && backend.story_of(&item.id).await?.is_none() {
                let prepared = self.stories().prepare(&item);
                self.group_one(window, &item, prepared).await?;
            }
        }
        if doc.is_none() || !changes.is_empty() {
            let json = crate::to_json(&Position { seq });
            if !backend
                .put_doc(POSITION.0, POSITION.1, Some(&json), version)
                .await?
            {
                tracing::warn!("the stories' position in the change log moved under its lease");
            }
        }
        Ok(())
    }

    /// Writes a decision to the backend.
    async fn place(&self, item: &str, decision: &Decision) -> Result<()> {
        let merged: Vec<String> = decision.merged.iter().map(StoryId::to_string).collect();
        self.backend()
            .place_in_story(item, decision.story.as_str(), &merged)
            .await
    }

    /// The candidate index, built from the backend when there is none yet or it is a
    /// day old.
    async fn window<'a>(
        &self,
        guard: &'a mut Option<Window>,
        now: DateTime<Utc>,
    ) -> Result<&'a mut Window> {
        if guard
            .as_ref()
            .is_some_and(|w| now - w.built > REBUILD_EVERY)
        {
            *guard = None;
        }
        if guard.is_none() {
            *guard = Some(self.build_window(now).await?);
        }
        Ok(guard.as_mut().expect("built above"))
    }

    /// Reads the window's items from the backend, oldest first, into a new index: each
    /// in the story the backend holds for it, or grouped now if it has none.
    async fn build_window(&self, now: DateTime<Utc>) -> Result<Window> {
        let mut window = Window {
            index: MemoryIndex::new(),
            built: now,
            clock: 0,
        };
        let from = now - Duration::days(WINDOW_DAYS);
        let items = self
            .backend()
            .published_between(from, now + Duration::days(1))
            .await?;
        let items: Vec<NewsItem> = items
            .iter()
            .map(|json| from_json(json))
            .collect::<Result<_>>()?;
        let items: Vec<&NewsItem> = items
            .iter()
            .filter(|i| in_window(i.published_date, now))
            .collect();
        let prepared = self.stories().prepare_all(&items);
        let mut ungrouped = 0;
        for (item, prepared) in items.into_iter().zip(prepared) {
            if let Some(story) = self.backend().story_of(&item.id).await? {
                self.stories().restore(&mut window, item, &story, prepared);
            } else {
                self.group_one(&mut window, item, prepared).await?;
                ungrouped += 1;
            }
        }
        if ungrouped > 0 {
            self.backend().flush().await?;
        }
        tracing::debug!(
            stories = window.index.story_count(),
            ungrouped,
            "built the stories' candidate index"
        );
        Ok(window)
    }

    /// The other members of `item`'s story, when `reader` reads by story: what a read or
    /// hidden mark of `item` also applies to. Empty for an item alone (one lookup) or a
    /// reader who switched stories off.
    async fn story_mates(&self, reader: &str, item: &str) -> Result<Vec<String>> {
        let Some(story) = self.backend().story_of(item).await? else {
            return Ok(Vec::new());
        };
        let mut members = self.backend().story_members(&story).await?;
        members.retain(|m| m != item);
        if members.is_empty()
            || !self
                .backend()
                .profile(reader)
                .await?
                .is_none_or(|p| p.stories)
        {
            return Ok(Vec::new());
        }
        Ok(members)
    }

    /// After `reader` set (`on`) or cleared `mark` on `item`: the same on the other items
    /// of its story, when the mark takes items out of the feed (read, hidden: a story is
    /// read or hidden whole) and the reader reads by story. A favourite stays per item:
    /// a member the reader made a favourite keeps it and is not marked. With `gently`
    /// (read on open), only members without any mark are marked.
    pub(crate) async fn mark_story(
        &self,
        reader: &str,
        item: &str,
        mark: Mark,
        on: bool,
        gently: bool,
    ) -> Result<()> {
        if !mark.leaves_feed() {
            return Ok(());
        }
        for other in self.story_mates(reader, item).await? {
            let marks = self.backend().item_marks(reader, &other).await?;
            if on && (marks.favorite || (gently && marks != ItemMarks::default())) {
                continue;
            }
            if !on && !marks.has(mark) {
                continue;
            }
            match self
                .backend()
                .change_marks(reader, &other, change_of(mark, on), Utc::now())
                .await
            {
                // Removed meanwhile: nothing left to mark.
                Ok(_) | Err(crate::Error::NotFound(_)) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// The story of an item as its card and the reader show it: none when the item
    /// stands alone.
    pub async fn story_of_item(&self, item: &str) -> Result<Option<radar_api::Story>> {
        let Some(story) = self.backend().story_of(item).await? else {
            return Ok(None);
        };
        let members = self.backend().story_members(&story).await?;
        if members.len() < 2 {
            return Ok(None);
        }
        let others: Vec<String> = members.iter().filter(|m| *m != item).cloned().collect();
        let mut outlets = Vec::with_capacity(others.len());
        for json in self.backend().items(&others).await?.into_iter().flatten() {
            let other: NewsItem = from_json(&json)?;
            outlets.push(radar_api::Outlet {
                id: other.id,
                title: other.title,
                source: other.source,
                url: other.url,
            });
        }
        if outlets.is_empty() {
            return Ok(None);
        }
        Ok(Some(radar_api::Story {
            id: story,
            sources: u32::try_from(outlets.len() + 1).unwrap_or(u32::MAX),
            outlets,
        }))
    }

    /// Items' JSON with their stories spliced in: an item whose story has other members
    /// gets a `story` field; the others are served as stored, byte for byte.
    pub(crate) async fn with_stories(&self, items: Vec<Json>) -> Result<Vec<Json>> {
        let mut out = Vec::with_capacity(items.len());
        for json in items {
            out.push(match self.story_of_item(&item_id(&json)?).await? {
                Some(story) => splice(&json, &crate::to_json(&story)),
                None => json,
            });
        }
        Ok(out)
    }
}

/// The id of an item from its stored JSON.
fn item_id(json: &[u8]) -> Result<String> {
    #[derive(serde::Deserialize)]
    struct Id {
        id: String,
    }
    Ok(from_json::<Id>(json)?.id)
}

/// An item's JSON object with `"story": <story>` added as its last field.
fn splice(item: &[u8], story: &[u8]) -> Json {
    let end = item
        .iter()
        .rposition(|b| *b == b'}')
        .expect("an item's JSON is an object");
    let mut out = Vec::with_capacity(item.len() + story.len() + 10);
    out.extend_from_slice(&item[..end]);
    out.extend_from_slice(b",\"story\":");
    out.extend_from_slice(story);
    out.extend_from_slice(&item[end..]);
    Json::from(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_story_is_spliced_in_as_the_items_last_field() {
        let item = br#"{"id":"a","title":"T"}"#;
        let out = splice(item, br#"{"id":"a","sources":2,"outlets":[]}"#);
        let value: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(value["title"], "T");
        assert_eq!(value["story"]["sources"], 2);
    }

    #[test]
    fn the_window_takes_the_last_fortnight_and_tomorrow() {
        let now = Utc::now();
        assert!(in_window(now, now));
        assert!(in_window(now - Duration::days(WINDOW_DAYS - 1), now));
        assert!(!in_window(now - Duration::days(WINDOW_DAYS + 1), now));
        assert!(!in_window(now + Duration::days(2), now));
    }
}
