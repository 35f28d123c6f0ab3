//! The journal: the frequent small writes of readers (marks and shares) are made durable
//! by appending a record of them to a file of our own and syncing that file, and applied
//! to sled in batches, instead of one sled transaction and one sled sync each.
//!
//! A sled transaction writes out sled's log buffer before and after it (sled's
//! `pin_log`), and a sled sync (`Store::flush`) seals and writes the buffers, waits for
//! them with `sched_yield` and syncs the log: together about 1.5 ms here. A journal sync
//! is one `write` and one `fdatasync` of the records appended since the last one.
//!
//! One thread, the journal's writer, does the rest in order. A change is checked by its
//! caller (an unknown item is refused at once), appended to the journal's buffer, and
//! waited for. The writer takes everything appended meanwhile, writes and syncs it, then
//! applies the whole batch to sled in one transaction, in the order it was appended, and
//! tells each waiter its outcome. So 32 concurrent writers share one sync and one
//! transaction, a write is answered only once it is on disk and visible to reads, and
//! sled always holds a prefix of the journal.
//!
//! sled writes its own state out in the background. After a crash it comes back as some
//! prefix of its transactions, and opening the store replays the journal on top. Replay
//! is safe on a state that already holds some of the records because each record is
//! absolute: "set this mark" makes the item's marks exactly that one, "clear this mark"
//! removes it if present, a share overwrites the share.
//!
//! Journal files are numbered. When one passes `Options::journal_checkpoint_bytes`, the
//! writer starts the next file, syncs sled (which holds every record of the old file) and
//! deletes the old one. A clean shutdown does the same, so a store closed cleanly has
//! nothing to replay.
//!
//! Records are framed as `len u32 | crc32 u32 | payload`. Replay stops at the first
//! record that is cut short or fails its checksum: the tail a crash left half-written,
//! which no caller was told was saved.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use crate::group_commit::{GroupCommit, off_the_runtime};
use radar_api::ItemMarks;

use crate::marks::apply_change;
use crate::{Error, FILE_MODE, Memory, Result, Store, Trees};

/// One journaled change. Each is absolute, so replaying it twice does no harm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Record {
    /// `user` set (`on`) or cleared a mark (`mark_byte`) on `item` at `at` (`keys::time`).
    Mark {
        user: String,
        item: String,
        mark: u8,
        on: bool,
        at: [u8; 8],
    },
    /// `user` shared `item`: the `userid_shared` value.
    Share {
        user: String,
        item: String,
        value: Vec<u8>,
    },
}

const MARK: u8 = 1;
const SHARE: u8 = 2;

impl Record {
    /// Appends the framed record to `out`.
    fn encode(&self, out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(&[0; 8]);
        match self {
            Record::Mark {
                user,
                item,
                mark,
                on,
                at,
            } => {
                out.extend_from_slice(&[MARK, *mark, u8::from(*on)]);
                out.extend_from_slice(at);
                field(out, user.as_bytes());
                field(out, item.as_bytes());
            }
            Record::Share { user, item, value } => {
                out.push(SHARE);
                field(out, user.as_bytes());
                field(out, item.as_bytes());
                field(out, value);
            }
        }
        let payload = &out[start + 8..];
        let len = u32::try_from(payload.len()).expect("a journal record is small");
        let crc = crc32fast::hash(payload);
        out[start..start + 4].copy_from_slice(&len.to_le_bytes());
        out[start + 4..start + 8].copy_from_slice(&crc.to_le_bytes());
    }

    fn decode(payload: &[u8]) -> Option<Self> {
        let (&kind, mut rest) = payload.split_first()?;
        let record = match kind {
            MARK => {
                let (head, tail) = rest.split_at_checked(10)?;
                rest = tail;
                Record::Mark {
                    mark: head[0],
                    on: head[1] == 1,
                    at: head[2..10].try_into().ok()?,
                    user: text(&mut rest)?,
                    item: text(&mut rest)?,
                }
            }
            SHARE => Record::Share {
                user: text(&mut rest)?,
                item: text(&mut rest)?,
                value: take(&mut rest)?.to_vec(),
            },
            _ => return None,
        };
        rest.is_empty().then_some(record)
    }
}

