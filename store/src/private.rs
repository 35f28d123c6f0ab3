//! The data directory is private: it holds password hashes, API keys, résumés and
//! e-mails, so no other local user may read it, whatever the umask.
//!
//! The embedded database creates files at any time from its own threads (blobs,
//! snapshots), so the process umask is set to 077 before the store opens: everything created afterwards is 0600
//! (folders 0700). Files left by an earlier run or another umask are fixed on every open.

use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::Path;

use crate::{Error, Result};

/// Mode of the data directory and every folder in it.
pub const DIR_MODE: u32 = 0o700;
/// Mode of every file in the data directory.
pub const FILE_MODE: u32 = 0o600;

/// Creates `dir` (0700) if needed, makes the process create private files from now on,
/// and gives every existing entry under `dir` its private mode.
pub fn make_private(dir: &Path) -> Result<()> {
    // SAFETY: umask only swaps the process's file-creation mask; it cannot fail.
    unsafe {
        libc::umask(0o077);
    }
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(DIR_MODE)
        .create(dir)
        .map_err(|e| io(dir, e))?;
    fix_modes(dir)
}

/// Sets 0700 on `dir` and the folders below it and 0600 on everything else (sockets
/// included); symbolic links are left alone, their targets are not ours.
fn fix_modes(dir: &Path) -> Result<()> {
    set_mode(dir, DIR_MODE)?;
    for entry in std::fs::read_dir(dir).map_err(|e| io(dir, e))? {
        let entry = entry.map_err(|e| io(dir, e))?;
        let path = entry.path();
        let kind = entry.file_type().map_err(|e| io(&path, e))?;
        if kind.is_symlink() {
            continue;
        }
        if kind.is_dir() {
            fix_modes(&path)?;
        } else {
            set_mode(&path, FILE_MODE)?;
        }
    }
    Ok(())
}

fn set_mode(path: &Path, mode: u32) -> Result<()> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| io(path, e))?;
    if meta.permissions().mode() & 0o777 != mode {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
            .map_err(|e| io(path, e))?;
    }
    Ok(())
}

fn io(path: &Path, e: std::io::Error) -> Error {
    Error::Io(std::io::Error::new(
        e.kind(),
        format!("{}: {e}", path.display()),
    ))
}

/// Puts `contents` at `path` unless a file is already there, and gives what is at
/// `path` afterwards: ours, or the one another caller (thread or process) put there
/// first. The file is written whole and synced under a name of its own, 0600 from its
/// creation, and then linked into place, which fails when the name is taken; so nobody
/// reads a secret half written, racing callers all end with the same one, and a crash
/// never leaves an empty secret behind.
pub(crate) fn publish_private_file(path: &Path, contents: &[u8]) -> Result<Vec<u8>> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    use std::sync::atomic::{AtomicU64, Ordering};
    static DRAFTS: AtomicU64 = AtomicU64::new(0);

    let name = path
        .file_name()
        .map_or_else(Default::default, |n| n.to_string_lossy());
    let draft = path.with_file_name(format!(
        ".{name}.{}.{}",
        std::process::id(),
        DRAFTS.fetch_add(1, Ordering::Relaxed)
    ));
    let written = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(FILE_MODE)
            .open(&draft)?;
        file.write_all(contents)?;
        file.sync_all()?;
        std::fs::hard_link(&draft, path)
    })();
    let _ = std::fs::remove_file(&draft);
    match written {
        Ok(()) => {
            if let Some(dir) = path.parent() {
                std::fs::File::open(dir)
                    .and_then(|d| d.sync_all())
                    .map_err(|e| io(dir, e))?;
            }
            Ok(contents.to_vec())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            std::fs::read(path).map_err(|e| io(path, e))
        }
        Err(e) => Err(io(path, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn racing_publishers_all_get_the_first_file_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secret");
        let got: Vec<Vec<u8>> = std::thread::scope(|s| {
            let racers: Vec<_> = (0..8u8)
                .map(|n| {
                    let path = &path;
                    s.spawn(move || publish_private_file(path, &[n; 4096]).unwrap())
                })
                .collect();
            racers.into_iter().map(|r| r.join().unwrap()).collect()
        });
        let on_disk = std::fs::read(&path).unwrap();
        assert_eq!(on_disk.len(), 4096);
        assert!(
            got.iter().all(|g| *g == on_disk),
            "every caller gets the file that won"
        );
        assert_eq!(mode(&path), 0o600);
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "no draft is left behind");
    }

    #[test]
    fn an_existing_open_directory_becomes_private() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("data");
        std::fs::create_dir_all(dir.join("db")).unwrap();
        std::fs::write(dir.join("db").join("conf"), "x").unwrap();
        std::fs::write(dir.join("jwt_secret"), "s").unwrap();
        for p in [&dir, &dir.join("db")] {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        for p in [dir.join("db").join("conf"), dir.join("jwt_secret")] {
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
        }
        make_private(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&dir.join("db")), 0o700);
        assert_eq!(mode(&dir.join("db").join("conf")), 0o600);
        assert_eq!(mode(&dir.join("jwt_secret")), 0o600);
        // Files created afterwards are private too.
        std::fs::write(dir.join("later"), "x").unwrap();
        assert_eq!(mode(&dir.join("later")), 0o600);
    }
}
