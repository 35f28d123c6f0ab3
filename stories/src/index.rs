//! What grouping needs remembered, as a trait any backend can implement, and
//! [`MemoryIndex`], the in-memory implementation (for tests, the benchmark and as the
//! reference of the trait's meaning).
//!
//! The index holds:
//! - an item's story (`item id -> story id`), so an item that arrives again keeps its story;
//! - an address's story (`url key -> story id`), the first tier;
//! - band buckets (`bucket key -> story ids`, newest first, at most [`Index::bucket_cap`]),
//!   where a bucket key is a band hash and a day (see [`crate::minhash`]);
//! - each story's record: when it was founded and its members (item id, publication time,
//!   features), newest first;
//! - merges (`absorbed story id -> surviving story id`), so every id ever handed out still
//!   leads to its story.
//!
//! A decision reads through [`Index`] and is written by one [`Index::apply`], which must be
//! atomic: a backend applies a [`Decision`] whole or not at all.

use std::sync::Arc;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::features::Feature;

/// A story's id: the id of the item that founded it. Stable: when stories merge, the
/// older story's id survives and the other id resolves to it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct StoryId(pub Arc<str>);

impl StoryId {
    /// The id of a story founded by this item.
    pub fn founded_by(item: &str) -> Self {
        Self(Arc::from(item))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for StoryId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a story remembers of each member item: enough to compare a new item with it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Member {
    /// The item's id.
    pub item: String,
    /// Its publication time, seconds since the epoch.
    pub published: i64,
    /// Its features, sorted by hash (see [`crate::features`]).
    pub features: Vec<Feature>,
}

/// A story's record, without its members.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoryInfo {
    /// Its id.
    pub id: StoryId,
    /// When its founding item arrived (the caller's clock, any monotonic unit): of two
    /// merging stories the one founded first survives.
    pub founded_at: i64,
    /// How many items it holds.
    pub members: usize,
}

/// Which tier placed an item in its story.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// No story matched: the item founds one.
    New,
    /// The item was already grouped; it keeps its story.
    Known,
    /// A member has the same address.
    SameUrl,
    /// A member has nearly the same text.
    NearDuplicate,
    /// A member tells the same event, in other words, around the same time.
    SameEvent,
}

/// The outcome of grouping one item, and every write it needs: [`Index::apply`] writes it
/// in one atomic step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// The item's story from now on.
    pub story: StoryId,
    /// Why.
    pub tier: Tier,
    /// The similarity that decided (1 for an address or a known item, 0 for a new story).
    pub score: f32,
    /// Stories the item linked to `story`: they merge into it (their ids resolve to it).
    pub merged: Vec<StoryId>,
    /// When the item arrived (founds the story's age when `tier` is [`Tier::New`]).
    pub arrived_at: i64,
    /// The member record to add to the story (none for [`Tier::Known`]).
    pub member: Option<Member>,
    /// Bucket keys under which the story is to be found from now on.
    pub buckets: Vec<u64>,
    /// The item's address key, to point at the story.
    pub url_key: Option<String>,
}

/// What grouping reads and writes. Reads resolve merged ids to the surviving story.
pub trait Index {
    /// Why a backend could not answer.
    type Error;

    /// How many story ids a bucket keeps (the newest); lookups read at most this many.
    fn bucket_cap(&self) -> usize {
        16
    }
    /// The story an item belongs to, if it was grouped before.
    fn story_of_item(&self, item: &str) -> Result<Option<StoryId>, Self::Error>;
    /// The story of an address key.
    fn story_of_url(&self, url_key: &str) -> Result<Option<StoryId>, Self::Error>;
    /// The stories under these bucket keys, one entry per key they are under (so a story
    /// found under more keys is more likely a match). One round trip for all keys.
    fn stories_in_buckets(&self, keys: &[u64]) -> Result<Vec<StoryId>, Self::Error>;
    /// A story's record.
    fn story(&self, id: &StoryId) -> Result<Option<StoryInfo>, Self::Error>;
    /// A story's newest `limit` members, newest first.
    fn members(&self, id: &StoryId, limit: usize) -> Result<Vec<Arc<Member>>, Self::Error>;
    /// Writes a decision, atomically.
    fn apply(&mut self, decision: &Decision) -> Result<(), Self::Error>;
}

/// A story held in memory.
#[derive(Debug)]
struct StoryRecord {
    id: StoryId,
    founded_at: i64,
    /// Oldest first (pushed as they arrive).
    members: Vec<Arc<Member>>,
}

