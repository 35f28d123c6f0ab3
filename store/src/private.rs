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

/// Writes a secret to a new file of its own, readable by this user only (0600 from its
/// creation, never wider), synced.
pub(crate) fn write_private_file(path: &Path, contents: &[u8]) -> Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(FILE_MODE)
        .open(path)
        .map_err(|e| io(path, e))?;
    file.write_all(contents).map_err(|e| io(path, e))?;
    file.sync_all().map_err(|e| io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
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
