//! Items, feeds and weekly summaries, as operators manage them.

use std::cell::Cell;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use radar_store::{Feed, ImportStatus, NewItem};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::{AdminCtx, AdminError, AdminResponse, dates};
use crate::ingest;
use crate::summarize::{self, week::Week};

/// What an import did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ImportReport {
    /// Records read (valid or not).
    pub total: usize,
    /// New items.
    pub added: usize,
    /// Existing items (same id or URL) that got new content.
    pub updated: usize,
    /// Records identical to what is stored (repeats included).
    pub skipped: usize,
    /// Records that could not be imported.
    pub invalid: Vec<InvalidLine>,
}

/// A record that could not be imported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InvalidLine {
    /// 1-based line where the record starts.
    pub line: usize,
    /// Why.
    pub reason: String,
}

/// What an OPML import did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OpmlReport {
    /// Feeds added.
    pub added: Vec<Feed>,
    /// URLs already subscribed.
    pub existing: Vec<String>,
    /// Outlines refused, with the reason.
    pub invalid: Vec<String>,
}

pub(super) async fn items_add(ctx: &AdminCtx, item: NewItem) -> Result<AdminResponse, AdminError> {
    let outcome = ctx.store.import_item(item).await?;
    let item = ctx
        .store
        .item(&outcome.id)
        .await?
        .ok_or_else(|| AdminError::new("storage", "the item vanished after it was stored"))?;
    Ok(AdminResponse::Item {
        item,
        status: outcome.status,
    })
}

/// serde's message without its " at line L column C" tail (we give the line ourselves).
fn reason(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.find(" at line ") {
        Some(at) => s[..at].to_string(),
        None => s,
    }
}

/// One import record as written: [`NewItem`]'s fields, the date as it stands in the file.
/// Expected as [`NewItem`], so serde's messages ("expected struct NewItem") read as before.
#[derive(Deserialize)]
#[serde(expecting = "struct NewItem")]
struct Record {
    #[serde(default)]
    id: Option<String>,
    title: String,
    summary: String,
    #[serde(default)]
    short: String,
    #[serde(default)]
    content: String,
    #[serde(default)]
    url: Option<String>,
    published_date: serde_json::Value,
}

/// One import record. `published_date` is read like `items add --published` reads it
/// (see [`dates`]), so a date one accepts is never refused by the other. Parsed straight
/// into its fields: going through a `serde_json::Value` first built a map and a string
/// per field and then took it apart again. (Parsing is about 1% of an import's CPU time
/// either way; see bench/README.md for where the rest goes.)
fn record(raw: &str) -> Result<NewItem, String> {
    let r: Record = serde_json::from_str(raw).map_err(|e| reason(&e))?;
    let read = match &r.published_date {
        serde_json::Value::String(s) => dates::parse(s, false),
        other => Err(format!("{other} is not a date; write {}", dates::ACCEPTED)),
    };
    let published_date = read.map_err(|e| format!("published_date: {e}"))?;
    Ok(NewItem {
        source: None,
        id: r.id,
        title: r.title,
        summary: r.summary,
        short: r.short,
        content: r.content,
        url: r.url,
        published_date,
    })
}

/// What an import document without a single record is told: importing nothing is never
/// what was meant.
fn no_records() -> AdminError {
    AdminError::invalid(
        "the file holds no records; write a JSON array or JSON Lines of \
         {title, summary, published_date}",
    )
}