/// The in-memory [`Index`]. Stories are numbered internally, so a bucket entry is 4 bytes.
#[derive(Debug, Default)]
pub struct MemoryIndex {
    numbers: FxHashMap<StoryId, u32>,
    stories: Vec<StoryRecord>,
    /// Absorbed story number -> the number it merged into.
    merged_into: FxHashMap<u32, u32>,
    items: FxHashMap<String, u32>,
    urls: FxHashMap<String, u32>,
    buckets: FxHashMap<u64, Vec<u32>>,
    cap: usize,
}

impl MemoryIndex {
    /// An empty index keeping `bucket_cap` stories per bucket.
    pub fn new(bucket_cap: usize) -> Self {
        Self {
            cap: bucket_cap.max(1),
            ..Self::default()
        }
    }

    /// How many stories exist (merged ones not counted).
    pub fn story_count(&self) -> usize {
        self.stories.len() - self.merged_into.len()
    }

    /// The story of every grouped item (for measuring a grouping).
    pub fn assignments(&self) -> Vec<(String, StoryId)> {
        self.items
            .iter()
            .map(|(item, n)| {
                (
                    item.clone(),
                    self.stories[self.resolve(*n) as usize].id.clone(),
                )
            })
            .collect()
    }

    fn resolve(&self, mut n: u32) -> u32 {
        while let Some(next) = self.merged_into.get(&n) {
            n = *next;
        }
        n
    }

    fn number(&self, id: &StoryId) -> Option<u32> {
        self.numbers.get(id).map(|n| self.resolve(*n))
    }

    fn id(&self, n: u32) -> StoryId {
        self.stories[self.resolve(n) as usize].id.clone()
    }
}

impl Index for MemoryIndex {
    type Error = std::convert::Infallible;

    fn bucket_cap(&self) -> usize {
        self.cap.max(1)
    }

    fn story_of_item(&self, item: &str) -> Result<Option<StoryId>, Self::Error> {
        Ok(self.items.get(item).map(|n| self.id(*n)))
    }

    fn story_of_url(&self, url_key: &str) -> Result<Option<StoryId>, Self::Error> {
        Ok(self.urls.get(url_key).map(|n| self.id(*n)))
    }

    fn stories_in_buckets(&self, keys: &[u64]) -> Result<Vec<StoryId>, Self::Error> {
        let mut out = Vec::new();
        for key in keys {
            if let Some(list) = self.buckets.get(key) {
                out.extend(list.iter().map(|n| self.id(*n)));
            }
        }
        Ok(out)
    }

    fn story(&self, id: &StoryId) -> Result<Option<StoryInfo>, Self::Error> {
        Ok(self.number(id).map(|n| {
            let s = &self.stories[n as usize];
            StoryInfo {
                id: s.id.clone(),
                founded_at: s.founded_at,
                members: s.members.len(),
            }
        }))
    }

    fn members(&self, id: &StoryId, limit: usize) -> Result<Vec<Arc<Member>>, Self::Error> {
        Ok(self
            .number(id)
            .map(|n| {
                self.stories[n as usize]
                    .members
                    .iter()
                    .rev()
                    .take(limit)
                    .cloned()
                    .collect()
            })
            .unwrap_or_default())
    }

    fn apply(&mut self, d: &Decision) -> Result<(), Self::Error> {
        let n = match self.number(&d.story) {
            Some(n) => n,
            None => {
                let n = self.stories.len() as u32;
                self.stories.push(StoryRecord {
                    id: d.story.clone(),
                    founded_at: d.arrived_at,
                    members: Vec::new(),
                });
                self.numbers.insert(d.story.clone(), n);
                n
            }
        };
        for other in &d.merged {
            let Some(m) = self.number(other) else {
                continue;
            };
            if m == n {
                continue;
            }
            let moved = std::mem::take(&mut self.stories[m as usize].members);
            let target = &mut self.stories[n as usize].members;
            target.extend(moved);
            // Keep members in publication order, so "newest" means newest.
            target.sort_by_key(|m| m.published);
            self.merged_into.insert(m, n);
        }
        if let Some(member) = &d.member {
            self.items.insert(member.item.clone(), n);
            let members = &mut self.stories[n as usize].members;
            let at = members.partition_point(|m| m.published <= member.published);
            members.insert(at, Arc::new(member.clone()));
        }
        if let Some(key) = &d.url_key {
            self.urls.entry(key.clone()).or_insert(n);
        }
        let cap = self.cap.max(1);
        for key in &d.buckets {
            let list = self.buckets.entry(*key).or_default();
            if list.first() == Some(&n) {
                continue;
            }
            list.retain(|x| *x != n);
            list.insert(0, n);
            list.truncate(cap);
        }
        Ok(())
    }
}
