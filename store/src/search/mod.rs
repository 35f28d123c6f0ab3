//! Full-text search over every item: title, summary, short text and content, in a tantivy
//! index the store keeps in its data directory (`DATA/search/`): a local replica of the
//! catalogue, whatever backend holds the items.
//!
//! Keeping it in step. Every item write (add, update, import, feed entry, remove) is
//! logged by the backend with the write (see [`crate::backend::ItemStore::item_changes`]).
//! Once the backend has it, the write method indexes those items under the index
//! writer's lock, commits and reloads the reader, tells the backend the log entries are
//! applied, and only then returns. So a write acknowledged to anyone is searchable at
//! once, and whichever of two racing writers indexes last indexes the newest state. A
//! batch (`upsert_items`: a feed fetch) is one commit; it takes the writer's lock before
//! its first write and hands each chunk of items to the writer as written, so indexing
//! runs beside the backend's writes, and any other writer of those items indexes after
//! it. An import hands its batches to the writer the same way but commits only every
//! half minute and at its end, when it answers: its items are searchable once it has
//! answered, and meanwhile as soon as any writer commits. After a crash between the two
//! steps, the log entries left are indexed again when the store opens.
//!
//! Rebuilding. `Store::reindex` (`radar items reindex`) refills the index from the
//! backend while searches keep answering from the last commit; writes during it wait for
//! its commit to become searchable. When the store opens, an index that is missing,
//! damaged, of an older format, or whose document count differs from the item count is
//! rebuilt before `open` returns.
//!
//! Ranking: BM25 over the title and the rest of the text (the title weighted double), then
//! the newer item first among equal scores; `source:` and dates filter without scoring, so
//! a query of filters alone lists newest first. A search serves at most [`MAX_DEPTH`]
//! results.

mod analyzer;
mod highlight;
mod index;
pub(crate) mod matcher;
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

pub(crate) use index::{SearchIndex, Writer};
pub use query::{MAX_QUERY_CHARS, QueryError, SearchQuery};

use crate::{Error, FREE_LIMIT, Mark, NewsItem, Result, SUBSCRIBER_PAGE, Store, Viewer, from_json};
use radar_api::search::Highlights;

/// How deep a search goes: results ranked below this are not served.
pub const MAX_DEPTH: usize = 10_000;
/// Items read from the backend and handed to the writer between two looks at the lock.
const REBUILD_CHUNK: usize = 1_000;
/// Change log entries read at a time when the index catches up.
const CHANGES_AT_ONCE: usize = 10_000;
/// Why a replica is rebuilt when the shared change log no longer holds its position.
const PRUNED_PAST: &str = "the change log was pruned past its position";

/// One page of search results, before the daemon writes it in the API's shape.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchResults {
    /// The items found, best first, each with where the query matched it.
    pub hits: Vec<(NewsItem, Highlights)>,
    /// Whether more results follow.
    pub has_more: bool,
    /// Where the next page starts (subscribers only).
    pub next_cursor: Option<String>,
    /// The most items a page holds for this caller.
    pub limit: usize,
    /// How many results the caller can reach.
    pub total: u64,
    /// Whether the caller was counted as a subscriber.
    pub subscriber: bool,
}

impl Store {
    /// Brings the index in step when the store opens: fills it when `rebuild` says why it
    /// must be, else indexes the writes the change log still holds and checks the counts.
    pub(crate) async fn open_search(&self, rebuild: Option<String>) -> Result<()> {
        let Some(index) = self.replica() else {
            return Ok(());
        };
        {
            // Counted from the items before the log is caught up: entries the log still
            // holds are applied again below, which replaces, never adds.
            let _w = index.lock().await;
            self.rebuild_trends().await?;
        }
        let why = if let Some(why) = rebuild {
            Some(why)
        } else if !self.catch_up_index().await? {
            Some(PRUNED_PAST.to_string())
        } else {
            let docs = index.searcher().num_docs();
            let items = self.backend().item_count().await?;
            (docs != items).then(|| format!("it holds {docs} items, the store {items}"))
        };
        if let Some(why) = why {
            let started = std::time::Instant::now();
            let items = self.backend().item_count().await?;
            tracing::info!(reason = %why, items, "rebuilding the search index");
            let n = self.rebuild_index(index, || {}).await?;
            tracing::info!(
                items = n,
                seconds = started.elapsed().as_secs_f64(),
                "search index rebuilt"
            );
        }
        Ok(())
    }

