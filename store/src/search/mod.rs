//! Full-text search over every item: title, summary, short text and content, in a tantivy
//! index the store keeps beside sled (`DATA/search/`).
//!
//! Keeping it in step. Every item write (add, update, import, feed entry, remove) records
//! the item's id in `search_pending` with the write (a removal inside its transaction; a
//! batch of `upsert_items` in one entry written before its items, see [`BATCH`]); once
//! sled has it,
//! the write method re-reads those items under the index writer's lock, replaces their
//! documents, commits and reloads the reader, and only then returns. So a write
//! acknowledged to anyone is searchable at once, and whichever of two racing writers
//! indexes last indexes the newest state. A batch (`upsert_items`: a feed fetch, an
//! import's batches of 16,384) is one commit; it takes the writer's lock before its
//! first write and hands each chunk of items to the writer as written, so indexing runs
//! beside the sled writes, and any other writer of those items indexes after it. After
//! a crash between the two steps, the ids left in `search_pending` are indexed again
//! when the store opens (and a batch's sled entries mended first, see `items`).
//!
//! Rebuilding. `Store::reindex` (`radar items reindex`) refills the index from sled while
//! searches keep answering from the last commit; writes during it wait for its commit to
//! become searchable. When the store opens, an index that is missing, damaged, of an older
//! format, or whose document count differs from the item count is rebuilt before `open`
//! returns.
//!
//! Ranking: BM25 over the title and the rest of the text (the title weighted double), then
//! the newer item first among equal scores; `source:` and dates filter without scoring, so
//! a query of filters alone lists newest first. A search serves at most [`MAX_DEPTH`]
//! results.

mod highlight;
mod index;
mod query;
mod stem;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};
use tantivy::collector::sort_key::{SortBySimilarityScore, SortByStaticFastValue};
use tantivy::collector::{Count, TopDocs};
use tantivy::query::{BooleanQuery, Occur, Query, TermSetQuery};
use tantivy::schema::Value;
use tantivy::{DocAddress, Order, Searcher, TantivyDocument};

pub(crate) use index::SearchIndex;
pub use query::{MAX_QUERY_CHARS, QueryError, SearchQuery};

use crate::{
    Error, FREE_LIMIT, Mark, NewsItem, Result, SUBSCRIBER_PAGE, Store, Viewer, from_json, keys,
};
use radar_api::search::{SearchHit, SearchPage};

/// The first byte of a `search_pending` key that records a whole batch of item writes
/// (its value: their ids, one per line) rather than one item. No item id holds it (ids
/// are letters, digits, '-', '_' and '.'), so the two kinds of keys never meet. One
/// entry per batch instead of one per item saves an import two sled writes an item.
pub(crate) const BATCH: u8 = b'#';

/// What `search_pending` holds: the ids of the items to index again, and its entries as
/// read, to clear once those are committed.
struct Pending {
    ids: Vec<String>,
    /// The ids named by batch entries: a crash may have left their sled entries to mend.
    batched: Vec<String>,
    entries: Vec<PendingEntry>,
}

/// One `search_pending` entry: its key and its value.
pub(crate) type PendingEntry = (sled::IVec, sled::IVec);

/// How deep a search goes: results ranked below this are not served.
pub const MAX_DEPTH: usize = 10_000;
/// Items read from sled and handed to the writer between two looks at the lock.
const REBUILD_CHUNK: usize = 1_000;

impl Store {
    /// Brings the index in step when the store opens: fills it when `rebuild` says why it
    /// must be, else indexes the writes a crash left pending and checks the counts.
    pub(crate) fn open_search(&self, rebuild: Option<String>) -> Result<()> {
        let pending = self.pending()?;
        self.mend_pending_batches(&pending.batched)?;
        let why = match rebuild {
            Some(why) => Some(why),
            None => {
                self.index_pending(pending)?;
                let (docs, items) = (self.search.searcher().num_docs(), self.item_count()?);
                (docs != items).then(|| format!("it holds {docs} items, the store {items}"))
            }
        };
        if let Some(why) = why {
            let started = std::time::Instant::now();
            tracing::info!(reason = %why, items = self.item_count()?, "rebuilding the search index");
            let n = self.rebuild_index(|| {})?;
            tracing::info!(
                items = n,
                seconds = started.elapsed().as_secs_f64(),
                "search index rebuilt"
            );
        }
        Ok(())
    }

