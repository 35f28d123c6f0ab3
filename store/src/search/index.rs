//! The search index on disk (`DATA/search/`): its schema, its private directory and its
//! one writer.
//!
//! Only item ids are stored in the index; the texts stay in the backend, where snippets are cut
//! from. `radar-format` beside tantivy's files names the schema and analyzer the index was
//! built with, and is written only after a full build has been committed: an index without
//! it (missing, cut short, or from an older Radar) is rebuilt when the store opens.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::sync::{Mutex, MutexGuard};

use tantivy::directory::error::{DeleteError, LockError, OpenReadError, OpenWriteError};
use tantivy::directory::{
    DirectoryLock, FileHandle, Lock, MmapDirectory, WatchCallback, WatchHandle, WritePtr,
};
use tantivy::indexer::IndexWriterOptions;
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::{
    Directory, Index, IndexReader, IndexWriter, ReloadPolicy, Searcher, TantivyDocument, Term,
};

use crate::{Error, NewsItem, Result};

/// The schema and analyzer version. Bump it whenever either changes: every index built
/// with another version is rebuilt when the store opens.
pub(crate) const FORMAT: &str = "radar-search 2";
/// The file holding [`FORMAT`], inside the index directory.
const FORMAT_FILE: &str = "radar-format";
/// Name under which [`super::query::analyzer`] is registered.
const ANALYZER: &str = "radar_en";
/// Indexing threads and memory: two threads (the machine's cores), 64 MiB each before a
/// thread writes out a segment.
const WRITER_THREADS: usize = 2;
const WRITER_MEMORY_PER_THREAD: usize = 64 * 1024 * 1024;

/// The index's fields.
pub(crate) struct Fields {
    /// Item id, untokenized and stored: deletes by term and maps hits to items.
    pub id: Field,
    /// The text fields with their weight in the ranking (the title counts double).
    pub text: [(Field, f32); 2],
    /// Title.
    pub title: Field,
    /// Summary, short text and content, as three values of one field. Apart they would
    /// cost a postings entry per field for every word they share, and a search would
    /// score four fields instead of two; tantivy leaves a gap between a field's values,
    /// so a phrase never matches across two of them.
    pub body: Field,
    /// Lower-cased source name (as shown and without spaces), the host and the name the
    /// host gives (`the verge`, `theverge`, `theverge.com`), untokenized.
    pub source: Field,
    /// Publication time in milliseconds: date filters, and the recency tie-break.
    pub published: Field,
}

/// The name of [`Fields::published`], for sorting by it.
pub(crate) const PUBLISHED: &str = "published";

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let text = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(ANALYZER)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let id = b.add_text_field("id", STRING | STORED);
    let title = b.add_text_field("title", text.clone());
    let body = b.add_text_field("body", text);
    let source = b.add_text_field("source", STRING);
    let published = b.add_i64_field(PUBLISHED, INDEXED | FAST);
    let fields = Fields {
        id,
        text: [(title, 2.0), (body, 1.0)],
        title,
        body,
        source,
        published,
    };
    (b.build(), fields)
}

/// The writer and whether a full rebuild is under way (then item writes leave their ids
/// in `search_pending` for the rebuild to pick up at its end, instead of committing a
/// half-built index).
pub(crate) struct Writer {
    pub writer: IndexWriter,
    pub rebuilding: bool,
    /// Where this replica stands in a shared change log: every entry up to this number
    /// is in the index (see [`crate::backend::Backend::shared_change_log`]). Committed
    /// with the index as its payload, so a restart goes on from there.
    pub applied: u64,
}

/// The open index: searched through `reader`, written through the one `writer`.
pub(crate) struct SearchIndex {
    pub fields: Fields,
    dir: PathBuf,
    reader: IndexReader,
    writer: Mutex<Writer>,
    /// [`Writer::applied`] as of the last commit, readable without the writer's lock.
    applied: AtomicU64,
}

impl From<tantivy::TantivyError> for Error {
    fn from(e: tantivy::TantivyError) -> Self {
        Error::Index(e.to_string())
    }
}