/// Splits an import document into its records with their line numbers, unparsed: a
/// JSON array's elements, or JSON Lines (blank lines ignored). Records are parsed one by
/// one as the import takes them, so it never holds the whole document's items at once. A
/// document without a single record is refused.
fn raw_records(content: &str) -> Result<Vec<(usize, &str)>, AdminError> {
    let mut out = Vec::new();
    if content.trim_start().starts_with('[') {
        let raws: Vec<&RawValue> = serde_json::from_str(content).map_err(|e| {
            AdminError::invalid(format!(
                "the file is not a valid JSON array (line {}: {}); fix it or use JSON Lines",
                e.line(),
                reason(&e)
            ))
        })?;
        // Lines are counted on from the record before, not from the start each time.
        let (mut line, mut counted) = (1, 0);
        for raw in raws {
            let offset = raw.get().as_ptr() as usize - content.as_ptr() as usize;
            line += content[counted..offset].matches('\n').count();
            counted = offset;
            out.push((line, raw.get()));
        }
    } else {
        for (i, line) in content.lines().enumerate() {
            if !line.trim().is_empty() {
                out.push((i + 1, line));
            }
        }
    }
    if out.is_empty() {
        return Err(no_records());
    }
    Ok(out)
}

/// The records of a JSON Lines file, each parsed with its line number as the import asks
/// for it: one line is in memory at a time, where reading the whole file first held all
/// of it (2 GB for a million news-sized items). A line that is not UTF-8 is an invalid
/// record like one that is not JSON. A read error ends the records and is kept in
/// `error`, with the last line read before it.
struct JsonLines<'a, R> {
    reader: R,
    line: usize,
    buf: Vec<u8>,
    error: &'a mut Option<(usize, std::io::Error)>,
}

impl<'a, R: BufRead> JsonLines<'a, R> {
    fn new(reader: R, error: &'a mut Option<(usize, std::io::Error)>) -> Self {
        Self {
            reader,
            line: 0,
            buf: Vec::new(),
            error,
        }
    }
}

impl<R: BufRead> Iterator for JsonLines<'_, R> {
    type Item = (usize, Result<NewItem, String>);

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            self.buf.clear();
            match self.reader.read_until(b'\n', &mut self.buf) {
                Ok(0) => return None,
                Ok(_) => self.line += 1,
                Err(e) => {
                    *self.error = Some((self.line, e));
                    return None;
                }
            }
            let Ok(raw) = std::str::from_utf8(&self.buf) else {
                return Some((
                    self.line,
                    Err("the line is not valid UTF-8; save the file as UTF-8".into()),
                ));
            };
            if !raw.trim().is_empty() {
                return Some((self.line, record(raw)));
            }
        }
    }
}

/// Lines in `file` (its newlines, and one more when it does not end with one) and its
/// first byte that is not white space: one pass, before the import, so that the progress
/// bar knows its length and a JSON array is told from JSON Lines.
fn survey(file: &mut impl BufRead) -> std::io::Result<(u64, Option<u8>)> {
    let (mut lines, mut first, mut last) = (0u64, None, b'\n');
    loop {
        let buf = file.fill_buf()?;
        let Some(&end) = buf.last() else {
            break;
        };
        lines += memchr::memchr_iter(b'\n', buf).count() as u64;
        if first.is_none() {
            first = buf.iter().copied().find(|b| !b.is_ascii_whitespace());
        }
        last = end;
        let n = buf.len();
        file.consume(n);
    }
    Ok((lines + u64::from(last != b'\n'), first))
}

/// Imports `records`, each with its line and what it parsed to, and reports on them;
/// `expected` is the progress bar's length.
async fn import_records(
    store: &radar_store::Store,
    progress: &dyn super::Progress,
    expected: u64,
    records: impl Iterator<Item = (usize, Result<NewItem, String>)>,
) -> Result<ImportReport, AdminError> {
    progress.begin(expected, "items");
    let mut report = ImportReport::default();
    let total = Cell::new(0);
    let invalid = Mutex::new(Vec::new());
    // The line of each record handed to the store, by its position among those.
    let lines = Mutex::new(Vec::new());
    let items = records.filter_map(|(line, parsed)| {
        total.set(total.get() + 1);
        match parsed {
            Ok(item) => {
                lock(&lines).push(line);
                Some(item)
            }
            Err(reason) => {
                lock(&invalid).push(InvalidLine { line, reason });
                progress.step("");
                None
            }
        }
    });
    store
        .import_items(items, |i, outcome| {
            progress.step("");
            match outcome {
                Ok(o) => match o.status {
                    ImportStatus::Added => report.added += 1,
                    ImportStatus::Updated => report.updated += 1,
                    ImportStatus::Unchanged => report.skipped += 1,
                },
                Err(e) => lock(&invalid).push(InvalidLine {
                    line: lock(&lines)[i],
                    reason: e.to_string(),
                }),
            }
        })
        .await?;
    progress.end();
    report.total = total.get();
    let mut invalid = invalid
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    invalid.sort_by_key(|l| l.line);
    report.invalid = invalid;
    Ok(report)
}