    fn pending(&self) -> Result<Pending> {
        let mut ids = Vec::new();
        let mut batched = Vec::new();
        let mut entries = Vec::new();
        for entry in self.t.search_pending.iter() {
            let (key, value) = entry?;
            match key.strip_prefix(&[BATCH]) {
                Some(_) => batched.extend(
                    value
                        .split(|b| *b == b'\n')
                        .map(|id| String::from_utf8_lossy(id).into_owned()),
                ),
                None => ids.push(String::from_utf8_lossy(&key).into_owned()),
            }
            entries.push((key, value));
        }
        ids.extend(batched.iter().cloned());
        ids.sort_unstable();
        ids.dedup();
        Ok(Pending {
            ids,
            batched,
            entries,
        })
    }

    /// Indexes what `search_pending` held and clears those entries; during a rebuild it
    /// does nothing, as [`Store::index_items`].
    fn index_pending(&self, pending: Pending) -> Result<()> {
        if pending.entries.is_empty() {
            return Ok(());
        }
        let mut w = self.search.lock();
        if w.rebuilding {
            return Ok(());
        }
        self.replace_documents(&w, &pending.ids)?;
        self.search.commit(&mut w)?;
        self.clear_pending(pending.entries.into_iter().map(|(k, v)| (k, Some(v))))
    }

