//! Why the store could not open, said cause first: a full disk, a permission, a file
//! where one of the store's folders belongs, each with its path and what to do. Only a
//! held lock ([`Error::Locked`]) means another process is using the data directory, so
//! only that error may say so; the rest must not send an operator looking for a second
//! `radar serve` that does not exist.

use std::io::ErrorKind;
use std::path::Path;

use crate::{Error, Result};

/// The folders the store keeps in the data directory, and what each holds.
const FOLDERS: [(&str, &str); 3] = [
    ("db", "its database"),
    ("journal", "the journal of marks and shares"),
    ("search", "the search index"),
];

/// Refuses a data directory that is a file, or holds a file where one of the store's
/// folders belongs: the database and tantivy would fail on it with messages that name neither
/// the path nor the fix.
pub(crate) fn check_layout(dir: &Path) -> Result<()> {
    let folders = FOLDERS.iter().map(|(name, what)| (dir.join(name), *what));
    for (path, what) in std::iter::once((dir.to_path_buf(), "its data")).chain(folders) {
        match std::fs::metadata(&path) {
            Ok(meta) if !meta.is_dir() => {
                return Err(Error::Open(format!(
                    "{} is a file, where Radar keeps {what} in a folder: move that file away \
                     (or pick another --data) and start again",
                    path.display()
                )));
            }
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => return Err(explain(dir, &path, io_error(e))),
        }
    }
    Ok(())
}

/// `e`, met while opening `path` of the data directory `dir`, in words that name its
/// cause first when it is one the operator can fix; other errors are left as they are.
pub(crate) fn explain(dir: &Path, path: &Path, e: Error) -> Error {
    let Some(kind) = cause(&e) else {
        return e;
    };
    let (dir, path) = (dir.display(), path.display());
    Error::Open(match kind {
        ErrorKind::StorageFull | ErrorKind::QuotaExceeded => format!(
            "the disk holding {dir} is full: free space there and start again \
             (writing {path} failed: {e})"
        ),
        ErrorKind::PermissionDenied => format!(
            "permission denied on {path}: run radar as the user who owns {dir}, or give that \
             user read and write access to it (or pick another --data) ({e})"
        ),
        ErrorKind::ReadOnlyFilesystem => format!(
            "the disk holding {dir} is read-only: mount it read-write (or pick another --data) \
             and start again ({e})"
        ),
        ErrorKind::NotADirectory => format!(
            "a part of {path} is a file, not a folder: move that file away (or pick another \
             --data) and start again ({e})"
        ),
        _ => return e,
    })
}

/// The I/O cause of `e`, if it is one [`explain`] has words for. The search index
/// reports its errors as text, so those are recognised by the system's message.
fn cause(e: &Error) -> Option<ErrorKind> {
    let kind = match e {
        Error::Io(io) => io.kind(),
        Error::Index(text) => {
            let known = [
                ("os error 28", ErrorKind::StorageFull),
                ("os error 122", ErrorKind::QuotaExceeded),
                ("os error 13", ErrorKind::PermissionDenied),
                ("os error 30", ErrorKind::ReadOnlyFilesystem),
                ("os error 20", ErrorKind::NotADirectory),
            ];
            known.iter().find(|(code, _)| text.contains(code))?.1
        }
        _ => return None,
    };
    matches!(
        kind,
        ErrorKind::StorageFull
            | ErrorKind::QuotaExceeded
            | ErrorKind::PermissionDenied
            | ErrorKind::ReadOnlyFilesystem
            | ErrorKind::NotADirectory
    )
    .then_some(kind)
}

fn io_error(e: std::io::Error) -> Error {
    Error::Io(e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Options, Store};

    #[tokio::test]
    async fn a_file_where_a_folder_belongs_is_named_with_the_fix() {
        for folder in ["db", "journal", "search"] {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join(folder), b"not a folder").unwrap();
            let Err(e) = Store::open(dir.path(), Options::default()).await else {
                panic!("opened with a file as {folder}");
            };
            let text = e.to_string();
            assert!(matches!(e, Error::Open(_)), "{e:?}");
            assert!(
                text.starts_with(&format!("{} is a file", dir.path().join(folder).display())),
                "{text}"
            );
            assert!(text.contains("move that file away"), "{text}");
        }
    }

    #[test]
    fn io_causes_are_named_first_and_others_left_alone() {
        let dir = Path::new("/data");
        let path = dir.join("db");
        let full = explain(
            dir,
            &path,
            io_error(std::io::Error::from_raw_os_error(libc::ENOSPC)),
        );
        assert!(
            full.to_string()
                .starts_with("the disk holding /data is full: free space there"),
            "{full}"
        );
        let denied = explain(
            dir,
            &path,
            Error::Index("An IO error occurred: Permission denied (os error 13)".into()),
        );
        assert!(
            denied
                .to_string()
                .starts_with("permission denied on /data/db:"),
            "{denied}"
        );
        let other = explain(dir, &path, Error::Index("schema mismatch".into()));
        assert!(matches!(other, Error::Index(_)), "{other:?}");
    }
}
