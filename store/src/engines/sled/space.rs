//! The space guard: a full disk refuses writes with [`Error::StorageFull`] and keeps
//! reads going, instead of breaking the store until a restart.
//!
//! Why a guard: sled 0.34 remembers the first I/O error it meets (an `ENOSPC` from its
//! log writer, say) and fails every later write, and the reads that would split a tree
//! node on their way, until the database is reopened; it has no read-only mode. So the
//! store keeps sled from ever meeting a full disk. Every write method first asks
//! [`SpaceGuard::check`], which reads the free space of the data directory's filesystem
//! (`statvfs`, as an unprivileged user may use it) and refuses the write when less than
//! the reserve ([`crate::Options::disk_reserve`], `--disk-reserve-mb`) is free. What
//! still writes while writes are refused is bounded and small: sled's background writer
//! finishing writes already accepted and the node splits of reads, tantivy finishing a
//! merge, the journal's last batch and the zeros it writes ahead of its records (a MiB at
//! a time), recovery when the store opens. The reserve (64 MiB by default) holds those
//! and one write batch, an import's being the largest.
//!
//! Another process may take the reserve too. So a quarter of it is held as a ballast
//! file, `DATA/reserve` (allocated, 0600), that only Radar gives back: when the free
//! space falls below the reserve the guard deletes it, so whatever of ours is in flight
//! can finish, and a start on a full disk deletes it before sled opens, so the store
//! opens and serves reads. Writes resume by themselves once the free space is back
//! above the reserve and the ballast: the guard allocates the ballast again and lets the
//! write through, without a restart. The daemon also asks every second
//! ([`SpaceGuard::watch`], from the backend's upkeep), so the ballast is given back even while nobody writes.
//!
//! Invariant: no write method changes sled, the journal or the search index while the
//! disk holding the data directory has less than the reserve free; only recovery at open
//! and the tail of writes already accepted use the reserve. A refused write touched
//! nothing, and every accepted one was synced before it was answered, so nothing
//! acknowledged is lost while the disk is full.
//!
//! If the disk fills anyway between the check and sled's write (another process writing
//! faster than the reserve lasts), sled is poisoned for good: writes then answer
//! [`Error::Unavailable`] (503 from the daemon) and the log tells the operator to restart,
//! which recovers every acknowledged write from sled's log and the journal. An in-process
//! reopen of sled was not chosen: every handle on it (the trees, the journal's writer,
//! group commit, the search index's pending entries) would have to be swapped under live
//! requests, for a case the guard makes rare.

use std::fs::OpenOptions;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use fs2::FileExt;

use crate::{Error, FILE_MODE, Result};

/// The ballast file's name in the data directory.
pub const BALLAST_FILE: &str = "reserve";

/// Seconds a client is asked to wait before writing again on a full disk.
pub const FULL_RETRY_AFTER: u64 = 30;

/// Free space, the reserve and the ballast of one data directory.
pub(crate) struct SpaceGuard {
    dir: PathBuf,
    reserve: u64,
    ballast_bytes: u64,
    /// Writes are refused: the disk was short and the ballast is given back.
    full: Mutex<bool>,
}

const MIB: u64 = 1024 * 1024;

impl SpaceGuard {
    /// The guard of `dir`, set up before anything else of the store writes there: on a
    /// disk short of the reserve the ballast is given back first and writes start
    /// refused (said in one log line); otherwise a missing ballast is allocated.
    pub(crate) fn open(dir: &Path, reserve: u64) -> Result<Self> {
        let guard = Self {
            dir: dir.to_path_buf(),
            reserve,
            ballast_bytes: reserve / 4,
            full: Mutex::new(false),
        };
        if reserve == 0 {
            // No guard: a ballast of an earlier run would only hold space nobody frees.
            let _ = std::fs::remove_file(guard.ballast());
            return Ok(guard);
        }
        let free = guard.free()?;
        let mut full = guard
            .full
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if free < reserve {
            guard.release();
            *full = true;
            tracing::warn!(
                "the disk holding {} is full ({} MiB free, {} MiB kept in reserve): reads go on, \
                 refusing writes until space is freed there",
                dir.display(),
                free / MIB,
                reserve / MIB
            );
        } else if let Err(e) = guard.allocate_ballast() {
            *full = true;
            tracing::warn!(
                "the disk holding {} is nearly full (cannot keep the {} MiB ballast {}: {e}): \
                 reads go on, refusing writes until space is freed there",
                dir.display(),
                guard.ballast_bytes / MIB,
                guard.ballast().display()
            );
        }
        drop(full);
        Ok(guard)
    }

    /// Ok when a write may go ahead; [`Error::StorageFull`] when the disk is short of
    /// the reserve (the ballast is then given back). Once space is back, the ballast is
    /// allocated again and writes go ahead.
    pub(crate) fn check(&self) -> Result<()> {
        if self.reserve == 0 {
            return Ok(());
        }
        let mut full = self
            .full
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let free = self.free()?;
        if *full {
            if free < self.reserve + self.ballast_bytes || self.allocate_ballast().is_err() {
                return Err(self.full_error());
            }
            *full = false;
            tracing::info!(
                "space is back on the disk holding {} ({} MiB free): writes resume",
                self.dir.display(),
                free / MIB
            );
        } else if free < self.reserve {
            self.release();
            *full = true;
            tracing::warn!(
                "the disk holding {} is full ({} MiB free, {} MiB kept in reserve): refusing \
                 writes until space is freed there; reads go on",
                self.dir.display(),
                free / MIB,
                self.reserve / MIB
            );
            return Err(self.full_error());
        }
        Ok(())
    }

