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
    /// Blob files already synced: the folder's modification time and the highest name.
    blobs_seen: Option<(SystemTime, u64)>,
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
        let blobs_seen = e.blobs_seen;
        drop(e);
        // Item writes that ended before this sync starts are all in what it writes out.
        let items_ended = self.items_ended.load(Ordering::SeqCst);
        let outcome = self.write_out(db, blobs_seen);
        let mut e = self.lock();
        e.running = false;
        e.finished = needed;
        let result = match outcome {
            Ok(seen) => {
                e.blobs_seen = seen.or(e.blobs_seen);
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
    fn write_out(
        &self,
        db: &sled::Db,
        blobs_seen: Option<(SystemTime, u64)>,
    ) -> std::result::Result<Option<(SystemTime, u64)>, String> {
        let seen = self.sync_new_blobs(blobs_seen).map_err(|e| e.to_string())?;
        db.flush().map_err(|e| e.to_string())?;
        self.log.sync_data().map_err(|e| e.to_string())?;
        Ok(seen)
    }

    /// Syncs blob files created since the last look. The folder's modification time
    /// changes when a blob is added, so a sync without new blobs costs one `stat`.
    fn sync_new_blobs(
        &self,
        seen: Option<(SystemTime, u64)>,
    ) -> std::io::Result<Option<(SystemTime, u64)>> {
        let Ok(modified) = std::fs::metadata(&self.blobs).and_then(|m| m.modified()) else {
            return Ok(None);
        };
        if seen.is_some_and(|(at, _)| at == modified) {
            return Ok(None);
        }
        let done = seen.map_or(0, |(_, highest)| highest);
        let mut highest = done;
        for entry in std::fs::read_dir(&self.blobs)? {
            let entry = entry?;
            // Blob files are named by the log position of their record, which only grows.
            let Some(lsn) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u64>().ok())
            else {
                continue;
            };
            if lsn > done {
                File::open(entry.path())?.sync_data()?;
                highest = highest.max(lsn);
            }
        }
        File::open(&self.blobs)?.sync_all()?;
        Ok(Some((modified, highest)))
    }
}

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
