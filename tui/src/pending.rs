//! Marks the server has not stored yet (docs/product.md §4 and §8: local state stays and is
//! merged with the server's lists). A mark change that gets no answer, or a failing
//! one, is kept here and in `pending-marks.json` beside the session of its server
//! (mode 0600; [`crate::session`] says where), so it survives a restart of the reader
//! too; it is sent again when that server answers, and dropped only once the server
//! stored it or refused it with a reason that is shown. The file names its server's
//! origin: marks are never sent to another server, even one holding the same account.

use std::path::{Path, PathBuf};

use radar_api::{Mark, NewsItem};
use serde::{Deserialize, Serialize};

use crate::session::Origin;

/// One mark change waiting for the server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingMark {
    /// Whose mark it is: only that account's session sends it.
    pub user_id: String,
    /// Which mark.
    pub mark: Mark,
    /// Set or clear.
    pub on: bool,
    /// The item, so lists can show it before the server has it.
    pub item: NewsItem,
}

/// The marks waiting for the server, in the order they were made.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PendingMarks {
    marks: Vec<PendingMark>,
}

impl PendingMarks {
    /// Every waiting change of `user_id`, oldest first.
    pub fn of<'a>(&'a self, user_id: &'a str) -> impl Iterator<Item = &'a PendingMark> {
        self.marks.iter().filter(move |m| m.user_id == user_id)
    }

    /// Whether `user_id` has changes waiting.
    pub fn has_any(&self, user_id: &str) -> bool {
        self.of(user_id).next().is_some()
    }

    /// Keeps a change; it replaces an older one of the same mark on the same item.
    pub fn add(&mut self, change: PendingMark) {
        self.remove(&change.user_id, change.mark, &change.item.id);
        self.marks.push(change);
    }

    /// Forgets the change of `mark` on item `id` (stored, or refused by the server).
    /// Answers whether there was one.
    pub fn remove(&mut self, user_id: &str, mark: Mark, id: &str) -> bool {
        let before = self.marks.len();
        self.marks
            .retain(|m| !(m.user_id == user_id && m.mark == mark && m.item.id == id));
        before != self.marks.len()
    }

    /// Whether nothing waits.
    pub fn is_empty(&self) -> bool {
        self.marks.is_empty()
    }
}

/// The file's content: the marks and the origin of the server they are for.
#[derive(Serialize, Deserialize)]
struct Saved {
    origin: String,
    marks: Vec<PendingMark>,
}

/// Where the marks waiting for one server are kept.
#[derive(Debug, Clone)]
pub struct PendingFile {
    path: PathBuf,
    origin: String,
}

impl PendingFile {
    /// The file of `origin` in the config directory `config` (beside its session).
    pub fn of(config: &Path, origin: &Origin) -> Self {
        Self {
            path: origin.dir_in(config).join("pending-marks.json"),
            origin: origin.to_string(),
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The kept marks; none when there is no file. A file that cannot be read, or one
    /// kept for another server, is an error the reader shows rather than a silent loss.
    pub fn load(&self) -> std::io::Result<PendingMarks> {
        match std::fs::read(&self.path) {
            Ok(bytes) => {
                let saved: Saved = serde_json::from_slice(&bytes).map_err(std::io::Error::other)?;
                if saved.origin != self.origin {
                    return Err(std::io::Error::other(format!(
                        "the marks are for {}, not {}",
                        saved.origin, self.origin
                    )));
                }
                Ok(PendingMarks { marks: saved.marks })
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(PendingMarks::default()),
            Err(e) => Err(e),
        }
    }

    /// Writes the marks privately (or removes the file when none wait).
    pub fn save(&self, pending: &PendingMarks) -> std::io::Result<()> {
        if pending.is_empty() {
            return match std::fs::remove_file(&self.path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
                _ => Ok(()),
            };
        }
        let saved = Saved {
            origin: self.origin.clone(),
            marks: pending.marks.clone(),
        };
        let bytes = serde_json::to_vec_pretty(&saved).expect("marks serialise");
        crate::session::write_private(&self.path, &bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::item;

    fn change(user: &str, mark: Mark, on: bool, n: usize) -> PendingMark {
        PendingMark {
            user_id: user.into(),
            mark,
            on,
            item: item(n),
        }
    }

    #[test]
    fn a_later_change_replaces_an_earlier_one_of_the_same_mark() {
        let mut p = PendingMarks::default();
        p.add(change("u", Mark::Read, true, 1));
        p.add(change("u", Mark::Favorite, true, 1));
        p.add(change("u", Mark::Read, false, 1));
        p.add(change("v", Mark::Read, true, 1));
        let mine: Vec<_> = p.of("u").map(|m| (m.mark, m.on)).collect();
        assert_eq!(mine, [(Mark::Favorite, true), (Mark::Read, false)]);
        assert!(p.remove("u", Mark::Read, "item-1"));
        assert!(!p.remove("u", Mark::Read, "item-1"));
        assert!(p.has_any("v") && p.has_any("u"));
    }

    #[test]
    fn each_server_keeps_its_own_marks() {
        let dir = tempfile::tempdir().unwrap();
        let a = Origin::of("http://127.0.0.1:8080").unwrap();
        let b = Origin::of("http://127.0.0.1:9090").unwrap();
        let (file_a, file_b) = (
            PendingFile::of(dir.path(), &a),
            PendingFile::of(dir.path(), &b),
        );
        let mut p = PendingMarks::default();
        p.add(change("u", Mark::Read, true, 1));
        file_a.save(&p).unwrap();
        // The same account on another server has nothing waiting.
        assert_eq!(file_b.load().unwrap(), PendingMarks::default());
        assert_eq!(file_a.load().unwrap(), p);
        // A's file copied to B's place is refused, not sent to B.
        std::fs::create_dir_all(file_b.path().parent().unwrap()).unwrap();
        std::fs::copy(file_a.path(), file_b.path()).unwrap();
        let e = file_b.load().unwrap_err().to_string();
        assert!(
            e.contains("for http://127.0.0.1:8080, not http://127.0.0.1:9090"),
            "{e}"
        );
        // As earlier readers wrote it (a bare list) is not read as anyone's.
        std::fs::write(file_a.path(), serde_json::to_vec(&p.marks).unwrap()).unwrap();
        assert!(file_a.load().is_err());
    }

    #[test]
    fn kept_privately_and_removed_when_empty() {
        let dir = tempfile::tempdir().unwrap();
        let file = PendingFile::of(
            &dir.path().join("cfg"),
            &Origin::of("http://127.0.0.1:1").unwrap(),
        );
        assert_eq!(file.load().unwrap(), PendingMarks::default());
        let mut p = PendingMarks::default();
        p.add(change("u", Mark::Hidden, true, 2));
        file.save(&p).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(file.path()).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert_eq!(file.load().unwrap(), p);
        file.save(&PendingMarks::default()).unwrap();
        assert!(!file.path().exists());
        std::fs::write(file.path(), "not json").unwrap();
        assert!(
            file.load().is_err(),
            "a damaged file is an error, not a loss"
        );
    }
}