    /// Whether writes are refused now.
    pub(crate) fn is_full(&self) -> bool {
        *self
            .full
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn full_error(&self) -> Error {
        Error::StorageFull(self.dir.clone())
    }

    fn ballast(&self) -> PathBuf {
        self.dir.join(BALLAST_FILE)
    }

    /// Bytes an unprivileged user may still write on the data directory's filesystem.
    fn free(&self) -> Result<u64> {
        fs2::available_space(&self.dir).map_err(|e| {
            Error::Io(std::io::Error::new(
                e.kind(),
                format!("cannot read the free space of {}: {e}", self.dir.display()),
            ))
        })
    }

    /// Makes the ballast exactly its size, allocated (not a sparse file: that would
    /// hold nothing back). On failure no partial ballast is left.
    fn allocate_ballast(&self) -> std::io::Result<()> {
        let path = self.ballast();
        let made = (|| {
            let file = OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .mode(FILE_MODE)
                .open(&path)?;
            if file.metadata()?.len() > self.ballast_bytes {
                file.set_len(self.ballast_bytes)?;
            }
            file.allocate(self.ballast_bytes)?;
            file.sync_all()
        })();
        if made.is_err() {
            let _ = std::fs::remove_file(&path);
        }
        made
    }

    /// Gives the ballast's space back.
    fn release(&self) {
        match std::fs::remove_file(self.ballast()) {
            Ok(()) => tracing::info!(
                path = %self.ballast().display(),
                "gave back the ballast's space to finish writes in flight"
            ),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                tracing::error!(path = %self.ballast().display(), error = %e, "cannot remove the ballast");
            }
        }
    }
}

impl SpaceGuard {
    /// Looks at the free space as a write would, so the ballast is given back as soon as
    /// the disk fills and allocated again once it has room, even while nobody writes.
    /// Answers whether writes go ahead now.
    pub(crate) fn watch(&self) -> bool {
        self.check().is_ok()
    }

    /// Whether writes are refused for a full disk now (as last seen).
    pub(crate) fn full(&self) -> bool {
        self.is_full()
    }
}

/// Tests of the space guard of the embedded backend's disk: sled only.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_reserve_means_no_guard_and_no_ballast() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(BALLAST_FILE), b"old").unwrap();
        let guard = SpaceGuard::open(dir.path(), 0).unwrap();
        assert!(guard.check().is_ok());
        assert!(!dir.path().join(BALLAST_FILE).exists());
    }

    #[test]
    fn the_ballast_is_allocated_private_and_a_quarter_of_the_reserve() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let dir = tempfile::tempdir().unwrap();
        let guard = SpaceGuard::open(dir.path(), 8 * MIB).unwrap();
        guard.check().unwrap();
        let meta = std::fs::metadata(dir.path().join(BALLAST_FILE)).unwrap();
        assert_eq!(meta.len(), 2 * MIB);
        assert!(meta.blocks() * 512 >= 2 * MIB, "the ballast is sparse");
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    }

    #[test]
    fn a_reserve_larger_than_the_disk_refuses_writes_and_gives_the_ballast_back() {
        let dir = tempfile::tempdir().unwrap();
        // A ballast left by a run with a small reserve.
        drop(SpaceGuard::open(dir.path(), 4 * MIB).unwrap());
        assert!(dir.path().join(BALLAST_FILE).exists());
        let free = fs2::available_space(dir.path()).unwrap();
        let guard = SpaceGuard::open(dir.path(), free + 1024 * MIB).unwrap();
        assert!(guard.is_full());
        assert!(!dir.path().join(BALLAST_FILE).exists());
        let e = guard.check().unwrap_err();
        assert!(matches!(e, Error::StorageFull(_)), "{e:?}");
        assert!(e.to_string().contains("is full"), "{e}");
    }

    #[tokio::test]
    async fn a_full_store_refuses_writes_and_keeps_reads() {
        let dir = tempfile::tempdir().unwrap();
        let free = fs2::available_space(dir.path()).unwrap();
        let opts = crate::Options {
            disk_reserve: free + 1024 * MIB,
            ..Default::default()
        };
        let store = crate::Store::open(dir.path(), opts).await.unwrap();
        assert!(store.storage_full());
        let e = store
            .create_user("a@example.com", "h".into(), Default::default(), true)
            .await
            .unwrap_err();
        assert!(matches!(e, Error::StorageFull(_)), "{e:?}");
        assert!(
            store
                .user_by_email("a@example.com")
                .await
                .unwrap()
                .is_none()
        );
        assert!(
            store
                .feed_page(&crate::Viewer::default(), None)
                .await
                .is_ok()
        );
    }
}