impl SearchIndex {
    /// Opens `DATA/search`, or creates it empty. The second value says why the index
    /// must be filled from the store: it was missing, from another format, or could not
    /// be opened (a damaged one is removed and created anew).
    pub(crate) fn open(data_dir: &Path) -> Result<(Self, Option<String>)> {
        let dir = data_dir.join("search");
        let why = match std::fs::read_to_string(dir.join(FORMAT_FILE)) {
            Ok(f) if f.trim() == FORMAT => match Self::open_in(&dir, false) {
                Ok(index) => return Ok((index, None)),
                Err(e) => format!("it cannot be opened ({e})"),
            },
            Ok(f) => format!("it was built as {:?}, this Radar uses {FORMAT:?}", f.trim()),
            Err(_) if dir.exists() => "it has no format file (a build was cut short)".into(),
            Err(_) => "there is none yet".into(),
        };
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(|e| {
                Error::Index(format!(
                    "cannot remove the old index {}: {e}",
                    dir.display()
                ))
            })?;
        }
        Ok((Self::open_in(&dir, true)?, Some(why)))
    }

    fn open_in(dir: &Path, create: bool) -> Result<Self> {
        private_dir(dir)?;
        let directory = PrivateDir {
            inner: MmapDirectory::open(dir).map_err(|e| Error::Index(e.to_string()))?,
            root: dir.to_path_buf(),
        };
        let (schema, fields) = schema();
        let index = if create {
            Index::create(directory, schema.clone(), Default::default())?
        } else {
            Index::open(directory)?
        };
        if index.schema() != schema {
            return Err(Error::Index("its schema differs from this Radar's".into()));
        }
        index
            .tokenizers()
            .register(ANALYZER, super::query::analyzer());
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        let writer = index.writer_with_options(
            IndexWriterOptions::builder()
                .num_worker_threads(WRITER_THREADS)
                .memory_budget_per_thread(WRITER_MEMORY_PER_THREAD)
                .num_merge_threads(WRITER_THREADS)
                .build(),
        )?;
        let applied = index
            .load_metas()?
            .payload
            .and_then(|p| p.trim().parse().ok())
            .unwrap_or(0);
        Ok(Self {
            fields,
            dir: dir.to_path_buf(),
            reader,
            writer: Mutex::new(Writer {
                writer,
                rebuilding: false,
                applied,
            }),
            applied: AtomicU64::new(applied),
        })
    }

    /// A searcher over the last commit.
    pub(crate) fn searcher(&self) -> Searcher {
        self.reader.searcher()
    }

    /// The writer, waited for without holding a thread (a batch holds it across its
    /// writes to the backend).
    pub(crate) async fn lock(&self) -> MutexGuard<'_, Writer> {
        self.writer.lock().await
    }

    /// The index's folder.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Commits what the writer holds and makes it visible to the next search.
    pub(crate) fn commit(&self, w: &mut Writer) -> Result<()> {
        let mut commit = w.writer.prepare_commit()?;
        commit.set_payload(&w.applied.to_string());
        commit.commit()?;
        self.reader.reload()?;
        self.applied.store(w.applied, Ordering::Release);
        Ok(())
    }

    /// Where the committed index stands in a shared change log (see [`Writer::applied`]).
    pub(crate) fn applied(&self) -> u64 {
        self.applied.load(Ordering::Acquire)
    }

    /// Records that the committed index is complete and of this [`FORMAT`].
    pub(crate) fn mark_complete(&self) -> Result<()> {
        let path = self.dir.join(FORMAT_FILE);
        std::fs::write(&path, format!("{FORMAT}\n"))
            .map_err(|e| Error::Index(format!("cannot write {}: {e}", path.display())))?;
        private_file(&path);
        Ok(())
    }

    /// The term that names an item's document.
    pub(crate) fn id_term(&self, id: &str) -> Term {
        Term::from_field_text(self.fields.id, id)
    }

    /// Replaces the document of `item` (by its id) with one of its current text; seen by
    /// searches after the next commit.
    pub(crate) fn replace_document(&self, w: &Writer, item: &NewsItem) -> Result<()> {
        w.writer.delete_term(self.id_term(&item.id));
        w.writer.add_document(self.document(item))?;
        Ok(())
    }

    /// Adds the document of an item that has none yet; seen by searches after the next
    /// commit.
    pub(crate) fn add_document(&self, w: &Writer, item: &NewsItem) -> Result<()> {
        w.writer.add_document(self.document(item))?;
        Ok(())
    }

    /// An item's document.
    pub(crate) fn document(&self, item: &NewsItem) -> TantivyDocument {
        let f = &self.fields;
        let mut doc = TantivyDocument::new();
        doc.add_text(f.id, &item.id);
        doc.add_text(f.title, &item.title);
        doc.add_text(f.body, &item.summary);
        doc.add_text(f.body, &item.short);
        doc.add_text(f.body, &item.content);
        for term in source_terms(item) {
            doc.add_text(f.source, term);
        }
        doc.add_i64(f.published, item.published_date.timestamp_millis());
        doc
    }
}

