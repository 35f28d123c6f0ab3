//! Ready JSON answers of the busiest reads, kept above the backend: the first feed page
//! of everyone who is not a subscriber and has taken nothing out of their feed
//! (anonymous callers among them), and each recently active reader's first page. (The
//! daemon keeps the public listing's pages the same way, under the items' version.)
//!
//! Each page is kept with the versions it was built from: the items' version, and for a
//! reader's page the reader's version (see [`crate::backend::ItemStore::items_version`]
//! and [`crate::backend::MarkStore::reader_version`]). A request reads the versions now
//! and takes a kept page only when they are the same, so no page outlives the write that
//! changed it, whichever process made the write. A page is built after its versions are
//! read: a write that lands meanwhile moves a version on, and the page built from
//! before it is never served under the new one.

use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};

use lru::LruCache;

/// Readers whose first page is kept (a subscriber's page is about 40 KB).
const READER_PAGES: usize = 256;
/// A reader's kept first page and what it was built from.
struct ReaderPage {
    items: u64,
    reader: u64,
    subscriber: bool,
    json: Arc<[u8]>,
}

/// The caches.
pub(crate) struct Pages {
    shared_first: Mutex<Option<(u64, Arc<[u8]>)>>,
    readers: Mutex<LruCache<String, ReaderPage>>,
}

impl Default for Pages {
    fn default() -> Self {
        Self {
            shared_first: Mutex::new(None),
            readers: Mutex::new(LruCache::new(
                NonZeroUsize::new(READER_PAGES).expect("non-zero"),
            )),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Pages {
    /// The shared first page, if it was built at items version `items`.
    pub(crate) fn shared_first(&self, items: u64) -> Option<Arc<[u8]>> {
        match &*lock(&self.shared_first) {
            Some((v, page)) if *v == items => Some(page.clone()),
            _ => None,
        }
    }

    /// Keeps the shared first page built at items version `items`.
    pub(crate) fn keep_shared_first(&self, items: u64, page: Arc<[u8]>) {
        *lock(&self.shared_first) = Some((items, page));
    }

    /// A reader's first page, if it was built at these versions for this kind of caller.
    pub(crate) fn reader_first(
        &self,
        user: &str,
        items: u64,
        reader: u64,
        subscriber: bool,
    ) -> Option<Arc<[u8]>> {
        let mut kept = lock(&self.readers);
        let p = kept.get(user)?;
        (p.items == items && p.reader == reader && p.subscriber == subscriber)
            .then(|| p.json.clone())
    }

    /// Keeps a reader's first page built at these versions.
    pub(crate) fn keep_reader_first(
        &self,
        user: &str,
        items: u64,
        reader: u64,
        subscriber: bool,
        json: Arc<[u8]>,
    ) {
        lock(&self.readers).put(
            user.to_string(),
            ReaderPage {
                items,
                reader,
                subscriber,
                json,
            },
        );
    }

    /// Forgets a reader's page (account deletion).
    pub(crate) fn forget_reader(&self, user: &str) {
        lock(&self.readers).pop(user);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Was a budget of bytes in the embedded backend's cache of readers; the pages are
    /// kept here now, for a number of readers.
    #[test]
    fn kept_pages_stay_within_their_budget() {
        let pages = Pages::default();
        let size = 40_000;
        for i in 0..2000 {
            let json: Arc<[u8]> = vec![b'x'; size].into();
            pages.keep_reader_first(&format!("user{i}"), 1, 1, true, json);
        }
        let held = lock(&pages.readers).len();
        assert!(held <= READER_PAGES, "{held} pages");
        assert!(held >= READER_PAGES / 2, "{held} pages");
        assert!(
            pages.reader_first("user1999", 1, 1, true).is_some(),
            "the newest is kept"
        );
        for i in 0..2000 {
            pages.forget_reader(&format!("user{i}"));
        }
        assert_eq!(lock(&pages.readers).len(), 0);
    }
}