/// A length-prefixed byte string (ids and small values: under 64 KB).
fn field(out: &mut Vec<u8>, bytes: &[u8]) {
    let len = u16::try_from(bytes.len()).expect("journal fields are under 64 KB");
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(bytes);
}

fn take<'a>(rest: &mut &'a [u8]) -> Option<&'a [u8]> {
    let (len, tail) = rest.split_at_checked(2)?;
    let len = u16::from_le_bytes(len.try_into().ok()?) as usize;
    let (bytes, tail) = tail.split_at_checked(len)?;
    *rest = tail;
    Some(bytes)
}

fn text(rest: &mut &[u8]) -> Option<String> {
    String::from_utf8(take(rest)?.to_vec()).ok()
}

/// The records of one journal file, up to the first damaged one.
fn read_records(path: &Path) -> Result<Vec<Record>> {
    let bytes = std::fs::read(path).map_err(io)?;
    let mut records = Vec::new();
    let mut rest = &bytes[..];
    while !rest.is_empty() {
        let Some(record) = next_record(&mut rest) else {
            tracing::warn!(
                file = %path.display(),
                lost_bytes = rest.len(),
                "the journal ends with a record cut short; it was never acknowledged"
            );
            break;
        };
        records.push(record);
    }
    Ok(records)
}

fn next_record(rest: &mut &[u8]) -> Option<Record> {
    let (head, tail) = rest.split_at_checked(8)?;
    let len = u32::from_le_bytes(head[..4].try_into().ok()?) as usize;
    let crc = u32::from_le_bytes(head[4..].try_into().ok()?);
    let (payload, tail) = tail.split_at_checked(len)?;
    if crc32fast::hash(payload) != crc {
        return None;
    }
    *rest = tail;
    Record::decode(payload)
}

/// The journal files in `dir`, oldest first, with their numbers.
fn journal_files(dir: &Path) -> Result<Vec<(u64, PathBuf)>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let name = entry.file_name();
        if let Some(n) = name
            .to_str()
            .and_then(|n| n.strip_prefix("journal-"))
            .and_then(|n| n.parse::<u64>().ok())
        {
            files.push((n, entry.path()));
        }
    }
    files.sort();
    Ok(files)
}

/// What an earlier run left to replay: its records in order, and the files holding them,
/// to delete once they are applied and sled is synced.
pub(crate) struct Leftover {
    pub records: Vec<Record>,
    pub files: Vec<PathBuf>,
    next_number: u64,
}

impl Leftover {
    /// Reads the journal files in `dir` (created if missing).
    pub(crate) fn read(dir: &Path) -> Result<Self> {
        std::fs::create_dir_all(dir).map_err(io)?;
        let files = journal_files(dir)?;
        let mut records = Vec::new();
        for (_, path) in &files {
            records.extend(read_records(path)?);
        }
        Ok(Self {
            records,
            next_number: files.last().map_or(1, |(n, _)| n + 1),
            files: files.into_iter().map(|(_, p)| p).collect(),
        })
    }

    /// Deletes the replayed files; call after sled holds their records on disk.
    pub(crate) fn remove(self) -> Result<()> {
        for f in &self.files {
            std::fs::remove_file(f).map_err(io)?;
        }
        Ok(())
    }
}

/// A journaled change on its way to disk. Its outcome (the item's marks after it, or why
/// it was refused) is known once it is on disk and applied: [`Durable::wait`] or
/// [`Durable::on_disk`].
#[must_use = "a change is done only once it is on disk"]
pub struct Durable<T> {
    journal: Arc<Journal>,
    record: u64,
    outcome: Arc<Outcome>,
    answer: fn(ItemMarks) -> T,
}

/// Where the writer leaves the outcome of one change.
type Outcome = Mutex<Option<Result<ItemMarks>>>;

impl<T> Durable<T> {
    /// Blocks until the change is on disk, and answers its outcome.
    pub fn wait(self) -> Result<T> {
        off_the_runtime(|| self.journal.wait(self.record))?;
        self.outcome()
    }