/// Imports a whole document: a JSON array or JSON Lines.
async fn import_document(
    store: &radar_store::Store,
    progress: &dyn super::Progress,
    content: &str,
) -> Result<ImportReport, AdminError> {
    let raws = raw_records(content)?;
    let records = raws.iter().map(|&(line, raw)| (line, record(raw)));
    import_records(store, progress, raws.len() as u64, records).await
}

pub(super) async fn items_import(
    ctx: &AdminCtx,
    content: String,
) -> Result<AdminResponse, AdminError> {
    let (store, progress) = (ctx.store.clone(), ctx.progress.clone());
    let report = super::on_blocking_pool(move || async move {
        import_document(&store, &*progress, &content).await
    })
    .await??;
    Ok(AdminResponse::Import(report))
}

/// Imports the file at `path` as this process reads it: JSON Lines a line at a time, so
/// that a large file is never held whole. A JSON array is still read whole (it must be
/// parsed whole to be found valid), and so is a pipe (it can be read only once).
pub(super) async fn items_import_file(
    ctx: &AdminCtx,
    path: PathBuf,
) -> Result<AdminResponse, AdminError> {
    let (store, progress) = (ctx.store.clone(), ctx.progress.clone());
    let report = super::on_blocking_pool(move || async move {
        let cannot =
            |e: std::io::Error| AdminError::invalid(format!("cannot read {}: {e}", path.display()));
        let open = || -> std::io::Result<_> {
            Ok(BufReader::with_capacity(READ_BUFFER, File::open(&path)?))
        };
        let mut file = open().map_err(cannot)?;
        // A pipe (`<(zcat items.jsonl.gz)`) can be read only once: it is read whole.
        if !file.get_ref().metadata().map_err(cannot)?.is_file() {
            let mut content = String::new();
            file.read_to_string(&mut content).map_err(cannot)?;
            return import_document(&store, &*progress, &content).await;
        }
        let (lines, first) = survey(&mut file).map_err(cannot)?;
        if first == Some(b'[') {
            let content = std::fs::read_to_string(&path).map_err(cannot)?;
            return import_document(&store, &*progress, &content).await;
        }
        let mut error = None;
        let records = JsonLines::new(open().map_err(cannot)?, &mut error);
        let report = import_records(&store, &*progress, lines, records).await?;
        if let Some((line, e)) = error {
            return Err(AdminError::invalid(format!(
                "cannot read {} after line {line}: {e}; the records before it are imported: \
                 import the file again once it reads (they count as unchanged)",
                path.display(),
            )));
        }
        if report.total == 0 {
            return Err(no_records());
        }
        Ok(report)
    })
    .await??;
    Ok(AdminResponse::Import(report))
}

/// How much of an import file is read at a time.
const READ_BUFFER: usize = 1 << 20;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