    /// Indexes every item the change log names that this replica has not applied, and
    /// forgets those entries; during a rebuild it does nothing (the rebuild catches up at
    /// its end). On a shared log the replica goes on from its own position; otherwise
    /// the log holds only entries not yet applied. Answers false when the shared log was
    /// pruned past this replica's position: it cannot catch up, it must be rebuilt.
    pub(crate) async fn catch_up_index(&self) -> Result<bool> {
        let Some(index) = self.replica() else {
            return Ok(true);
        };
        let shared = self.backend().shared_change_log();
        let mut after = 0;
        loop {
            let mut w = index.lock().await;
            if w.rebuilding {
                return Ok(true);
            }
            if shared {
                after = after.max(w.applied);
            }
            let changes = self.backend().item_changes(after, CHANGES_AT_ONCE).await?;
            // A shared log's numbers run without a gap, so an entry after ours that is
            // not the next one (or none at all) may mean the log was pruned past us:
            // asked after the read, as pruning moves the mark with the entries it takes.
            let next = changes.first().map(|c| c.seq);
            if shared
                && next != Some(after + 1)
                && self.backend().change_log_pruned_through().await? > after
            {
                return Ok(false);
            }
            let Some(last) = changes.last() else {
                return Ok(true);
            };
            after = last.seq;
            let mut ids: Vec<String> = changes.iter().map(|c| c.id.clone()).collect();
            ids.sort_unstable();
            ids.dedup();
            let mut seqs: Vec<u64> = changes.iter().map(|c| c.seq).collect();
            seqs.dedup();
            self.replace_documents(index, &w, &ids).await?;
            if shared {
                w.applied = w.applied.max(last.seq);
            }
            index.commit(&mut w)?;
            drop(w);
            self.backend().forget_item_changes(&seqs).await?;
        }
    }

    /// Brings this replica up to the writes committed so far on a shared log, in one
    /// query when it is current: a search never answers from a replica older than the
    /// writes its caller was told were done, wherever they were made.
    pub(crate) async fn search_replica_current(&self) -> Result<()> {
        if !self.backend().shared_change_log() {
            return Ok(());
        }
        let Some(index) = self.replica() else {
            return Ok(());
        };
        if self.backend().items_version().await? <= index.applied() {
            return Ok(());
        }
        if !self.catch_up_index().await? {
            // Only a replica that stopped following for longer than the log keeps its
            // entries gets here (a running daemon follows it every second): refilled
            // from the items, searches answering from the old index meanwhile.
            tracing::warn!("rebuilding the search index: {PRUNED_PAST}");
            match self.rebuild_index(index, || {}).await {
                Ok(_) | Err(Error::Conflict(_)) => {}
                Err(e) => return Err(e),
            }
            // The trends missed the same entries: counted again from the items.
            let _w = index.lock().await;
            self.rebuild_trends().await?;
        }
        Ok(())
    }

    /// Replaces the documents of `ids` with what the backend holds now (none for a
    /// removed item) and commits, then forgets the change log entries `seqs`: what every
    /// write of items does after the backend has it. During a rebuild it does nothing:
    /// the entries stay and the rebuild indexes them at its end. A process without a
    /// replica leaves them in the log for those that have one.
    pub(crate) async fn index_items(&self, ids: &[String], seqs: &[u64]) -> Result<()> {
        let Some(index) = self.replica() else {
            return Ok(());
        };
        if ids.is_empty() {
            return Ok(());
        }
        let mut w = index.lock().await;
        if w.rebuilding {
            return Ok(());
        }
        self.replace_documents(index, &w, ids).await?;
        index.commit(&mut w)?;
        drop(w);
        self.backend().forget_item_changes(seqs).await
    }