    /// Replaces the documents of `ids` with what sled holds now (none for a removed item)
    /// and commits. Called by every item write after sled has it. During a rebuild it does
    /// nothing: the ids stay pending and the rebuild indexes them at its end.
    pub(crate) fn index_items(&self, ids: &[String]) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let mut w = self.search.lock();
        if w.rebuilding {
            return Ok(());
        }
        // Each id's marker is read before its item, so a write after that read leaves
        // a marker of its own, which this commit does not clear.
        let done = ids
            .iter()
            .map(|id| Ok((id.as_str(), self.t.search_pending.get(id)?)))
            .collect::<Result<Vec<_>>>()?;
        self.replace_documents(&w, ids)?;
        self.search.commit(&mut w)?;
        self.clear_pending(done)
    }

    /// Deletes and re-adds the documents of `ids` from what sled holds now.
    fn replace_documents(&self, w: &index::Writer, ids: &[String]) -> Result<()> {
        for id in ids {
            match self.item(id)? {
                Some(item) => self.search.replace_document(w, &item)?,
                None => {
                    w.writer.delete_term(self.search.id_term(id));
                }
            }
        }
        Ok(())
    }

    /// Clears the pending entries that are still the ones read before the commit; a
    /// marker a newer write put there stays for that write to clear.
    pub(crate) fn clear_pending<K: AsRef<[u8]>>(
        &self,
        done: impl IntoIterator<Item = (K, Option<sled::IVec>)>,
    ) -> Result<()> {
        for (key, marker) in done {
            if let Some(marker) = marker {
                let _ = self
                    .t
                    .search_pending
                    .compare_and_swap(key, Some(marker), None::<&[u8]>)?;
            }
        }
        Ok(())
    }

    /// Rebuilds the search index from every item, calling `progress` after each one;
    /// answers how many items it indexed. Searches answer from the previous index until
    /// the new one is committed. Only one rebuild runs at a time. Refused on a full
    /// disk, as any write (see `space`).
    pub fn reindex(&self, progress: impl FnMut()) -> Result<u64> {
        self.writable()?;
        self.rebuild_index(progress)
    }

    /// [`Store::reindex`] without the space guard, for the rebuild when the store opens:
    /// recovery may use the reserve (see `space`).
    fn rebuild_index(&self, mut progress: impl FnMut()) -> Result<u64> {
        {
            let mut w = self.search.lock();
            if w.rebuilding {
                return Err(Error::Conflict(
                    "the search index is being rebuilt already; wait for that to finish".into(),
                ));
            }
            w.rebuilding = true;
            w.writer.delete_all_documents()?;
            // Segments are merged once the rebuild is committed, not while it runs: merging
            // as it goes would rewrite each document several times over.
            w.writer
                .set_merge_policy(Box::new(tantivy::merge_policy::NoMergePolicy));
        }
        let built = self.refill(&mut progress);
        let mut w = self.search.lock();
        w.rebuilding = false;
        w.writer
            .set_merge_policy(Box::new(tantivy::merge_policy::LogMergePolicy::default()));
        let committed = built.and_then(|n| {
            let pending = self.pending()?;
            self.replace_documents(&w, &pending.ids)?;
            self.search.commit(&mut w)?;
            self.search.mark_complete()?;
            self.clear_pending(pending.entries.into_iter().map(|(k, v)| (k, Some(v))))?;
            Ok(n)
        });
        if committed.is_err() {
            // Back to the last commit, with the writes made meanwhile indexed on it.
            let _ = w.writer.rollback();
            drop(w);
            let _ = self.pending().and_then(|p| self.index_pending(p));
        }
        committed
    }

    /// Hands every item to the writer, a chunk at a time, so item writes are never kept
    /// waiting for the lock for long.
    fn refill(&self, progress: &mut impl FnMut()) -> Result<u64> {
        let mut chunk = Vec::with_capacity(REBUILD_CHUNK);
        let mut n = 0;
        let hand_over = |chunk: &mut Vec<TantivyDocument>| -> Result<()> {
            let w = self.search.lock();
            for doc in chunk.drain(..) {
                w.writer.add_document(doc)?;
            }
            Ok(())
        };
        for entry in self.t.items.iter() {
            let (_, value) = entry?;
            let item: NewsItem = from_json(&value)?;
            chunk.push(self.search.document(&item));
            n += 1;
            progress();
            if chunk.len() == REBUILD_CHUNK {
                hand_over(&mut chunk)?;
            }
        }
        hand_over(&mut chunk)?;
        Ok(n)
    }

    /// One page of search results for a reader: ranked by relevance, newer first among
    /// equals, without the items the reader hid. Free readers get the best
    /// [`FREE_LIMIT`] results and no cursor; subscribers pages of [`SUBSCRIBER_PAGE`] and a
    /// `nextCursor` for the next page.
    pub fn search(
        &self,
        viewer: &Viewer,
        query: &SearchQuery,
        cursor: Option<&str>,
    ) -> Result<SearchPage> {
        let limit = if viewer.subscriber {
            SUBSCRIBER_PAGE
        } else {
            FREE_LIMIT
        };
        let mut pos = match cursor {
            None => 0,
            Some(_) if !viewer.subscriber => {
                return Err(Error::Forbidden(format!(
                    "free accounts see the best {FREE_LIMIT} results; subscribe to see more"
                )));
            }
            Some(c) => decode_cursor(c, query)?,
        };
        let searcher = self.search.searcher();
        let q = query.to_query(&self.search.fields);
        let mut items = Vec::with_capacity(limit);
        let mut next = None;
        // Hidden items are skipped as the ranking is walked: first one result more than a
        // page (to learn whether more remain), then windows twice as large.
        let mut window = limit + 1;
        'walk: while pos < MAX_DEPTH {
            let take = window.min(MAX_DEPTH - pos);
            let ranked = ranked(&searcher, &*q, pos, take)?;
            for (i, addr) in ranked.iter().enumerate() {
                let id = self.doc_id(&searcher, *addr)?;
                if let Some(user) = &viewer.user_id
                    && self.has_mark(user, &id, Mark::Hidden)?
                {
                    continue;
                }
                if items.len() == limit {
                    next = Some(pos + i);
                    break 'walk;
                }
                if let Some(item) = self.item(&id)? {
                    items.push(item);
                }
            }
            if ranked.len() < take {
                break;
            }
            pos += take;
            window *= 2;
        }
        let reachable = if viewer.subscriber { MAX_DEPTH } else { limit };
        let total = self
            .unhidden_matches(&searcher, &*q, viewer)?
            .min(reachable as u64);
        let highlighter = highlight::Highlighter::new(&searcher, &*q, &self.search.fields)?;
        let items = items
            .into_iter()
            .map(|item| SearchHit {
                highlights: highlighter.highlights(&item),
                item,
            })
            .collect();
        Ok(SearchPage {
            items,
            has_more: next.is_some(),
            next_cursor: next
                .filter(|_| viewer.subscriber)
                .map(|pos| encode_cursor(pos, query)),
            limit,
            total,
            subscriber: viewer.subscriber,
        })
    }

    /// How many items match, less those of them the reader hid: the matches counted once,
    /// then the reader's hidden items among them (a walk of this reader's hidden keys only).
    fn unhidden_matches(&self, searcher: &Searcher, q: &dyn Query, viewer: &Viewer) -> Result<u64> {
        let all = searcher.search(q, &Count)? as u64;
        let Some(user) = &viewer.user_id else {
            return Ok(all);
        };
        let mut hidden = Vec::new();
        for key in self
            .mark_tree(Mark::Hidden)
            .scan_prefix(keys::prefix(user))
            .keys()
        {
            if let Some(id) = keys::last_part(&key?) {
                hidden.push(self.search.id_term(id));
            }
        }
        if hidden.is_empty() {
            return Ok(all);
        }
        let among = BooleanQuery::new(vec![
            (Occur::Must, q.box_clone()),
            (Occur::Must, Box::new(TermSetQuery::new(hidden))),
        ]);
        Ok(all.saturating_sub(searcher.search(&among, &Count)? as u64))
    }

    /// One page (numbered from 1) of the whole catalogue's results for the public API, and
    /// how many items match in all. A page past the end is empty; a page reaching below
    /// [`MAX_DEPTH`] is refused.
    pub fn search_catalogue(
        &self,
        query: &SearchQuery,
        page: u64,
        limit: u64,
    ) -> Result<(Vec<NewsItem>, u64)> {
        if page == 0 || limit == 0 {
            return Err(Error::Invalid("page and limit start at 1".into()));
        }
        let offset = (page - 1).saturating_mul(limit);
        if offset.saturating_add(limit) > MAX_DEPTH as u64 {
            return Err(Error::Invalid(format!(
                "page: a search serves its best {MAX_DEPTH} results, so page × limit must stay \
                 within {MAX_DEPTH}; narrow the query instead"
            )));
        }
        let searcher = self.search.searcher();
        let q = query.to_query(&self.search.fields);
        let total = searcher.search(&*q, &Count)? as u64;
        if offset >= total {
            return Ok((Vec::new(), total));
        }
        let mut items = Vec::with_capacity(limit as usize);
        for addr in ranked(&searcher, &*q, offset as usize, limit as usize)? {
            if let Some(item) = self.item(&self.doc_id(&searcher, addr)?)? {
                items.push(item);
            }
        }
        Ok((items, total))
    }

    fn doc_id(&self, searcher: &Searcher, addr: DocAddress) -> Result<String> {
        let doc: TantivyDocument = searcher.doc(addr)?;
        doc.get_first(self.search.fields.id)
            .and_then(|v| v.as_str())
            .map(str::to_string)
            .ok_or_else(|| Error::Index("a document without an item id".into()))
    }
}

