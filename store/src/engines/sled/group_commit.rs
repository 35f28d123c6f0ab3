//! Group commit: every acknowledged write is on disk before its method returns, and
//! writers that arrive together share one sync.
//!
//! sled's own `flush` writes its log buffers and calls `sync_file_range`, which neither
//! records a grown file's size nor empties the drive's write cache; its real `fsync`
//! runs on a background thread every half second. So after sled's flush the leader of a
//! sync also calls `fdatasync` on the log (and on large values sled keeps as separate
//! blob files, which it never syncs), which is what makes a write survive a power cut.
//!
//! Syncs are numbered epochs. A writer that has finished its write needs a sync that
//! *started* after it: the epoch after the last one started. If no sync is running, it
//! leads that epoch itself; otherwise it waits, and whoever finds the running sync done
//! leads the next epoch for everybody who queued meanwhile. Under load one `fdatasync`
//! thus covers every writer that arrived during the previous one.
//!
//! Item writes are counted here too (see [`GroupCommit::item_write`]): the journal of
//! marks acknowledges a mark only once the item it names is on disk, and these counts
//! tell it whether a sync is owed for that, so a mark costs no sled sync when no item
//! write is in flight.
//!
//! A failed sync poisons the store: after an fsync error Linux may have dropped the
//! dirty pages, so later syncs could report success for data that is gone. Every later
//! write answers the error until the process restarts and recovers from the log.

use std::collections::HashSet;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::SystemTime;

use crate::{Error, Result};

/// The sync epochs of one store.
pub(crate) struct GroupCommit {
    epochs: Mutex<Epochs>,
    finished: Condvar,
    /// A handle on sled's log file, for `fdatasync`.
    log: File,
    /// sled's folder of large values.
    blobs: PathBuf,
    /// Touched only by the sync running (there is one at a time).
    blobs_seen: Mutex<Option<BlobsSeen>>,
    /// Syncs completed, for tests and measurements.
    syncs: AtomicU64,
    /// Item writes begun: bumped before an item batch writes to sled...
    items_begun: AtomicU64,
    /// ...and item writes ended, bumped once the batch's writes are all done.
    items_ended: AtomicU64,
    /// `items_ended` as it was when the last finished sync started: the item writes that
    /// sync has on disk.
    items_synced: AtomicU64,
}

/// An item write in progress (see [`GroupCommit::item_write`]); it ends when dropped,
/// also when the write stops half-way.
pub(crate) struct ItemWrite<'a>(&'a GroupCommit);

impl Drop for ItemWrite<'_> {
    fn drop(&mut self) {
        self.0.items_ended.fetch_add(1, Ordering::SeqCst);
    }
}

#[derive(Default)]
struct Epochs {
    /// Number of the last sync started.
    started: u64,
    /// Number of the last sync finished.
    finished: u64,
    /// A sync is running now.
    running: bool,
    /// Why the store can no longer promise durability.
    poisoned: Option<String>,
}

/// The blob files already synced, as of the folder's modification time then.
///
/// Kept by name, not as the highest name synced: a blob is named by the log position
/// sled reserved for it, and two writers can reserve positions in one order and create
/// their files in the other, so a file can appear below one already synced.
struct BlobsSeen {
    modified: SystemTime,
    synced: HashSet<u64>,
}

impl GroupCommit {
    /// Group commit over the sled database in `db_dir`.
    pub(crate) fn new(db_dir: &Path) -> Result<Self> {
        let log = File::open(db_dir.join("db")).map_err(io)?;
        // The log and blob folder entries themselves must survive a crash too.
        File::open(db_dir).and_then(|d| d.sync_all()).map_err(io)?;
        Ok(Self {
            epochs: Mutex::new(Epochs::default()),
            finished: Condvar::new(),
            log,
            blobs: db_dir.join("blobs"),
            blobs_seen: Mutex::new(None),
            syncs: AtomicU64::new(0),
            items_begun: AtomicU64::new(0),
            items_ended: AtomicU64::new(0),
            items_synced: AtomicU64::new(0),
        })
    }

