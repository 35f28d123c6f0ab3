//! The reader's marked items (favourite, hidden, read), kept locally so the screen changes
//! at once (docs/product.md §4): the marks are mutually exclusive, the same rule the store
//! enforces on the server. Each mark of [`Mark::ALL`] has its set of ids and the list its
//! view shows, at the mark's [`Mark::index`].

use std::collections::HashSet;

use radar_api::{Mark, NewsItem};

use crate::load::Load;

/// Every mark, in the order of the tables below.
pub const MARKS: [Mark; Mark::ALL.len()] = Mark::ALL;

fn slot(mark: Mark) -> usize {
    mark.index()
}

/// The signed-in reader's marks.
#[derive(Debug, Default)]
pub struct Marks {
    sets: [HashSet<String>; Mark::ALL.len()],
    lists: [Load<Vec<NewsItem>>; Mark::ALL.len()],
}

impl Marks {
    /// Whether the item carries the mark.
    pub fn has(&self, mark: Mark, id: &str) -> bool {
        self.sets[slot(mark)].contains(id)
    }

    /// The list a view shows (Favs, Trash or Read), newest mark first.
    pub fn list(&self, mark: Mark) -> &Load<Vec<NewsItem>> {
        &self.lists[slot(mark)]
    }

    /// Marks the item, clearing the other marks.
    pub fn set(&mut self, mark: Mark, item: &NewsItem) {
        for other in MARKS.into_iter().filter(|m| *m != mark) {
            self.clear(other, &item.id);
        }
        self.sets[slot(mark)].insert(item.id.clone());
        if let Load::Loaded(list) = &mut self.lists[slot(mark)]
            && !list.iter().any(|i| i.id == item.id)
        {
            list.insert(0, item.clone());
        }
    }

    /// Removes one mark; the others are untouched.
    pub fn clear(&mut self, mark: Mark, id: &str) {
        self.sets[slot(mark)].remove(id);
        if let Load::Loaded(list) = &mut self.lists[slot(mark)] {
            list.retain(|i| i.id != id);
        }
    }

    /// Sets the mark when absent, clears it when present; answers whether it is now set.
    pub fn toggle(&mut self, mark: Mark, item: &NewsItem) -> bool {
        if self.has(mark, &item.id) {
            self.clear(mark, &item.id);
            false
        } else {
            self.set(mark, item);
            true
        }
    }

    /// A list load started.
    pub fn loading(&mut self, mark: Mark) {
        self.lists[slot(mark)].start();
    }

    /// The server's list arrived: it replaces the local one.
    pub fn loaded(&mut self, mark: Mark, items: Vec<NewsItem>) {
        self.sets[slot(mark)] = items.iter().map(|i| i.id.clone()).collect();
        self.lists[slot(mark)] = Load::Loaded(items);
    }

    /// A list failed to load.
    pub fn failed(&mut self, mark: Mark, message: String) {
        self.lists[slot(mark)] = Load::Failed(message);
    }

    /// Whether the feed shows the item: neither hidden nor read.
    pub fn in_feed(&self, id: &str) -> bool {
        !self.has(Mark::Hidden, id) && !self.has(Mark::Read, id)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};

    pub(crate) fn item(id: &str) -> NewsItem {
        NewsItem {
            story: None,
            id: id.into(),
            title: format!("Title {id}"),
            summary: format!("Summary {id}"),
            short: String::new(),
            content: String::new(),
            url: None,
            published_date: Utc.with_ymd_and_hms(2026, 6, 1, 0, 0, 0).unwrap(),
            source: None,
        }
    }

    fn loaded() -> Marks {
        let mut m = Marks::default();
        for mark in MARKS {
            m.loaded(mark, vec![]);
        }
        m
    }

    #[test]
    fn marks_are_mutually_exclusive() {
        let mut m = loaded();
        let a = item("a");
        m.set(Mark::Read, &a);
        assert!(m.has(Mark::Read, "a") && !m.in_feed("a"));
        m.set(Mark::Favorite, &a);
        assert!(m.has(Mark::Favorite, "a"));
        assert!(!m.has(Mark::Read, "a") && !m.has(Mark::Hidden, "a"));
        assert!(m.in_feed("a"));
        m.set(Mark::Hidden, &a);
        assert!(m.has(Mark::Hidden, "a") && !m.has(Mark::Favorite, "a"));
        assert_eq!(m.list(Mark::Favorite).data().unwrap().len(), 0);
        assert_eq!(m.list(Mark::Hidden).data().unwrap()[0].id, "a");
        m.set(Mark::Read, &a);
        assert!(!m.has(Mark::Hidden, "a"));
        assert_eq!(m.list(Mark::Hidden).data().unwrap().len(), 0);
        assert_eq!(m.list(Mark::Read).data().unwrap()[0].id, "a");
    }

    #[test]
    fn clearing_one_mark_leaves_the_others() {
        let mut m = loaded();
        m.set(Mark::Favorite, &item("a"));
        m.set(Mark::Hidden, &item("b"));
        m.clear(Mark::Hidden, "b");
        assert!(m.in_feed("b") && m.has(Mark::Favorite, "a"));
        assert!(!m.toggle(Mark::Favorite, &item("a")));
        assert!(m.toggle(Mark::Favorite, &item("a")));
        assert!(m.has(Mark::Favorite, "a"));
    }

    #[test]
    fn a_server_list_replaces_the_set() {
        let mut m = loaded();
        m.set(Mark::Favorite, &item("a"));
        m.loaded(Mark::Favorite, vec![item("b")]);
        assert!(!m.has(Mark::Favorite, "a") && m.has(Mark::Favorite, "b"));
        // A failed list keeps nothing on screen but an error.
        m.failed(Mark::Read, "boom".into());
        assert_eq!(m.list(Mark::Read), &Load::Failed("boom".into()));
    }
}