    /// Deletes and re-adds the documents of `ids` from what the backend holds now.
    async fn replace_documents(
        &self,
        index: &SearchIndex,
        w: &index::Writer,
        ids: &[String],
    ) -> Result<()> {
        let items = self.backend().items(ids).await?;
        for (id, json) in ids.iter().zip(items) {
            let item: Option<NewsItem> = json.map(|j| from_json(&j)).transpose()?;
            match &item {
                Some(item) => index.replace_document(w, item)?,
                None => {
                    w.writer.delete_term(index.id_term(id));
                }
            }
            if let Some(trends) = self.trends_replica() {
                trends.apply(id, item.as_ref());
            }
        }
        Ok(())
    }

    /// Rebuilds the search index from every item, calling `progress` after each one;
    /// answers how many items it indexed. Searches answer from the previous index until
    /// the new one is committed. Only one rebuild runs at a time. Refused while the
    /// backend refuses writes (a full disk).
    pub async fn reindex(&self, progress: impl FnMut() + Send) -> Result<u64> {
        let index = self.index()?;
        if self.storage_full() {
            return Err(Error::StorageFull(std::path::PathBuf::from(
                index.dir().parent().unwrap_or(index.dir()),
            )));
        }
        self.rebuild_index(index, progress).await
    }

    /// [`Store::reindex`] without the check of the disk, for the rebuild when the store
    /// opens: recovery may use the reserve.
    async fn rebuild_index(
        &self,
        index: &SearchIndex,
        mut progress: impl FnMut() + Send,
    ) -> Result<u64> {
        // On a shared log, where the rebuild starts: what is written from here on is
        // indexed again at its end.
        let start = if self.backend().shared_change_log() {
            self.backend().items_version().await?
        } else {
            0
        };
        {
            let mut w = index.lock().await;
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
        let built = self.refill(index, &mut progress).await;
        let mut w = index.lock().await;
        w.rebuilding = false;
        w.writer
            .set_merge_policy(Box::new(tantivy::merge_policy::LogMergePolicy::default()));
        let committed = match built {
            Ok(n) => self.finish_rebuild(index, &mut w, start).await.map(|()| n),
            Err(e) => Err(e),
        };
        if committed.is_err() {
            // Back to the last commit, with the writes made meanwhile indexed on it.
            let _ = w.writer.rollback();
            drop(w);
            let _ = self.catch_up_index().await;
        }
        committed
    }

    /// Indexes what was written during a rebuild (the log's entries after `start`),
    /// commits it and records it complete.
    async fn finish_rebuild(
        &self,
        index: &SearchIndex,
        w: &mut index::Writer,
        start: u64,
    ) -> Result<()> {
        let changes = self.backend().item_changes(start, usize::MAX).await?;
        let ids: Vec<String> = changes.iter().map(|c| c.id.clone()).collect();
        self.replace_documents(index, w, &ids).await?;
        if self.backend().shared_change_log() {
            w.applied = changes.last().map_or(start, |c| c.seq.max(start));
        }
        index.commit(w)?;
        index.mark_complete()?;
        let seqs: Vec<u64> = changes.iter().map(|c| c.seq).collect();
        self.backend().forget_item_changes(&seqs).await
    }

    /// Hands every item to the writer, a chunk at a time, so item writes are never kept
    /// waiting for the lock for long.
    async fn refill(
        &self,
        index: &SearchIndex,
        progress: &mut (impl FnMut() + Send),
    ) -> Result<u64> {
        let mut n = 0;
        let mut after: Option<String> = None;
        loop {
            let chunk = self
                .backend()
                .items_after(after.as_deref(), REBUILD_CHUNK)
                .await?;
            let Some(last) = chunk.last() else {
                return Ok(n);
            };
            after = Some(from_json::<NewsItem>(last)?.id);
            let mut docs = Vec::with_capacity(chunk.len());
            for json in &chunk {
                let item: NewsItem = from_json(json)?;
                docs.push(index.document(&item));
                n += 1;
                progress();
            }
            let w = index.lock().await;
            for doc in docs {
                w.writer.add_document(doc)?;
            }
        }
    }

    /// One page of search results for a reader: ranked by relevance, newer first among
    /// equals, without the items the reader hid, and for a reader who reads by story one
    /// result per story (its best-ranked item, with its story). Free readers get the best
    /// [`FREE_LIMIT`] results and no cursor; subscribers pages of [`SUBSCRIBER_PAGE`] and a
    /// `nextCursor` for the next page.
    pub async fn search(
        &self,
        viewer: &Viewer,
        query: &SearchQuery,
        cursor: Option<&str>,
    ) -> Result<SearchResults> {
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
        let hidden: std::collections::HashSet<String> = match &viewer.user_id {
            Some(user) => self
                .backend()
                .marked_ids(user, Mark::Hidden)
                .await?
                .into_iter()
                .collect(),
            None => Default::default(),
        };
        self.search_replica_current().await?;
        let index = self.index()?;
        let searcher = index.searcher();
        let q = query.to_query(&index.fields);
        let by_story = self.reader_settings(viewer).await?.1;
        // By story, a story is listed once, at its best-ranked item: the stories of the
        // results before this page are taken out of it (a cursor is a rank, so they are
        // the ranks before `pos`, read again: as many lookups as the page is deep).
        let mut listed = std::collections::HashSet::new();
        if by_story && pos > 0 {
            for addr in ranked(&searcher, &*q, 0, pos)? {
                if let Some(story) = self
                    .backend()
                    .story_of(&self.doc_id(&searcher, addr)?)
                    .await?
                {
                    listed.insert(story);
                }
            }
        }
        let mut ids = Vec::with_capacity(limit);
        let mut next = None;
        // Hidden items are skipped as the ranking is walked: first one result more than a
        // page (to learn whether more remain), then windows twice as large.
        let mut window = limit + 1;
        'walk: while pos < MAX_DEPTH {
            let take = window.min(MAX_DEPTH - pos);
            let ranked = ranked(&searcher, &*q, pos, take)?;
            for (i, addr) in ranked.iter().enumerate() {
                let id = self.doc_id(&searcher, *addr)?;
                if hidden.contains(&id) {
                    continue;
                }
                let story = if by_story {
                    self.backend().story_of(&id).await?
                } else {
                    None
                };
                if story.as_ref().is_some_and(|s| listed.contains(s)) {
                    continue;
                }
                if ids.len() == limit {
                    next = Some(pos + i);
                    break 'walk;
                }
                listed.extend(story);
                ids.push(id);
            }
            if ranked.len() < take {
                break;
            }
            pos += take;
            window *= 2;
        }
        let items = self.backend().items(&ids).await?;
        let reachable = if viewer.subscriber { MAX_DEPTH } else { limit };
        let total = self
            .unhidden_matches(&searcher, &*q, &hidden)?
            .min(reachable as u64);
        let highlighter = highlight::Highlighter::new(&searcher, &*q, &index.fields)?;
        let mut hits = Vec::with_capacity(items.len());
        for json in items.into_iter().flatten() {
            let mut item: NewsItem = from_json(&json)?;
            let h = highlighter.highlights(&item);
            if by_story {
                item.story = self.story_of_item(&item.id).await?;
            }
            hits.push((item, h));
        }
        Ok(SearchResults {
            hits,
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
    /// then the reader's hidden items among them.
    fn unhidden_matches(
        &self,
        searcher: &Searcher,
        q: &dyn Query,
        hidden: &std::collections::HashSet<String>,
    ) -> Result<u64> {
        let all = searcher.search(q, &Count)? as u64;
        if hidden.is_empty() {
            return Ok(all);
        }
        let terms = hidden
            .iter()
            .map(|id| self.index().map(|index| index.id_term(id)))
            .collect::<Result<Vec<_>>>()?;
        let among = BooleanQuery::new(vec![
            (Occur::Must, q.box_clone()),
            (Occur::Must, Box::new(TermSetQuery::new(terms))),
        ]);
        Ok(all.saturating_sub(searcher.search(&among, &Count)? as u64))
    }

    /// One page (numbered from 1) of the whole catalogue's results for the public API, and
    /// how many items match in all. A page past the end is empty; a page reaching below
    /// [`MAX_DEPTH`] is refused.
    pub async fn search_catalogue(
        &self,
        query: &SearchQuery,
        page: u64,
        limit: u64,
    ) -> Result<(Vec<NewsItem>, u64)> {
        if page == 0 || limit == 0 {
            return Err(Error::Invalid("page and limit start at 1".into()));
        }
        let too_deep = || {
            Error::Invalid(format!(
                "page: a search serves its best {MAX_DEPTH} results, so page × limit must stay \
                 within {MAX_DEPTH}; narrow the query instead"
            ))
        };
        let offset = usize::try_from((page - 1).saturating_mul(limit)).map_err(|_| too_deep())?;
        let limit = usize::try_from(limit).map_err(|_| too_deep())?;
        if offset.saturating_add(limit) > MAX_DEPTH {
            return Err(too_deep());
        }
        self.search_replica_current().await?;
        let index = self.index()?;
        let searcher = index.searcher();
        let q = query.to_query(&index.fields);
        let total = searcher.search(&*q, &Count)?;
        if offset >= total {
            return Ok((Vec::new(), total as u64));
        }
        let mut ids = Vec::with_capacity(limit);
        for addr in ranked(&searcher, &*q, offset, limit)? {
            ids.push(self.doc_id(&searcher, addr)?);
        }
        let mut items = Vec::with_capacity(ids.len());
        for json in self.backend().items(&ids).await?.into_iter().flatten() {
            items.push(from_json(&json)?);
        }
        Ok((items, total as u64))
    }

    fn doc_id(&self, searcher: &Searcher, addr: DocAddress) -> Result<String> {
        let doc: TantivyDocument = searcher.doc(addr)?;
        doc.get_first(self.index()?.fields.id)
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
    Ok(usize::try_from(pos).map_or(MAX_DEPTH, |pos| pos.min(MAX_DEPTH)))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::NewItem;
    use crate::items::tests::new_item;
    use crate::testing::store_tests;

    pub(crate) fn item(title: &str, summary: &str, url: &str, date: &str) -> NewItem {
        NewItem {
            summary: summary.into(),
            ..new_item(title, Some(url), date)
        }
    }

    pub(crate) fn subscriber(user: &str) -> Viewer {
        Viewer {
            user_id: Some(user.into()),
            subscriber: true,
        }
    }

    pub(crate) async fn titles(store: &Store, viewer: &Viewer, q: &str) -> Vec<String> {
        let q = SearchQuery::parse(q).unwrap();
        store
            .search(viewer, &q, None)
            .await
            .unwrap()
            .hits
            .into_iter()
            .map(|(item, _)| item.title)
            .collect()
    }

    store_tests! {
        async fn every_write_path_is_searchable_on_return(store) {
            let v = subscriber("u");
            let a = store
                .upsert_item(item(
                    "Quantum chips",
                    "Qubits",
                    "https://a.example/1",
                    "2026-01-01T00:00:00Z",
                ))
                .await
                .unwrap();
            assert_eq!(titles(&store, &v, "quantum").await, ["Quantum chips"]);
            store
                .upsert_item(item(
                    "Photonic chips",
                    "Light",
                    "https://a.example/1",
                    "2026-01-01T00:00:00Z",
                ))
                .await
                .unwrap();
            assert!(
                titles(&store, &v, "quantum").await.is_empty(),
                "old words are gone"
            );
            assert_eq!(titles(&store, &v, "photonic").await, ["Photonic chips"]);
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
                .await
                .unwrap();
            assert_eq!(
                titles(&store, &v, "batch").await,
                ["Batch two", "Batch one"]
            );
            let out = crate::admin::tests::import_all(
                &store,
                vec![item(
                    "Imported",
                    "Third",
                    "https://c.example/1",
                    "2026-01-04T00:00:00Z",
                )],
            )
            .await;
            assert!(out[0].is_ok());
            assert_eq!(titles(&store, &v, "imported").await, ["Imported"]);
            store.remove_item(&a.id).await.unwrap();
            assert!(titles(&store, &v, "photonic").await.is_empty());
            if let Some(engine) = store.internals() {
                assert!(
                    (engine.index_len("search_pending") == 0),
                    "committed writes leave nothing pending"
                );
            }
            assert_eq!(
                store.index().unwrap().searcher().num_docs(),
                store.item_count().await.unwrap()
            );
        }

        async fn title_matches_rank_first_and_equal_scores_go_newest_first(store) {
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
                .await
                .unwrap();
            let v = subscriber("u");
            assert_eq!(
                titles(&store, &v, "distillation").await,
                ["Distilled models", "Other news"]
            );
            let q = SearchQuery::parse("same words").unwrap();
            let dates: Vec<_> = store
                .search(&v, &q, None)
                .await
                .unwrap()
                .hits
                .into_iter()
                .map(|(item, _)| item.published_date.to_rfc3339())
                .collect();
            assert_eq!(
                dates,
                ["2026-01-05T00:00:00+00:00", "2026-01-01T00:00:00+00:00"]
            );
            // Filters alone list newest first.
            assert_eq!(
                titles(&store, &v, "source:a.example").await,
                ["Other news", "Distilled models"]
            );
        }

        async fn a_phrase_matches_within_one_text_and_not_across_two(store) {
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
                .await
                .unwrap();
            let v = subscriber("u");
            assert_eq!(titles(&store, &v, "\"open weights\"").await, ["Within"]);
            let mut both = titles(&store, &v, "open weights").await;
            both.sort();
            assert_eq!(both, ["Across", "Within"]);
            assert_eq!(titles(&store, &v, "\"weights ship\"").await, ["Across"]);
        }

        async fn caps_cursors_and_hidden_items(store) {
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
                .await
                .unwrap()
                .into_iter()
                .map(|u| u.id)
                .collect();
            let q = SearchQuery::parse("chip").unwrap();
            let free = Viewer {
                user_id: Some("f".into()),
                subscriber: false,
            };
            let page = store.search(&free, &q, None).await.unwrap();
            assert_eq!(
                (page.hits.len(), page.has_more, page.limit),
                (FREE_LIMIT, true, FREE_LIMIT)
            );
            assert_eq!((page.total, page.subscriber), (FREE_LIMIT as u64, false));
            assert!(page.next_cursor.is_none());
            assert!(matches!(
                store.search(&free, &q, Some("AAAA")).await,
                Err(Error::Forbidden(_))
            ));

            // The reader hides 3 of the best results: the pages skip them, and still hold 20.
            let v = subscriber("s");
            let first = store.search(&v, &q, None).await.unwrap();
            for (item, _) in &first.hits[..3] {
                store.set_mark("s", &item.id, Mark::Hidden).await.unwrap();
            }
            let mut seen = Vec::new();
            let mut cursor = None;
            loop {
                let page = store.search(&v, &q, cursor.as_deref()).await.unwrap();
                assert!(page.hits.len() <= SUBSCRIBER_PAGE);
                // What the reader can reach: the 45 matches less the 3 hidden ones.
                assert_eq!((page.total, page.subscriber), (42, true));
                seen.extend(page.hits.into_iter().map(|(item, _)| item.id));
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
            assert!(
                first.hits[..3]
                    .iter()
                    .all(|(item, _)| !seen.contains(&item.id))
            );
            assert!(ids.iter().filter(|id| !seen.contains(id)).count() == 3);
            // Another reader still finds them, and counts all 45; a cursor of another query is refused.
            assert_eq!(
                store
                    .search(&subscriber("t"), &q, None)
                    .await
                    .unwrap()
                    .total,
                45
            );
            assert_eq!(
                store.search(&subscriber("t"), &q, None).await.unwrap().hits[0]
                    .0
                    .id,
                first.hits[0].0.id
            );
            let c = store
                .search(&v, &q, None)
                .await
                .unwrap()
                .next_cursor
                .unwrap();
            let other = SearchQuery::parse("story").unwrap();
            assert!(
                matches!(store.search(&v, &other, Some(&c)).await, Err(Error::Invalid(m)) if m.contains("another query"))
            );
        }

        async fn highlights_mark_code_points_of_display_text(store) {
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
                .await
                .unwrap();
            let q = SearchQuery::parse("cafe distillation").unwrap();
            let (_, highlights) = &store.search(&subscriber("u"), &q, None).await.unwrap().hits[0];
            let title = &highlights.title;
            assert_eq!(title.text, "Café owners distil ideas");
            let marked: Vec<String> = title
                .ranges
                .iter()
                .map(|[s, e]| title.text.chars().skip(*s).take(e - s).collect())
                .collect();
            assert_eq!(marked, ["Café", "distil"]);
            assert!(highlights.summary.ranges.is_empty());
            let snippet = highlights.snippet.as_ref().unwrap();
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

        async fn reindex_keeps_writes_made_during_it(store) {
            store
                .upsert_items((0..3000).map(|i| {
                    item(
                        &format!("Old {i}"),
                        "Before",
                        &format!("https://a.example/{i}"),
                        "2026-01-01T00:00:00Z",
                    )
                }))
                .await
                .unwrap();
            let writer = {
                let store = store.store.clone();
                tokio::spawn(async move {
                    for i in 0..50 {
                        store
                            .upsert_item(item(
                                &format!("During {i}"),
                                "Meanwhile",
                                &format!("https://a.example/{i}"),
                                "2026-01-02T00:00:00Z",
                            ))
                            .await
                            .unwrap();
                    }
                })
            };
            let mut steps = 0;
            assert_eq!(store.reindex(|| steps += 1).await.unwrap(), 3000);
            writer.await.unwrap();
            assert_eq!(steps, 3000);
            // Whether a write landed before, during or after the rebuild, the index matches the backend.
            if let Some(engine) = store.internals() {
                assert!((engine.index_len("search_pending") == 0));
            }
            assert_eq!(store.index().unwrap().searcher().num_docs(), 3000);
            let q = SearchQuery::parse("during").unwrap();
            let found = store.search_catalogue(&q, 1, 100).await.unwrap();
            assert_eq!(found.1, 50);
            let q = SearchQuery::parse("old").unwrap();
            assert_eq!(store.search_catalogue(&q, 1, 100).await.unwrap().1, 2950);
        }
    }
}

/// Regression: an excluded phrase in a segment where its words occur but never together
/// made tantivy's phrase scorer fail a debug assertion (a 500 in debug builds).
#[cfg(test)]
mod regressions {
    use super::*;
    use crate::NewItem;
    use crate::items::tests::new_item;
    use crate::testing::store_tests;

    store_tests! {
        async fn an_excluded_phrase_whose_words_appear_apart(store) {
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
            )
            .await;
            let q = SearchQuery::parse("weights -\"open weights\"").unwrap();
            let v = Viewer {
                user_id: Some("u".into()),
                subscriber: true,
            };
            let titles: Vec<_> = store
                .search(&v, &q, None)
                .await
                .unwrap()
                .hits
                .into_iter()
                .map(|(item, _)| item.title)
                .collect();
            assert_eq!(titles, ["Weights and measures"]);
        }
    }
}
