//! Opening sled, with the wait its lock needs after a handle closes.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::{Options, Result};

#[cfg(test)]
thread_local! {
    /// In tests: sled writes its log out only when synced (or its buffer fills), so what a
    /// crash would lose stays deterministic: no background flush every half second
    /// writes it out meanwhile.
    pub(crate) static NO_BACKGROUND_FLUSH: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Opens sled in `path`; [`crate::Error::Locked`] when another process holds it.
///
/// sled takes an exclusive `flock` on its log, and a dropped `sled::Db` lets go of it
/// only once its background threads have ended, a few milliseconds later (sled issue
/// #1289). Reopening right after closing, as a restart or a test does, would fail on
/// that window, so a held lock is asked for again for a short while before it is
/// reported (for [`Options::lock_wait`]): a live holder keeps it far longer than that.
pub(crate) fn open(path: &Path, opts: &Options) -> Result<sled::Db> {
    let deadline = Instant::now() + opts.lock_wait;
    let mut pause = Duration::from_millis(5);
    loop {
        let config = sled::Config::new()
            .path(path)
            .cache_capacity(opts.cache_bytes);
        #[cfg(test)]
        let config = if NO_BACKGROUND_FLUSH.with(std::cell::Cell::get) {
            config.flush_every_ms(None)
        } else {
            config
        };
        match config.open() {
            Err(e) if is_lock_contention(&e) => {
                if Instant::now() >= deadline {
                    return Err(crate::Error::Locked(
                        path.parent().unwrap_or(path).to_path_buf(),
                    ));
                }
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(100));
            }
            other => return Ok(other?),
        }
    }
}

/// sled reports a held lock as an I/O error whose text names it and `WouldBlock`.
fn is_lock_contention(e: &sled::Error) -> bool {
    matches!(e, sled::Error::Io(io) if io.to_string().contains("could not acquire lock"))
}

/// Tests of sled's lock on its files: sled only.
#[cfg(test)]
mod tests {
    use super::super::SledBackend;
    use crate::{Error, Options, Store};

    #[test]
    fn reopening_right_after_closing_waits_for_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        for _ in 0..20 {
            let store = SledBackend::open(dir.path(), &Options::default()).unwrap();
            store.t.meta.insert(b"k", b"v").unwrap();
            drop(store);
        }
    }

    #[tokio::test]
    async fn a_held_store_is_reported_as_locked() {
        let dir = tempfile::tempdir().unwrap();
        let _held = Store::open(dir.path(), Options::default()).await.unwrap();
        let Err(e) = Store::open(dir.path(), Options::default()).await else {
            panic!("a second handle opened a held store");
        };
        assert!(matches!(e, Error::Locked(_)), "{e:?}");
        assert!(e.to_string().contains("in use by another process"), "{e}");
    }
}