    /// Counts an item write that begins now, before its first sled write; it ends when
    /// the answer is dropped, after its last. A reader may see an item from its first
    /// write on, before any sync: [`GroupCommit::items_unsynced`] says so meanwhile.
    pub(crate) fn item_write(&self) -> ItemWrite<'_> {
        self.items_begun.fetch_add(1, Ordering::SeqCst);
        ItemWrite(self)
    }

    /// Whether an item write may not be on disk yet: one is in progress, or one ended
    /// after the last finished sync started. When false, every item a reader can see
    /// now is on disk, so a change that names one needs no sled sync for it.
    pub(crate) fn items_unsynced(&self) -> bool {
        self.items_begun.load(Ordering::SeqCst) > self.items_synced.load(Ordering::SeqCst)
    }

    /// Returns once everything written before the call is on disk.
    pub(crate) fn sync(&self, db: &sled::Db) -> Result<()> {
        off_the_runtime(|| self.sync_blocking(db))
    }

    /// Syncs completed so far.
    pub(crate) fn syncs(&self) -> u64 {
        self.syncs.load(Ordering::Relaxed)
    }

    fn lock(&self) -> MutexGuard<'_, Epochs> {
        self.epochs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn sync_blocking(&self, db: &sled::Db) -> Result<()> {
        let mut e = self.lock();
        let needed = e.started + 1;
        loop {
            if let Some(why) = &e.poisoned {
                return Err(poisoned(why));
            }
            if e.finished >= needed {
                return Ok(());
            }
            if !e.running {
                break;
            }
            e = self
                .finished
                .wait(e)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        // Lead epoch `needed`: it starts now, after every queued writer's write.
        e.started = needed;
        e.running = true;
        drop(e);
        // Item writes that ended before this sync starts are all in what it writes out.
        let items_ended = self.items_ended.load(Ordering::SeqCst);
        let outcome = self.write_out(db);
        let mut e = self.lock();
        e.running = false;
        e.finished = needed;
        let result = match outcome {
            Ok(()) => {
                self.items_synced.fetch_max(items_ended, Ordering::SeqCst);
                self.syncs.fetch_add(1, Ordering::Relaxed);
                Ok(())
            }
            Err(why) => {
                tracing::error!(error = %why, "the store could not sync to disk; restart radar");
                let err = poisoned(&why);
                e.poisoned = Some(why);
                Err(err)
            }
        };
        drop(e);
        self.finished.notify_all();
        result
    }

    /// One sync: new blob files first (the log points at them), then the log.
    fn write_out(&self, db: &sled::Db) -> std::result::Result<(), String> {
        self.sync_new_blobs().map_err(|e| e.to_string())?;
        db.flush().map_err(|e| e.to_string())?;
        self.log.sync_data().map_err(|e| e.to_string())
    }

    /// Syncs the blob files not synced yet. The folder's modification time changes when
    /// a blob is added, so a sync without new blobs mostly costs one `stat`.
    fn sync_new_blobs(&self) -> std::io::Result<()> {
        let mut seen = self
            .blobs_seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let looked = SystemTime::now();
        let Ok(modified) = std::fs::metadata(&self.blobs).and_then(|m| m.modified()) else {
            return Ok(());
        };
        if seen.as_ref().is_some_and(|s| s.modified == modified) {
            return Ok(());
        }
        let mut synced = seen.take().map(|s| s.synced).unwrap_or_default();
        let mut listed = HashSet::new();
        for entry in std::fs::read_dir(&self.blobs)? {
            let entry = entry?;
            let Some(lsn) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u64>().ok())
            else {
                continue;
            };
            listed.insert(lsn);
            if synced.contains(&lsn) {
                continue;
            }
            match File::open(entry.path()) {
                Ok(file) => file.sync_data()?,
                // sled removes a blob file on its own threads, at once for a write that
                // lost the race for its page, later for a value replaced: a file gone
                // since the listing holds nothing to sync.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
            synced.insert(lsn);
        }
        File::open(&self.blobs)?.sync_all()?;
        synced.retain(|lsn| listed.contains(lsn));
        // A file's times come from a clock that may tick only every few milliseconds: a
        // blob added in the tick of this look would leave the folder's time as it is now,
        // so a time that recent is not trusted to mean "nothing new" next time.
        let settled = looked
            .duration_since(modified)
            .is_ok_and(|age| age >= CLOCK_TICK);
        *seen = Some(BlobsSeen {
            modified: if settled {
                modified
            } else {
                SystemTime::UNIX_EPOCH
            },
            synced,
        });
        Ok(())
    }
}

/// Longer than the tick of the clock a file's times are taken from (the kernel's
/// coarse clock ticks at most every 10 ms).
const CLOCK_TICK: std::time::Duration = std::time::Duration::from_millis(20);

fn io(e: std::io::Error) -> Error {
    Error::Io(e)
}

fn poisoned(why: &str) -> Error {
    Error::Unavailable(format!(
        "the store could not sync to disk ({why}); restart radar to recover from its log"
    ))
}

/// Runs a wait for the disk so that, on a multi-threaded tokio runtime, the worker
/// thread's other tasks move on meanwhile (`block_in_place`). Without that, a daemon
/// with two workers could have at most two writers waiting for a sync, and a sync could
/// never be shared by more.
fn off_the_runtime<T>(f: impl FnOnce() -> T) -> T {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current() {
        Ok(h) if h.runtime_flavor() == RuntimeFlavor::MultiThread => tokio::task::block_in_place(f),
        _ => f(),
    }
}