pub(super) async fn items_reindex(ctx: &AdminCtx) -> Result<AdminResponse, AdminError> {
    let (store, progress) = (ctx.store.clone(), ctx.progress.clone());
    let started = std::time::Instant::now();
    let items = super::on_blocking_pool(move || async move {
        progress.begin(store.item_count().await?, "items");
        let indexed = store.reindex(|| progress.step("")).await;
        progress.end();
        Ok::<_, AdminError>(indexed?)
    })
    .await??;
    Ok(AdminResponse::Reindexed {
        items,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// A feed by id or by URL.
pub(super) async fn find_feed(ctx: &AdminCtx, id_or_url: &str) -> Result<Feed, AdminError> {
    let found = match ctx.store.feed(id_or_url).await? {
        Some(f) => Some(f),
        None => ctx.store.feed_by_url(id_or_url).await?,
    };
    found.ok_or_else(|| {
        AdminError::new(
            "not_found",
            format!("no feed {id_or_url:?}; `radar feeds list` shows the ids"),
        )
    })
}

pub(super) async fn feeds_fetch(
    ctx: &AdminCtx,
    ids: Vec<String>,
    timeout_secs: Option<u64>,
) -> Result<AdminResponse, AdminError> {
    let feeds = if ids.is_empty() {
        ctx.store.feeds().await?
    } else {
        let mut feeds = Vec::with_capacity(ids.len());
        for id in &ids {
            feeds.push(find_feed(ctx, id).await?);
        }
        feeds
    };
    if feeds.is_empty() {
        return Ok(AdminResponse::Fetch(Vec::new()));
    }
    let timeout = timeout_secs.map_or(ctx.feed_timeout, Duration::from_secs);
    ctx.progress.begin(feeds.len() as u64, "feeds");
    // Feeds are fetched concurrently; each report arrives in the order they finish,
    // and the answer lists them in the order asked.
    let mut tasks = tokio::task::JoinSet::new();
    for (i, feed) in feeds.iter().enumerate() {
        let ctx = ctx.clone();
        let id = feed.id.clone();
        tasks.spawn(async move {
            let _slot = ctx.fetch_slots.clone().acquire_owned().await;
            (
                i,
                ingest::fetch_feed(
                    &ctx.store,
                    &ctx.http,
                    &ctx.in_flight,
                    &id,
                    timeout,
                    &ctx.polling,
                    // The host's place is waited for in the fetch.
                    None,
                    // A fetch the scheduler started is waited for: when this command
                    // returns, what the feed held is stored.
                    ingest::IfRunning::Wait,
                )
                .await,
            )
        });
    }
    let mut reports = vec![None; feeds.len()];
    while let Some(done) = tasks.join_next().await {
        let (i, report) = done.map_err(|e| AdminError::new("internal", e.to_string()))?;
        ctx.progress.step(&report.url);
        reports[i] = Some(report);
    }
    ctx.progress.end();
    Ok(AdminResponse::Fetch(
        reports.into_iter().flatten().collect(),
    ))
}

pub(super) async fn feeds_import_opml(
    ctx: &AdminCtx,
    content: &str,
) -> Result<AdminResponse, AdminError> {
    let outlines = ingest::opml::parse(content).map_err(AdminError::invalid)?;
    let mut report = OpmlReport::default();
    for o in outlines {
        match ctx.store.add_feed(&o.url, o.name).await {
            Ok(f) => report.added.push(f),
            Err(radar_store::Error::Conflict(_)) => report.existing.push(o.url),
            Err(radar_store::Error::Invalid(why)) => report.invalid.push(why),
            Err(e) => return Err(e.into()),
        }
    }
    Ok(AdminResponse::OpmlImport(report))
}

pub(super) async fn summaries_generate(
    ctx: &AdminCtx,
    week: Option<&str>,
    force: bool,
) -> Result<AdminResponse, AdminError> {
    let week = match week {
        Some(w) => Week::parse(w).map_err(AdminError::invalid)?,
        None => Week::previous(chrono::Utc::now()),
    };
    let with = summarize::Summarizer {
        store: &ctx.store,
        http: &ctx.http,
        llm: ctx.llm.as_ref(),
    };
    let g = summarize::generate(&with, &week, force).await?;
    Ok(AdminResponse::Generated {
        summary: g.summary,
        method: g.method.into(),
        warning: g.warning,
    })
}

/// `radar items remove`.
pub(super) async fn items_remove(ctx: &AdminCtx, id: String) -> Result<AdminResponse, AdminError> {
    ctx.store.remove_item(&id).await.map_err(|e| {
        super::not_found_hint(
            e,
            &format!("no item with id {id}; `radar items list` shows them"),
        )
    })?;
    Ok(AdminResponse::Removed {
        what: "item".into(),
        id,
    })
}

/// `radar feeds add`: the polling loop looks at the new feed at once.
pub(super) async fn feeds_add(
    ctx: &AdminCtx,
    url: &str,
    name: Option<String>,
) -> Result<AdminResponse, AdminError> {
    let feed = ctx.store.add_feed(url, name).await?;
    ctx.wake.notify_one();
    Ok(AdminResponse::Feed(feed))
}

/// `radar feeds remove`, by id or URL.
pub(super) async fn feeds_remove(ctx: &AdminCtx, id: &str) -> Result<AdminResponse, AdminError> {
    let feed = find_feed(ctx, id).await?;
    ctx.store.remove_feed(&feed.id).await?;
    Ok(AdminResponse::Removed {
        what: "feed".into(),
        id: feed.id,
    })
}

fn no_summary(id: &str) -> String {
    format!("no summary with id {id}; `radar summaries list` shows them")
}

/// `radar summaries show`.
pub(super) async fn summaries_show(ctx: &AdminCtx, id: &str) -> Result<AdminResponse, AdminError> {
    let summary = (ctx.store.summary(id).await?)
        .ok_or_else(|| AdminError::new("not_found", no_summary(id)))?;
    Ok(AdminResponse::Summary(summary))
}

/// `radar summaries remove`.
pub(super) async fn summaries_remove(
    ctx: &AdminCtx,
    id: String,
) -> Result<AdminResponse, AdminError> {
    (ctx.store.remove_summary(&id).await)
        .map_err(|e| super::not_found_hint(e, &no_summary(&id)))?;
    Ok(AdminResponse::Removed {
        what: "summary".into(),
        id,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn import_dates_read_like_the_command_lines() {
        let item = record(r#"{"title":"T","summary":"S","published_date":"2026-11-20"}"#).unwrap();
        assert_eq!(
            item.published_date.to_rfc3339(),
            "2026-11-20T00:00:00+00:00"
        );
        let item =
            record(r#"{"title":"T","summary":"S","published_date":"2026-11-20 10:30"}"#).unwrap();
        assert_eq!(
            item.published_date.to_rfc3339(),
            "2026-11-20T10:30:00+00:00"
        );
        for bad in [r#""20.11.2026""#, "20261120"] {
            let e = record(&format!(
                r#"{{"title":"T","summary":"S","published_date":{bad}}}"#
            ))
            .unwrap_err();
            assert!(
                e.starts_with("published_date: ") && e.contains("YYYY-MM-DD"),
                "{e}"
            );
        }
        let e = record(r#"{"title":"T","summary":"S"}"#).unwrap_err();
        assert!(e.contains("published_date"), "{e}");
    }

    #[test]
    fn a_record_keeps_every_field_and_says_what_is_wrong() {
        let item = record(
            r#"{"id":"a1","title":"T","summary":"S","short":"B","content":"C",
                "url":"https://example.com/a","published_date":"2026-11-20","extra":1}"#,
        )
        .unwrap();
        assert_eq!(
            (
                item.id.as_deref(),
                &*item.title,
                &*item.summary,
                &*item.short,
                &*item.content
            ),
            (Some("a1"), "T", "S", "B", "C")
        );
        assert_eq!(item.url.as_deref(), Some("https://example.com/a"));
        assert_eq!(
            record("5").unwrap_err(),
            "invalid type: integer `5`, expected struct NewItem"
        );
        assert_eq!(
            record(r#"{"summary":"S","published_date":"2026-11-20"}"#).unwrap_err(),
            "missing field `title`"
        );
        assert_eq!(
            record(r#"{"title":"T","summary":"S","published_date":null}"#).unwrap_err(),
            format!(
                "published_date: null is not a date; write {}",
                dates::ACCEPTED
            )
        );
    }

    #[test]
    fn a_document_without_records_is_refused() {
        for empty in ["", "\n  \n", "[]", " [ ] "] {
            let e = raw_records(empty).unwrap_err();
            assert!(e.message.contains("no records"), "{empty:?}: {e}");
        }
        let raws = raw_records("{\"title\":\"T\"}\n").unwrap();
        assert_eq!(raws.len(), 1, "one bad record is a record");
    }

    #[test]
    fn records_keep_the_line_they_start_on() {
        let raws = raw_records("\n{\"a\":1}\n\n{\"b\":2}\n").unwrap();
        assert_eq!(raws, [(2, "{\"a\":1}"), (4, "{\"b\":2}")]);
        let raws = raw_records("[\n  {\"a\":1},\n\n  {\"b\":\n2},\n{\"c\":3}]").unwrap();
        let lines: Vec<usize> = raws.iter().map(|r| r.0).collect();
        assert_eq!(lines, [2, 4, 6]);
    }

    const A: &str = r#"{"title":"A","summary":"S.","published_date":"2026-11-20T00:00:00Z"}"#;

    /// The lines a file's records are read from, each record's title or why it is invalid.
    fn streamed(bytes: &[u8], buffer: usize) -> (Vec<(usize, String)>, Option<usize>) {
        let mut error = None;
        let out = JsonLines::new(std::io::BufReader::with_capacity(buffer, bytes), &mut error)
            .map(|(line, r)| (line, r.map_or_else(|e| e, |item| item.title)))
            .collect();
        (out, error.map(|(line, _)| line))
    }

    #[test]
    fn json_lines_are_read_a_line_at_a_time_with_their_numbers() {
        let file = format!(
            "\n{A}\r\n  \n{{\"title\": 1}}\n{}",
            A.replace("\"A\"", "\"B\"")
        );
        for buffer in [8, 1 << 20] {
            let (records, error) = streamed(file.as_bytes(), buffer);
            assert_eq!(error, None);
            let lines: Vec<usize> = records.iter().map(|r| r.0).collect();
            assert_eq!(lines, [2, 4, 5], "blank lines count, but are no records");
            assert_eq!(records[0].1, "A");
            assert!(records[1].1.contains("invalid type"), "{records:?}");
            assert_eq!(records[2].1, "B", "the last line needs no newline");
        }
    }

    #[test]
    fn a_line_that_is_not_utf8_is_an_invalid_record_and_the_next_ones_are_read() {
        let mut file = format!("{A}\n").into_bytes();
        file.extend_from_slice(b"{\"title\": \"\xff\"}\n");
        file.extend_from_slice(A.as_bytes());
        let (records, _) = streamed(&file, 1 << 20);
        assert_eq!(records.len(), 3);
        assert_eq!(records[1].0, 2);
        assert!(records[1].1.contains("not valid UTF-8"), "{records:?}");
        assert_eq!(records[2], (3, "A".to_string()));
    }

    /// Gives `good` and then fails.
    struct Failing<'a>(&'a [u8]);

    impl std::io::Read for Failing<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0.is_empty() {
                return Err(std::io::Error::other("the disk went away"));
            }
            let n = buf.len().min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn a_read_error_ends_the_records_and_says_after_which_line() {
        let file = format!("{A}\n{A}\n");
        let mut error = None;
        let reader = std::io::BufReader::with_capacity(16, Failing(file.as_bytes()));
        let records: Vec<_> = JsonLines::new(reader, &mut error).collect();
        assert_eq!(records.len(), 2);
        let (line, e) = error.expect("the error is kept");
        assert_eq!(line, 2);
        assert_eq!(e.to_string(), "the disk went away");
    }

    #[test]
    fn a_survey_counts_lines_and_finds_the_first_byte_across_reads() {
        let survey_of =
            |bytes: &[u8]| survey(&mut std::io::BufReader::with_capacity(4, bytes)).unwrap();
        assert_eq!(survey_of(b""), (0, None));
        assert_eq!(survey_of(b"a\nb\n"), (2, Some(b'a')));
        assert_eq!(survey_of(b"a\nb"), (2, Some(b'a')));
        assert_eq!(survey_of(b" \n\t\n   [1]"), (3, Some(b'[')));
        assert_eq!(survey_of(b"\n \n"), (2, None));
    }
}