    /// Waits until the change is on disk without holding a thread, and answers its
    /// outcome: the daemon's way, so that many writers share one sync.
    pub async fn on_disk(self) -> Result<T> {
        self.journal.durable(self.record).await?;
        self.outcome()
    }

    fn outcome(self) -> Result<T> {
        let outcome = self
            .outcome
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        outcome
            .unwrap_or_else(|| Err(poisoned("the change was not applied")))
            .map(self.answer)
    }
}

impl Store {
    /// Applies what an earlier run journaled and sled may not have written, syncs sled,
    /// and deletes the old journal files.
    pub(crate) fn replay_journal(&self, leftover: Leftover) -> Result<()> {
        if leftover.files.is_empty() {
            return Ok(());
        }
        let replayed = leftover.records.len();
        let mut touched = Vec::new();
        for record in &leftover.records {
            let (Record::Mark { user, item, .. } | Record::Share { user, item, .. }) = record;
            // The account's removal was synced after its changes.
            if !self.t.users.contains_key(user.as_bytes())? {
                continue;
            }
            match apply_change(&self.t, &self.mem.out_of_feed, record) {
                Ok(_) | Err(Error::NotFound(_) | Error::Invalid(_)) => {}
                Err(e) => return Err(e),
            }
            if matches!(record, Record::Mark { .. }) {
                touched.push((user.as_str(), item.as_str()));
            }
        }
        self.repair_marks(touched)?;
        self.flush()?;
        leftover.remove()?;
        tracing::info!(records = replayed, "replayed the journal");
        Ok(())
    }
}

/// The journal of an open store: appends records and makes them durable on its thread.
pub(crate) struct Journal {
    shared: Arc<Shared>,
    writer: Mutex<Option<JoinHandle<()>>>,
}

struct Shared {
    state: Mutex<State>,
    /// Records were appended, or the store is closing.
    appended: Condvar,
    /// `durable` moved on, or the journal failed.
    synced: Condvar,
    /// `durable` for async waiters (`u64::MAX` once the journal failed).
    durable_watch: tokio::sync::watch::Sender<u64>,
}

#[derive(Default)]
struct State {
    /// Records appended and not yet handed to the writer, framed...
    buf: Vec<u8>,
    /// ...and as they are, with where their outcomes go.
    pending: Vec<(Record, Arc<Outcome>)>,
    /// Number of the last record appended.
    appended: u64,
    /// Number of the last record on disk and applied.
    durable: u64,
    /// Why the journal can no longer promise durability.
    poisoned: Option<String>,
    closing: bool,
    /// Batches written and synced, for tests and benchmarks of sharing.
    syncs: u64,
}

/// Where the journal thread writes, and what a checkpoint syncs.
struct Writer {
    dir: PathBuf,
    number: u64,
    file: File,
    len: u64,
    checkpoint_bytes: u64,
    db: sled::Db,
    commit: Arc<GroupCommit>,
    trees: Arc<Trees>,
    memory: Arc<Memory>,
}

