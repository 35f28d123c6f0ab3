//! What grouping needs remembered, as a trait any backend can implement, and
//! [`MemoryIndex`], the in-memory implementation (for tests, the benchmark and as the
//! reference of the trait's meaning).
//!
//! The index holds:
//! - an item's story (`item id -> story id`), so an item that arrives again keeps its story;
//! - an address's story (`url key -> story id`), the first tier;
//! - band buckets (`bucket key -> story ids`, newest first, at most [`BUCKET_CAP`]),
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
    /// The earliest publication time of its members (seconds since the epoch).
    pub first_published: i64,
    /// The latest publication time of its members.
    pub last_published: i64,
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

/// A candidate story as [`Index::stories`] answers it: its record and newest members.
#[derive(Debug, Clone)]
pub struct StoryView {
    /// The story's record.
    pub info: StoryInfo,
    /// Its newest members, newest first.
    pub members: Vec<Arc<Member>>,
}

/// What grouping reads and writes. Reads resolve merged ids to the surviving story. Each
/// method is one round trip for a backend: grouping one item makes at most five
/// (`story_of_item`, `story_of_url`, `candidates`, `stories`, `apply`).
pub trait Index {
    /// Why a backend could not answer.
    type Error;

    /// The story an item belongs to, if it was grouped before.
    fn story_of_item(&self, item: &str) -> Result<Option<StoryId>, Self::Error>;
    /// The story of an address key.
    fn story_of_url(&self, url_key: &str) -> Result<Option<StoryId>, Self::Error>;
    /// The stories under any of these bucket keys, each with how many of the keys it is
    /// under (a story found under more keys is more likely a match), most first, at most
    /// `limit`. A bucket is read up to its newest [`BUCKET_CAP`] stories.
    fn candidates(&self, keys: &[u64], limit: usize) -> Result<Vec<(StoryId, u32)>, Self::Error>;
    /// These stories' records with their newest `members` members each (unknown ids are
    /// left out).
    fn stories(&self, ids: &[StoryId], members: usize) -> Result<Vec<StoryView>, Self::Error>;
    /// Writes a decision, atomically.
    fn apply(&mut self, decision: &Decision) -> Result<(), Self::Error>;
}

/// How many stories a bucket keeps: the newest. A bucket fuller than this is a band of
/// common words in a busy day; its oldest entries are the least likely matches.
pub const BUCKET_CAP: usize = 16;

/// A story held in memory.
#[derive(Debug)]
struct StoryRecord {
    id: StoryId,
    founded_at: i64,
    /// In publication order.
    members: Vec<Arc<Member>>,
}

/// The in-memory [`Index`]. Stories are numbered internally, so a bucket entry is 4 bytes,
/// and a bucket holding one story (most of them) needs no list.
#[derive(Debug, Default)]
pub struct MemoryIndex {
    numbers: FxHashMap<StoryId, u32>,
    stories: Vec<StoryRecord>,
    /// Absorbed story number -> the number it merged into.
    merged_into: FxHashMap<u32, u32>,
    items: FxHashMap<Box<str>, u32>,
    urls: FxHashMap<Box<str>, u32>,
    /// Buckets holding one story.
    single: FxHashMap<u64, u32>,
    /// Buckets holding more, newest first.
    many: FxHashMap<u64, Vec<u32>>,
}

impl MemoryIndex {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many stories exist (merged ones not counted).
    pub fn story_count(&self) -> usize {
        self.stories.len() - self.merged_into.len()
    }

    /// The story of every grouped item (for measuring a grouping).
    pub fn assignments(&self) -> Vec<(String, StoryId)> {
        self.items
            .iter()
            .map(|(item, n)| (item.to_string(), self.id(*n)))
            .collect()
    }

    /// A story's record.
    pub fn story(&self, id: &StoryId) -> Option<StoryInfo> {
        self.number(id).map(|n| self.info(n))
    }

    fn info(&self, n: u32) -> StoryInfo {
        let s = &self.stories[n as usize];
        StoryInfo {
            id: s.id.clone(),
            founded_at: s.founded_at,
            members: s.members.len(),
            first_published: s.members.first().map_or(0, |m| m.published),
            last_published: s.members.last().map_or(0, |m| m.published),
        }
    }

    /// The number of members of the largest story.
    pub fn largest_story(&self) -> usize {
        self.stories
            .iter()
            .map(|s| s.members.len())
            .max()
            .unwrap_or(0)
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

    fn add_to_bucket(&mut self, key: u64, n: u32) {
        if let Some(list) = self.many.get_mut(&key) {
            if list.first() != Some(&n) {
                list.retain(|x| *x != n);
                list.insert(0, n);
                list.truncate(BUCKET_CAP);
            }
            return;
        }
        match self.single.get(&key).copied() {
            None => {
                self.single.insert(key, n);
            }
            Some(m) if m == n => {}
            Some(m) => {
                self.single.remove(&key);
                self.many.insert(key, vec![n, m]);
            }
        }
    }
}

impl Index for MemoryIndex {
    type Error = std::convert::Infallible;

    fn story_of_item(&self, item: &str) -> Result<Option<StoryId>, Self::Error> {
        Ok(self.items.get(item).map(|n| self.id(*n)))
    }

    fn story_of_url(&self, url_key: &str) -> Result<Option<StoryId>, Self::Error> {
        Ok(self.urls.get(url_key).map(|n| self.id(*n)))
    }

    fn candidates(&self, keys: &[u64], limit: usize) -> Result<Vec<(StoryId, u32)>, Self::Error> {
        let mut hits: FxHashMap<u32, u32> = FxHashMap::default();
        for key in keys {
            if let Some(n) = self.single.get(key) {
                *hits.entry(self.resolve(*n)).or_default() += 1;
            } else if let Some(list) = self.many.get(key) {
                for n in list {
                    *hits.entry(self.resolve(*n)).or_default() += 1;
                }
            }
        }
        let mut ranked: Vec<(u32, u32)> = hits.into_iter().collect();
        // Most hits first; among equals the newer story (a higher number).
        ranked.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(b.0.cmp(&a.0)));
        ranked.truncate(limit);
        Ok(ranked
            .into_iter()
            .map(|(n, hits)| (self.stories[n as usize].id.clone(), hits))
            .collect())
    }

    fn stories(&self, ids: &[StoryId], members: usize) -> Result<Vec<StoryView>, Self::Error> {
        Ok(ids
            .iter()
            .filter_map(|id| self.number(id))
            .map(|n| StoryView {
                info: self.info(n),
                members: self.stories[n as usize]
                    .members
                    .iter()
                    .rev()
                    .take(members)
                    .cloned()
                    .collect(),
            })
            .collect())
    }

    fn apply(&mut self, d: &Decision) -> Result<(), Self::Error> {
        let n = if let Some(n) = self.number(&d.story) {
            n
        } else {
            let n = u32::try_from(self.stories.len())
                .expect("an index in memory holds fewer than 2^32 stories");
            self.stories.push(StoryRecord {
                id: d.story.clone(),
                founded_at: d.arrived_at,
                members: Vec::new(),
            });
            self.numbers.insert(d.story.clone(), n);
            n
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
            self.items.insert(member.item.as_str().into(), n);
            let members = &mut self.stories[n as usize].members;
            let at = members.partition_point(|m| m.published <= member.published);
            members.insert(at, Arc::new(member.clone()));
        }
        if let Some(key) = &d.url_key {
            self.urls.entry(key.as_str().into()).or_insert(n);
        }
        for key in &d.buckets {
            self.add_to_bucket(*key, n);
        }
        Ok(())
    }
}