/// Results `offset..offset + limit` of the ranking: by score, then newest first.
fn ranked(
    searcher: &Searcher,
    query: &dyn Query,
    offset: usize,
    limit: usize,
) -> Result<Vec<DocAddress>> {
    let top = TopDocs::with_limit(limit).and_offset(offset).order_by((
        (SortBySimilarityScore, Order::Desc),
        (
            SortByStaticFastValue::<i64>::for_field(index::PUBLISHED),
            Order::Desc,
        ),
    ));
    Ok(searcher
        .search(query, &top)?
        .into_iter()
        .map(|(_, addr)| addr)
        .collect())
}

/// A cursor names a position in the ranking and the query it belongs to, so a cursor
/// passed with another query is refused instead of paging through the wrong results.
fn fingerprint(query: &SearchQuery) -> [u8; 8] {
    let digest = Sha256::digest(format!("{query:?}").as_bytes());
    digest[..8].try_into().expect("8 bytes")
}

fn encode_cursor(pos: usize, query: &SearchQuery) -> String {
    let mut raw = (pos as u64).to_be_bytes().to_vec();
    raw.extend_from_slice(&fingerprint(query));
    URL_SAFE_NO_PAD.encode(raw)
}

fn decode_cursor(cursor: &str, query: &SearchQuery) -> Result<usize> {
    let raw = URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()
        .filter(|r| r.len() == 16)
        .ok_or_else(|| Error::Invalid("cursor is not one this server gave out".into()))?;
    if raw[8..] != fingerprint(query) {
        return Err(Error::Invalid(
            "cursor belongs to another query; search again without it".into(),
        ));
    }
    let pos = u64::from_be_bytes(raw[..8].try_into().expect("8 bytes"));
    Ok((pos as usize).min(MAX_DEPTH))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::items::tests::new_item;
    use crate::{NewItem, Options, test_store};

    fn item(title: &str, summary: &str, url: &str, date: &str) -> NewItem {
        NewItem {
            summary: summary.into(),
            ..new_item(title, Some(url), date)
        }
    }

    fn subscriber(user: &str) -> Viewer {
        Viewer {
            user_id: Some(user.into()),
            subscriber: true,
        }
    }

    fn titles(store: &Store, viewer: &Viewer, q: &str) -> Vec<String> {
        let q = SearchQuery::parse(q).unwrap();
        store
            .search(viewer, &q, None)
            .unwrap()
            .items
            .into_iter()
            .map(|h| h.item.title)
            .collect()
    }

    #[test]
    fn every_write_path_is_searchable_on_return() {
        let (_d, store) = test_store();
        let v = subscriber("u");
        let a = store
            .upsert_item(item(
                "Quantum chips",
                "Qubits",
                "https://a.example/1",
                "2026-01-01T00:00:00Z",
            ))
            .unwrap();
        assert_eq!(titles(&store, &v, "quantum"), ["Quantum chips"]);
        store
            .upsert_item(item(
                "Photonic chips",
                "Light",
                "https://a.example/1",
                "2026-01-01T00:00:00Z",
            ))
            .unwrap();
        assert!(
            titles(&store, &v, "quantum").is_empty(),
            "old words are gone"
        );
        assert_eq!(titles(&store, &v, "photonic"), ["Photonic chips"]);
        store
            .upsert_items([
                item(
                    "Batch one",
                    "First",
                    "https://b.example/1",
                    "2026-01-02T00:00:00Z",
                ),
                item(
                    "Batch two",
                    "Second",
                    "https://b.example/2",
                    "2026-01-03T00:00:00Z",
                ),
            ])
            .unwrap();
        assert_eq!(titles(&store, &v, "batch"), ["Batch two", "Batch one"]);
        let out = crate::admin::tests::import_all(
            &store,
            vec![item(
                "Imported",
                "Third",
                "https://c.example/1",
                "2026-01-04T00:00:00Z",
            )],
        );
        assert!(out[0].is_ok());
        assert_eq!(titles(&store, &v, "imported"), ["Imported"]);
        store.remove_item(&a.id).unwrap();
        assert!(titles(&store, &v, "photonic").is_empty());
        assert!(
            store.t.search_pending.is_empty(),
            "committed writes leave nothing pending"
        );
        assert_eq!(
            store.search.searcher().num_docs(),
            store.item_count().unwrap()
        );
    }

    #[test]
    fn title_matches_rank_first_and_equal_scores_go_newest_first() {
        let (_d, store) = test_store();
        store
            .upsert_items([
                item(
                    "Other news",
                    "All about distillation",
                    "https://a.example/1",
                    "2026-01-03T00:00:00Z",
                ),
                item(
                    "Distilled models",
                    "Smaller",
                    "https://a.example/2",
                    "2026-01-01T00:00:00Z",
                ),
                item(
                    "Same text",
                    "Same words",
                    "https://b.example/1",
                    "2026-01-01T00:00:00Z",
                ),
                item(
                    "Same text",
                    "Same words",
                    "https://b.example/2",
                    "2026-01-05T00:00:00Z",
                ),
            ])
            .unwrap();
        let v = subscriber("u");
        assert_eq!(
            titles(&store, &v, "distillation"),
            ["Distilled models", "Other news"]
        );
        let q = SearchQuery::parse("same words").unwrap();
        let dates: Vec<_> = store
            .search(&v, &q, None)
            .unwrap()
            .items
            .into_iter()
            .map(|h| h.item.published_date.to_rfc3339())
            .collect();
        assert_eq!(
            dates,
            ["2026-01-05T00:00:00+00:00", "2026-01-01T00:00:00+00:00"]
        );
        // Filters alone list newest first.
        assert_eq!(
            titles(&store, &v, "source:a.example"),
            ["Other news", "Distilled models"]
        );
    }

    #[test]
    fn a_phrase_matches_within_one_text_and_not_across_two() {
        let (_d, store) = test_store();
        store
            .upsert_items([
                NewItem {
                    short: "Weights ship today".into(),
                    content: "Nothing about the release.".into(),
                    ..item(
                        "Across",
                        "A lab talks about open",
                        "https://a.example/1",
                        "2026-01-02T00:00:00Z",
                    )
                },
                NewItem {
                    content: "The lab put open weights online.".into(),
                    ..item(
                        "Within",
                        "Nothing",
                        "https://a.example/2",
                        "2026-01-01T00:00:00Z",
                    )
                },
            ])
            .unwrap();
        let v = subscriber("u");
        assert_eq!(titles(&store, &v, "\"open weights\""), ["Within"]);
        let mut both = titles(&store, &v, "open weights");
        both.sort();
        assert_eq!(both, ["Across", "Within"]);
        assert_eq!(titles(&store, &v, "\"weights ship\""), ["Across"]);
    }

    #[test]
    fn caps_cursors_and_hidden_items() {
        let (_d, store) = test_store();
        let items: Vec<_> = (0..45)
            .map(|i| {
                item(
                    &format!("Chip story {i}"),
                    "About chips",
                    &format!("https://n.example/{i}"),
                    &format!("2026-01-{:02}T00:00:00Z", 1 + i % 28),
                )
            })
            .collect();
        let ids: Vec<_> = store
            .upsert_items(items)
            .unwrap()
            .into_iter()
            .map(|u| u.id)
            .collect();
        let q = SearchQuery::parse("chip").unwrap();
        let free = Viewer {
            user_id: Some("f".into()),
            subscriber: false,
        };
        let page = store.search(&free, &q, None).unwrap();
        assert_eq!(
            (page.items.len(), page.has_more, page.limit),
            (FREE_LIMIT, true, FREE_LIMIT)
        );
        assert_eq!((page.total, page.subscriber), (FREE_LIMIT as u64, false));
        assert!(page.next_cursor.is_none());
        assert!(matches!(
            store.search(&free, &q, Some("AAAA")),
            Err(Error::Forbidden(_))
        ));

        // The reader hides 3 of the best results: the pages skip them, and still hold 20.
        let v = subscriber("s");
        let first = store.search(&v, &q, None).unwrap();
        for h in &first.items[..3] {
            store.set_mark("s", &h.item.id, Mark::Hidden).unwrap();
        }
        let mut seen = Vec::new();
        let mut cursor = None;
        loop {
            let page = store.search(&v, &q, cursor.as_deref()).unwrap();
            assert!(page.items.len() <= SUBSCRIBER_PAGE);
            // What the reader can reach: the 45 matches less the 3 hidden ones.
            assert_eq!((page.total, page.subscriber), (42, true));
            seen.extend(page.items.into_iter().map(|h| h.item.id));
            match page.next_cursor {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        assert_eq!(seen.len(), 42);
        let mut unique = seen.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 42);
        assert!(first.items[..3].iter().all(|h| !seen.contains(&h.item.id)));
        assert!(ids.iter().filter(|id| !seen.contains(id)).count() == 3);
        // Another reader still finds them, and counts all 45; a cursor of another query is refused.
        assert_eq!(store.search(&subscriber("t"), &q, None).unwrap().total, 45);
        assert_eq!(
            store.search(&subscriber("t"), &q, None).unwrap().items[0]
                .item
                .id,
            first.items[0].item.id
        );
        let c = store.search(&v, &q, None).unwrap().next_cursor.unwrap();
        let other = SearchQuery::parse("story").unwrap();
        assert!(
            matches!(store.search(&v, &other, Some(&c)), Err(Error::Invalid(m)) if m.contains("another query"))
        );
    }

    #[test]
    fn highlights_mark_code_points_of_display_text() {
        let (_d, store) = test_store();
        store
            .upsert_item(NewItem {
                content: format!(
                    "{} The café served distilled espresso [2] to everyone.",
                    "Filler words here. ".repeat(30)
                ),
                ..item(
                    "Café owners distil [1] ideas",
                    "Nothing here",
                    "https://a.example/1",
                    "2026-01-01T00:00:00Z",
                )
            })
            .unwrap();
        let q = SearchQuery::parse("cafe distillation").unwrap();
        let hit = &store.search(&subscriber("u"), &q, None).unwrap().items[0];
        let title = &hit.highlights.title;
        assert_eq!(title.text, "Café owners distil ideas");
        let marked: Vec<String> = title
            .ranges
            .iter()
            .map(|[s, e]| title.text.chars().skip(*s).take(e - s).collect())
            .collect();
        assert_eq!(marked, ["Café", "distil"]);
        assert!(hit.highlights.summary.ranges.is_empty());
        let snippet = hit.highlights.snippet.as_ref().unwrap();
        assert_eq!(snippet.field, "content");
        assert!(
            snippet.text.contains("café served distilled"),
            "{}",
            snippet.text
        );
        assert!(snippet.text.chars().count() <= 200);
        let marked: Vec<String> = snippet
            .ranges
            .iter()
            .map(|[s, e]| snippet.text.chars().skip(*s).take(e - s).collect())
            .collect();
        assert_eq!(marked, ["café", "distilled"]);
    }

    #[test]
    fn pending_writes_are_indexed_and_a_stale_index_rebuilt_on_open() {
        let dir = tempfile::tempdir().unwrap();
        let v = subscriber("u");
        let kept;
        {
            let store = Store::open(dir.path(), Options::default()).unwrap();
            kept = store
                .upsert_item(item(
                    "Kept",
                    "One",
                    "https://a.example/1",
                    "2026-01-01T00:00:00Z",
                ))
                .unwrap()
                .id;
            // As after a crash between the sled write and the index commit: the index
            // lacks the item and its id is pending.
            let lost = store
                .upsert_item(item(
                    "Lost write",
                    "Two",
                    "https://a.example/2",
                    "2026-01-02T00:00:00Z",
                ))
                .unwrap();
            let mut w = store.search.lock();
            w.writer.delete_term(store.search.id_term(&lost.id));
            store.search.commit(&mut w).unwrap();
            drop(w);
            store
                .t
                .search_pending
                .insert(lost.id.as_bytes(), &[1])
                .unwrap();
            assert!(titles(&store, &v, "lost").is_empty());
        }
        {
            let store = Store::open(dir.path(), Options::default()).unwrap();
            assert_eq!(titles(&store, &v, "lost"), ["Lost write"]);
            assert!(store.t.search_pending.is_empty());
            // An index that lost a document without a pending mark is found out by count.
            let mut w = store.search.lock();
            w.writer.delete_term(store.search.id_term(&kept));
            store.search.commit(&mut w).unwrap();
            drop(w);
            assert!(titles(&store, &v, "kept").is_empty());
        }
        let store = Store::open(dir.path(), Options::default()).unwrap();
        assert_eq!(titles(&store, &v, "kept"), ["Kept"]);
    }

    #[test]
    fn a_batch_left_pending_by_a_crash_is_indexed_on_open() {
        let dir = tempfile::tempdir().unwrap();
        let v = subscriber("t");
        {
            let store = Store::open(dir.path(), Options::default()).unwrap();
            let written = store
                .upsert_items((0..3).map(|i| {
                    item(
                        &format!("Batch {i}"),
                        "Imported",
                        &format!("https://a.example/{i}"),
                        "2026-01-01T00:00:00Z",
                    )
                }))
                .unwrap();
            assert!(store.t.search_pending.is_empty(), "cleared once committed");
            // As after a crash between the batch's sled transaction and its commit.
            let mut w = store.search.lock();
            for up in &written {
                w.writer.delete_term(store.search.id_term(&up.id));
            }
            store.search.commit(&mut w).unwrap();
            drop(w);
            let ids: Vec<&str> = written.iter().map(|u| u.id.as_str()).collect();
            let key = [&[BATCH][..], &7u64.to_be_bytes()].concat();
            store
                .t
                .search_pending
                .insert(key, ids.join("\n").as_bytes())
                .unwrap();
            assert!(titles(&store, &v, "batch").is_empty());
        }
        let store = Store::open(dir.path(), Options::default()).unwrap();
        assert_eq!(titles(&store, &v, "batch").len(), 3);
        assert!(store.t.search_pending.is_empty());
    }

    #[test]
    fn reindex_keeps_writes_made_during_it() {
        let (_d, store) = test_store();
        store
            .upsert_items((0..3000).map(|i| {
                item(
                    &format!("Old {i}"),
                    "Before",
                    &format!("https://a.example/{i}"),
                    "2026-01-01T00:00:00Z",
                )
            }))
            .unwrap();
        let writer = {
            let store = store.clone();
            std::thread::spawn(move || {
                for i in 0..50 {
                    store
                        .upsert_item(item(
                            &format!("During {i}"),
                            "Meanwhile",
                            &format!("https://a.example/{i}"),
                            "2026-01-02T00:00:00Z",
                        ))
                        .unwrap();
                }
            })
        };
        let mut steps = 0;
        assert_eq!(store.reindex(|| steps += 1).unwrap(), 3000);
        writer.join().unwrap();
        assert_eq!(steps, 3000);
        // Whether a write landed before, during or after the rebuild, the index matches sled.
        assert!(store.t.search_pending.is_empty());
        assert_eq!(store.search.searcher().num_docs(), 3000);
        let q = SearchQuery::parse("during").unwrap();
        let found = store.search_catalogue(&q, 1, 100).unwrap();
        assert_eq!(found.1, 50);
        let q = SearchQuery::parse("old").unwrap();
        assert_eq!(store.search_catalogue(&q, 1, 100).unwrap().1, 2950);
    }
}

/// Regression: an excluded phrase in a segment where its words occur but never together
/// made tantivy's phrase scorer fail a debug assertion (a 500 in debug builds).
#[cfg(test)]
mod regressions {
    use super::*;
    use crate::items::tests::new_item;
    use crate::{NewItem, test_store};

    #[test]
    fn an_excluded_phrase_whose_words_appear_apart() {
        let (_d, store) = test_store();
        let mk = |t: &str, s: &str, u: &str| NewItem {
            summary: s.into(),
            ..new_item(t, Some(u), "2026-01-10T00:00:00Z")
        };
        crate::admin::tests::import_all(
            &store,
            vec![
                mk(
                    "Open weights arrive",
                    "A lab publishes open weights.",
                    "https://w.example/b",
                ),
                mk(
                    "Weights and measures",
                    "The open question of weights.",
                    "https://e.example/c",
                ),
            ],
        );
        let q = SearchQuery::parse("weights -\"open weights\"").unwrap();
        let v = Viewer {
            user_id: Some("u".into()),
            subscriber: true,
        };
        let titles: Vec<_> = store
            .search(&v, &q, None)
            .unwrap()
            .items
            .into_iter()
            .map(|h| h.item.title)
            .collect();
        assert_eq!(titles, ["Weights and measures"]);
    }
}
