//! Stories in memory.

use std::collections::{HashMap, HashSet};

use super::MemoryBackend;
use crate::Result;
use crate::backend::StoryStore;

/// Every story, its members and its merges.
#[derive(Default)]
pub(super) struct Stories {
    /// item -> its story.
    of_item: HashMap<String, String>,
    /// story -> its members, the lead first.
    members: HashMap<String, Vec<String>>,
    /// merged story -> the story it merged into.
    merged_into: HashMap<String, String>,
}

impl Stories {
    fn resolve<'a>(&'a self, mut story: &'a str) -> &'a str {
        while let Some(next) = self.merged_into.get(story) {
            story = next;
        }
        story
    }

    /// Whether the item is a member of a story that another item leads.
    pub(super) fn covered(&self, item: &str) -> bool {
        self.of_item
            .get(item)
            .and_then(|s| self.members.get(s))
            .is_some_and(|m| m.first().is_some_and(|lead| lead != item))
    }

    fn place(&mut self, item: &str, story: &str, merged: &[String]) {
        let story = self.resolve(story).to_string();
        for other in merged {
            let other = self.resolve(other).to_string();
            if other == story {
                continue;
            }
            let moved = self.members.remove(&other).unwrap_or_default();
            for member in &moved {
                self.of_item.insert(member.clone(), story.clone());
            }
            self.members.entry(story.clone()).or_default().extend(moved);
            self.merged_into.insert(other, story.clone());
        }
        if self.of_item.contains_key(item) {
            return;
        }
        self.of_item.insert(item.to_string(), story.clone());
        self.members
            .entry(story)
            .or_default()
            .push(item.to_string());
    }

    fn leave(&mut self, item: &str) {
        let Some(story) = self.of_item.remove(item) else {
            return;
        };
        if let Some(members) = self.members.get_mut(&story) {
            members.retain(|m| m != item);
        }
    }

    fn covered_count(&self, exists: impl Fn(&str) -> bool) -> u64 {
        self.members
            .values()
            .flat_map(|m| m.iter().skip(1))
            .filter(|m| exists(m))
            .count() as u64
    }
}

#[async_trait::async_trait]
impl StoryStore for MemoryBackend {
    async fn place_in_story(&self, item: &str, story: &str, merged: &[String]) -> Result<()> {
        let mut state = self.lock();
        state.stories.place(item, story, merged);
        state.items.version += 1;
        Ok(())
    }

    async fn leave_story(&self, item: &str) -> Result<()> {
        let mut state = self.lock();
        state.stories.leave(item);
        state.items.version += 1;
        Ok(())
    }

    async fn story_of(&self, item: &str) -> Result<Option<String>> {
        Ok(self.lock().stories.of_item.get(item).cloned())
    }

    async fn story_members(&self, story: &str) -> Result<Vec<String>> {
        let state = self.lock();
        let story = state.stories.resolve(story);
        Ok(state
            .stories
            .members
            .get(story)
            .cloned()
            .unwrap_or_default())
    }

    async fn covered_count(&self) -> Result<u64> {
        let state = self.lock();
        Ok(state.stories.covered_count(|id| state.items.exists(id)))
    }

    async fn covered_out_of_feed(&self, reader: &str) -> Result<u64> {
        let state = self.lock();
        let out: HashSet<&str> = state.marks.out_of_feed(reader);
        Ok(out.iter().filter(|id| state.stories.covered(id)).count() as u64)
    }
}