impl Journal {
    /// Starts a new journal file after `leftover`'s in `dir` and the thread that writes it.
    pub(crate) fn start(
        dir: &Path,
        leftover: &Leftover,
        checkpoint_bytes: u64,
        db: sled::Db,
        commit: Arc<GroupCommit>,
        trees: Arc<Trees>,
        memory: Arc<Memory>,
    ) -> Result<Self> {
        let number = leftover.next_number;
        let writer = Writer {
            file: create_file(dir, number)?,
            dir: dir.to_path_buf(),
            number,
            len: 0,
            checkpoint_bytes,
            db,
            commit,
            trees,
            memory,
        };
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            appended: Condvar::new(),
            synced: Condvar::new(),
            durable_watch: tokio::sync::watch::Sender::new(0),
        });
        let thread = {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("radar-journal".into())
                .spawn(move || writer.run(&shared))
                .map_err(io)?
        };
        Ok(Self {
            shared,
            writer: Mutex::new(Some(thread)),
        })
    }

    /// Batches written and synced so far.
    pub(crate) fn syncs(&self) -> u64 {
        self.shared.lock().syncs
    }

    /// Refuses writes once the journal failed, before they are applied.
    pub(crate) fn check(&self) -> Result<()> {
        match &self.shared.lock().poisoned {
            Some(why) => Err(poisoned(why)),
            None => Ok(()),
        }
    }

    /// Appends a change; it is done once the answer says so.
    pub(crate) fn append<T>(
        self: &Arc<Self>,
        record: Record,
        answer: fn(ItemMarks) -> T,
    ) -> Durable<T> {
        let outcome = Arc::new(Outcome::default());
        let mut s = self.shared.lock();
        record.encode(&mut s.buf);
        s.pending.push((record, outcome.clone()));
        s.appended += 1;
        let record = s.appended;
        drop(s);
        self.shared.appended.notify_one();
        Durable {
            journal: self.clone(),
            record,
            outcome,
            answer,
        }
    }

    /// Returns once record `n` is on disk and applied.
    pub(crate) fn wait(&self, n: u64) -> Result<()> {
        let mut s = self.shared.lock();
        loop {
            if s.durable >= n {
                return Ok(());
            }
            if let Some(why) = &s.poisoned {
                return Err(poisoned(why));
            }
            s = self
                .shared
                .synced
                .wait(s)
                .unwrap_or_else(|p| p.into_inner());
        }
    }

    /// [`Journal::wait`] for async callers: the task waits, not its thread.
    pub(crate) async fn durable(&self, n: u64) -> Result<()> {
        let mut rx = self.shared.durable_watch.subscribe();
        // The sender lives as long as `self`, so this ends.
        let _ = rx.wait_for(|d| *d >= n).await;
        let s = self.shared.lock();
        match &s.poisoned {
            Some(why) if s.durable < n => Err(poisoned(why)),
            _ => Ok(()),
        }
    }
}

impl Drop for Journal {
    /// Writes what is left and checkpoints, so a clean close leaves nothing to replay.
    fn drop(&mut self) {
        self.shared.lock().closing = true;
        self.shared.appended.notify_one();
        if let Some(thread) = self.writer.lock().ok().and_then(|mut w| w.take()) {
            let _ = thread.join();
        }
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Refuses every later change, and answers the waiting ones with the error.
    fn poison(&self, why: String) {
        tracing::error!(error = %why, "the journal failed; restart radar to recover");
        self.lock().poisoned = Some(why);
        self.durable_watch.send_replace(u64::MAX);
        self.synced.notify_all();
    }
}

impl Writer {
    fn run(mut self, shared: &Shared) {
        let mut bytes = Vec::new();
        let mut batch = Vec::new();
        loop {
            let upto = {
                let mut s = shared.lock();
                while s.buf.is_empty() && !s.closing {
                    s = shared.appended.wait(s).unwrap_or_else(|p| p.into_inner());
                }
                if s.buf.is_empty() {
                    break;
                }
                std::mem::swap(&mut s.buf, &mut bytes);
                std::mem::swap(&mut s.pending, &mut batch);
                s.appended
            };
            let outcome = self.write(&bytes).and_then(|()| self.apply(&batch));
            bytes.clear();
            batch.clear();
            if let Err(why) = outcome {
                shared.poison(why);
                return;
            }
            {
                let mut s = shared.lock();
                s.durable = upto;
                s.syncs += 1;
            }
            shared.durable_watch.send_replace(upto);
            shared.synced.notify_all();
            if self.len >= self.checkpoint_bytes
                && let Err(why) = self.checkpoint(true)
            {
                shared.poison(why);
                return;
            }
        }
        if let Err(why) = self.checkpoint(false) {
            tracing::warn!(error = %why, "the journal was not checkpointed on close; it is replayed on the next open");
        }
    }

    /// Applies a synced batch to sled in order and hands each change its outcome.
    fn apply(&self, batch: &[(Record, Arc<Outcome>)]) -> std::result::Result<(), String> {
        for (record, slot) in batch {
            let outcome = match apply_change(&self.trees, &self.memory.out_of_feed, record) {
                Err(Error::Storage(e)) => return Err(format!("applying a change: {e}")),
                outcome => outcome,
            };
            *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(outcome);
        }
        Ok(())
    }