/// Tests of group commit on sled's log: sled only.
#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::Ordering;

    use super::super::SledBackend;
    use crate::Options;

    #[test]
    fn each_write_is_synced_after_it_and_concurrent_writers_share_syncs() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(SledBackend::open(dir.path(), &Options::default()).unwrap());
        let before = store.syncs();
        store.sync().unwrap();
        assert_eq!(
            store.syncs(),
            before + 1,
            "a lone writer leads its own sync"
        );

        // 32 writers, 20 writes each: every write is followed by a sync that started
        // after it, and waiting writers are covered by shared syncs.
        let writers = 32;
        let each = 20;
        let barrier = Arc::new(std::sync::Barrier::new(writers));
        let before = store.syncs();
        let handles: Vec<_> = (0..writers)
            .map(|w| {
                let store = store.clone();
                let barrier = barrier.clone();
                std::thread::spawn(move || {
                    barrier.wait();
                    for i in 0..each {
                        let key = format!("w{w}-{i}");
                        store.t.meta.insert(key.as_bytes(), b"x").unwrap();
                        let started = store.commit.lock().started;
                        store.sync().unwrap();
                        let finished = store.commit.lock().finished;
                        assert!(
                            finished > started,
                            "answered without a sync started after the write"
                        );
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        let syncs = store.syncs() - before;
        let writes = (writers * each) as u64;
        assert!(
            syncs >= 1 && syncs < writes,
            "{syncs} syncs for {writes} writes"
        );
    }

    /// sled removes a blob file on its own threads once no page points at it, so a
    /// file the sync listed may be gone when it is opened: that is no failure to sync.
    /// Before this was handled, a long import failed this way in two runs of three.
    #[test]
    fn a_blob_removed_while_a_sync_lists_them_does_not_poison_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(SledBackend::open(dir.path(), &Options::default()).unwrap());
        let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let syncer = {
            let (store, done) = (store.clone(), done.clone());
            std::thread::spawn(move || {
                let mut syncs = 0u32;
                while !done.load(Ordering::Relaxed) {
                    store.sync().expect("a sync while blobs come and go");
                    syncs += 1;
                }
                syncs
            })
        };
        // Each value is larger than sled keeps in its log, so each is a blob file. Four
        // writers replace the same value: sled removes the file of a value replaced, and
        // at once the file of a write that lost the race for the page.
        let writers: Vec<_> = (0..4u8)
            .map(|w| {
                let store = store.clone();
                std::thread::spawn(move || {
                    let big = vec![w; 200 * 1024];
                    for _ in 0..150 {
                        store.t.meta.insert(b"big", big.clone()).unwrap();
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().expect("a writer");
        }
        done.store(true, Ordering::Relaxed);
        let syncs = syncer.join().expect("the syncing thread");
        assert!(syncs > 0, "no sync ran beside the writes");
        store.sync().expect("a sync after the writes");
    }

    /// Blob files are named by the log position reserved for them, but two writers can
    /// create theirs in the other order: a file named below one already synced is
    /// synced all the same.
    #[test]
    fn a_blob_file_that_appears_below_one_synced_is_synced_too() {
        let dir = tempfile::tempdir().unwrap();
        let store = SledBackend::open(dir.path(), &Options::default()).unwrap();
        let blobs = dir.path().join("db").join("blobs");
        let synced = || {
            let seen = store.commit.blobs_seen.lock().unwrap();
            let mut names: Vec<u64> = seen.iter().flat_map(|s| s.synced.iter().copied()).collect();
            names.sort_unstable();
            names
        };
        std::fs::write(blobs.join("2000"), b"later position, first file").unwrap();
        store.sync().unwrap();
        assert_eq!(synced(), vec![2000]);
        std::fs::write(blobs.join("1000"), b"earlier position, second file").unwrap();
        store.sync().unwrap();
        assert_eq!(synced(), vec![1000, 2000], "the later file was not synced");
        std::fs::remove_file(blobs.join("2000")).unwrap();
        store.sync().unwrap();
        assert_eq!(synced(), vec![1000], "a removed file is forgotten");
    }

    #[test]
    fn large_values_in_blob_files_are_synced_and_survive_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let big = vec![7u8; 600 * 1024];
        {
            let store = SledBackend::open(dir.path(), &Options::default()).unwrap();
            store.t.meta.insert(b"big", big.clone()).unwrap();
            store.sync().unwrap();
        }
        let store = SledBackend::open(dir.path(), &Options::default()).unwrap();
        assert_eq!(
            store.t.meta.get(b"big").unwrap().unwrap().as_ref(),
            &big[..]
        );
    }
}