/// The terms `source:` finds an item by: its source's name lower-cased, and without
/// spaces ("The Verge" is found as `source:theverge` too: a query word has no spaces);
/// its host, and the name the host alone gives (`theverge`), whatever the card shows.
pub(crate) fn source_terms(item: &NewsItem) -> Vec<String> {
    let mut terms = Vec::new();
    if let Some(name) = &item.source {
        let name = name.to_lowercase();
        let joined: String = name.chars().filter(|c| c.is_alphanumeric()).collect();
        if joined != name {
            terms.push(joined);
        }
        terms.push(name);
    }
    if let Some(host) = item
        .url
        .as_deref()
        .and_then(|u| url::Url::parse(u).ok())
        .and_then(|u| u.host_str().map(str::to_lowercase))
    {
        let host = host.strip_prefix("www.").unwrap_or(&host);
        if let Some(rule) =
            crate::display::host_rule(host).filter(|_| host.parse::<std::net::IpAddr>().is_err())
        {
            terms.push(rule.to_lowercase());
        }
        terms.push(host.to_string());
    }
    terms
}

/// Creates `dir` if needed and makes it the owner's alone (0700), like the data directory.
fn private_dir(dir: &Path) -> Result<()> {
    let failed = |e: std::io::Error| Error::Index(format!("cannot create {}: {e}", dir.display()));
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(failed)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(failed)?;
    }
    #[cfg(not(unix))]
    std::fs::create_dir_all(dir).map_err(failed)?;
    Ok(())
}

/// Makes a file the owner's alone (0600). The directory is already 0700, so a file is
/// never readable by others in between.
fn private_file(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
    }
    #[cfg(not(unix))]
    let _ = path;
}

/// tantivy's memory-mapped directory, with every file it creates made 0600.
#[derive(Debug, Clone)]
struct PrivateDir {
    inner: MmapDirectory,
    root: PathBuf,
}

impl Directory for PrivateDir {
    fn get_file_handle(
        &self,
        path: &Path,
    ) -> Result<std::sync::Arc<dyn FileHandle>, OpenReadError> {
        self.inner.get_file_handle(path)
    }
    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        self.inner.delete(path)
    }
    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.inner.exists(path)
    }
    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        let w = self.inner.open_write(path)?;
        private_file(&self.root.join(path));
        Ok(w)
    }
    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.inner.atomic_read(path)
    }
    fn atomic_write(&self, path: &Path, data: &[u8]) -> std::io::Result<()> {
        self.inner.atomic_write(path, data)?;
        private_file(&self.root.join(path));
        Ok(())
    }
    fn sync_directory(&self) -> std::io::Result<()> {
        self.inner.sync_directory()
    }
    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        let l = self.inner.acquire_lock(lock)?;
        private_file(&self.root.join(&lock.filepath));
        Ok(l)
    }
    fn watch(&self, callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.inner.watch(callback)
    }
}