    fn write(&mut self, bytes: &[u8]) -> std::result::Result<(), String> {
        self.file.write_all(bytes).map_err(|e| e.to_string())?;
        self.file.sync_data().map_err(|e| e.to_string())?;
        self.len += bytes.len() as u64;
        Ok(())
    }

    /// Syncs sled, which holds every record written so far, and drops the current file;
    /// with `go_on`, later records go to a new file created first.
    fn checkpoint(&mut self, go_on: bool) -> std::result::Result<(), String> {
        let old = file_path(&self.dir, self.number);
        if go_on {
            self.number += 1;
            self.file = create_file(&self.dir, self.number).map_err(|e| e.to_string())?;
            self.len = 0;
        }
        self.commit
            .sync(&self.db)
            .map_err(|e| format!("syncing the store: {e}"))?;
        std::fs::remove_file(&old).map_err(|e| e.to_string())
    }
}

fn file_path(dir: &Path, number: u64) -> PathBuf {
    dir.join(format!("journal-{number:020}"))
}

/// Creates journal file `number`, private, with its folder entry on disk.
fn create_file(dir: &Path, number: u64) -> Result<File> {
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(FILE_MODE)
        .open(file_path(dir, number))
        .map_err(io)?;
    File::open(dir).and_then(|d| d.sync_all()).map_err(io)?;
    Ok(file)
}

fn io(e: std::io::Error) -> Error {
    Error::Storage(sled::Error::Io(e))
}

fn poisoned(why: &str) -> Error {
    Error::Unavailable(format!(
        "the journal could not sync to disk ({why}); restart radar to recover"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(user: &str, on: bool) -> Record {
        Record::Mark {
            user: user.into(),
            item: "item-1".into(),
            mark: b'f',
            on,
            at: [1, 2, 3, 4, 5, 6, 7, 8],
        }
    }

    #[test]
    fn records_round_trip_and_a_cut_or_damaged_tail_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let share = Record::Share {
            user: "u".into(),
            item: "i".into(),
            value: br#"{"platform":"x"}"#.to_vec(),
        };
        let mut bytes = Vec::new();
        for r in [mark("a", true), share.clone(), mark("b", false)] {
            r.encode(&mut bytes);
        }
        let path = dir.path().join("journal-1");
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(
            read_records(&path).unwrap(),
            vec![mark("a", true), share.clone(), mark("b", false)]
        );

        // A crash in the middle of the last record.
        std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
        assert_eq!(
            read_records(&path).unwrap(),
            vec![mark("a", true), share.clone()]
        );

        // A flipped byte in the second record: it and what follows are not trusted.
        let mut damaged = bytes.clone();
        let second = {
            let mut first = Vec::new();
            mark("a", true).encode(&mut first);
            first.len()
        };
        damaged[second + 10] ^= 0x40;
        std::fs::write(&path, &damaged).unwrap();
        assert_eq!(read_records(&path).unwrap(), vec![mark("a", true)]);
    }

    #[test]
    fn leftover_files_are_read_in_order_and_the_next_number_follows_them() {
        let dir = tempfile::tempdir().unwrap();
        for (n, user) in [(10, "ten"), (9, "nine")] {
            let mut bytes = Vec::new();
            mark(user, true).encode(&mut bytes);
            std::fs::write(file_path(dir.path(), n), bytes).unwrap();
        }
        std::fs::write(dir.path().join("unrelated"), b"x").unwrap();
        let left = Leftover::read(dir.path()).unwrap();
        assert_eq!(left.records, vec![mark("nine", true), mark("ten", true)]);
        assert_eq!(left.next_number, 11);
        left.remove().unwrap();
        assert_eq!(journal_files(dir.path()).unwrap(), vec![]);
    }

    mod store {
        use std::sync::Arc;

        use super::super::*;
        use crate::items::tests::new_item;
        use crate::{Mark, Options, Store};

        fn open(dir: &Path) -> Store {
            Store::open(dir, Options::default()).unwrap()
        }

        /// A user and two items; answers the user's id and the items' ids.
        fn reader(store: &Store) -> (String, Vec<String>) {
            let user = store
                .create_user("j@example.com", "hash".into(), Default::default(), true)
                .unwrap();
            let items = (0..2)
                .map(|i| new_item(&format!("Item {i}"), None, "2026-03-01T00:00:00Z"))
                .collect::<Vec<_>>();
            let ids = store.upsert_items(items).unwrap();
            (user.id, ids.into_iter().map(|u| u.id).collect())
        }

        /// Writes records as an earlier run that crashed would have left them.
        fn leave_journal(dir: &Path, records: &[Record]) {
            let mut bytes = Vec::new();
            for r in records {
                r.encode(&mut bytes);
            }
            std::fs::write(file_path(&dir.join("journal"), 7), bytes).unwrap();
        }

        fn mark(user: &str, item: &str, m: Mark, on: bool) -> Record {
            Record::Mark {
                user: user.into(),
                item: item.into(),
                mark: crate::marks::mark_byte(m),
                on,
                at: crate::keys::time(chrono::Utc::now()),
            }
        }

        #[test]
        fn an_acknowledged_mark_is_in_the_journal_file_before_sled_syncs() {
            let dir = tempfile::tempdir().unwrap();
            let store = open(dir.path());
            let (user, items) = reader(&store);
            let syncs = store.syncs();
            store.set_mark(&user, &items[0], Mark::Favorite).unwrap();
            store.record_share(&user, &items[1], "x").unwrap();
            assert_eq!(store.syncs(), syncs, "marks and shares do not sync sled");
            let files = journal_files(&dir.path().join("journal")).unwrap();
            assert_eq!(files.len(), 1);
            let records = read_records(&files[0].1).unwrap();
            assert!(
                matches!(&records[0], Record::Mark { item, on: true, .. } if *item == items[0])
            );
            assert!(matches!(&records[1], Record::Share { item, .. } if *item == items[1]));

            // A clean close folds the journal into sled.
            drop(store);
            let files = journal_files(&dir.path().join("journal")).unwrap();
            assert!(files.is_empty(), "{files:?}");
            let store = open(dir.path());
            assert!(store.has_mark(&user, &items[0], Mark::Favorite).unwrap());
            assert!(store.has_shared(&user, &items[1]).unwrap());
        }

        #[test]
        fn replay_restores_lost_changes_and_does_not_count_applied_ones_twice() {
            let dir = tempfile::tempdir().unwrap();
            let (user, items) = {
                let store = open(dir.path());
                let r = reader(&store);
                // Applied and synced before the crash: favourite, then read.
                store.set_mark(&r.0, &r.1[0], Mark::Favorite).unwrap();
                store.set_mark(&r.0, &r.1[0], Mark::Read).unwrap();
                r
            };
            // The crash left in the journal the two changes sled had, and two it lost.
            leave_journal(
                dir.path(),
                &[
                    mark(&user, &items[0], Mark::Favorite, true),
                    mark(&user, &items[0], Mark::Read, true),
                    mark(&user, &items[1], Mark::Hidden, true),
                    mark(&user, &items[0], Mark::Read, false),
                    mark("a-deleted-user", &items[0], Mark::Favorite, true),
                    mark(&user, "a-removed-item", Mark::Favorite, true),
                ],
            );
            let store = open(dir.path());
            assert!(journal_files(&dir.path().join("journal")).unwrap().len() == 1);
            assert_eq!(
                store.item_marks(&user, &items[0]).unwrap(),
                Default::default()
            );
            assert!(store.has_mark(&user, &items[1], Mark::Hidden).unwrap());
            let counts = store.mark_counts(&user).unwrap();
            let mut want = crate::marks::MarkCounts::default();
            want.add(Mark::Hidden, 1);
            assert_eq!(counts, want);
            assert_eq!(
                store.mark_counts("a-deleted-user").unwrap(),
                Default::default()
            );
            // The feed follows the replayed marks.
            let viewer = crate::Viewer {
                user_id: Some(user.clone()),
                subscriber: true,
            };
            let page = store.feed_page(&viewer, None).unwrap();
            assert_eq!(page.items.len(), 1);
            assert_eq!(page.items[0].id, items[0]);
        }

        #[test]
        fn a_change_sled_kept_in_part_is_completed_and_recounted() {
            let dir = tempfile::tempdir().unwrap();
            let (user, items) = {
                let store = open(dir.path());
                let r = reader(&store);
                store.set_mark(&r.0, &r.1[0], Mark::Hidden).unwrap();
                // "Read" on item 1 reached the mark tree, and neither the reverse index
                // nor the counts, when the process died.
                let key = crate::keys::join(r.0.as_bytes(), r.1[1].as_bytes());
                store.t.userid_read.insert(key, &[0; 8]).unwrap();
                // And "favourite" on item 0 only removed the hidden mark.
                let key = crate::keys::join(r.0.as_bytes(), r.1[0].as_bytes());
                store.t.userid_hidden.remove(key).unwrap();
                store.flush().unwrap();
                r
            };
            leave_journal(
                dir.path(),
                &[
                    mark(&user, &items[1], Mark::Read, true),
                    mark(&user, &items[0], Mark::Favorite, true),
                ],
            );
            let store = open(dir.path());
            assert!(store.item_marks(&user, &items[0]).unwrap().favorite);
            assert!(store.item_marks(&user, &items[1]).unwrap().read);
            let mut want = crate::marks::MarkCounts::default();
            want.add(Mark::Favorite, 1);
            want.add(Mark::Read, 1);
            assert_eq!(store.mark_counts(&user).unwrap(), want);
        }

        #[test]
        fn concurrent_writers_share_journal_syncs_and_checkpoints_keep_one_file() {
            let dir = tempfile::tempdir().unwrap();
            let opts = Options {
                journal_checkpoint_bytes: 4096,
                ..Options::default()
            };
            let store = Store::open(dir.path(), opts.clone()).unwrap();
            let (user, items) = reader(&store);
            let writers = 16;
            let each = 40;
            let barrier = Arc::new(std::sync::Barrier::new(writers));
            let syncs_before = store.journal.syncs();
            let handles: Vec<_> = (0..writers)
                .map(|w| {
                    let (store, user, items, barrier) =
                        (store.clone(), user.clone(), items.clone(), barrier.clone());
                    std::thread::spawn(move || {
                        barrier.wait();
                        for i in 0..each {
                            let mark = [Mark::Favorite, Mark::Read][(w + i) % 2];
                            store.set_mark(&user, &items[i % 2], mark).unwrap();
                        }
                    })
                })
                .collect();
            for h in handles {
                h.join().unwrap();
            }
            let syncs = store.journal.syncs() - syncs_before;
            let writes = (writers * each) as u64;
            assert!(syncs < writes, "{syncs} journal syncs for {writes} writes");
            let files = journal_files(&dir.path().join("journal")).unwrap();
            assert_eq!(files.len(), 1, "old journal files are removed: {files:?}");
            let marks_now: Vec<_> = items
                .iter()
                .map(|i| store.item_marks(&user, i).unwrap())
                .collect();
            let counts = store.mark_counts(&user).unwrap();
            drop(store);
            let store = Store::open(dir.path(), opts).unwrap();
            for (i, m) in items.iter().zip(&marks_now) {
                assert_eq!(&store.item_marks(&user, i).unwrap(), m);
            }
            assert_eq!(store.mark_counts(&user).unwrap(), counts);
        }

        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn async_waiters_are_answered_once_on_disk() {
            let dir = tempfile::tempdir().unwrap();
            let store = open(dir.path());
            let (user, items) = reader(&store);
            let waits: Vec<_> = (0..64)
                .map(|i| {
                    let (store, user, item) = (store.clone(), user.clone(), items[i % 2].clone());
                    tokio::spawn(async move {
                        let change = store.change_mark(&user, &item, Mark::Hidden, i % 3 != 0)?;
                        let record = change.record;
                        change.on_disk().await?;
                        let durable = store.journal.shared.lock().durable;
                        assert!(durable >= record, "answered before its record was synced");
                        Ok::<_, crate::Error>(())
                    })
                })
                .collect();
            for w in waits {
                w.await.unwrap().unwrap();
            }
        }
    }
}
