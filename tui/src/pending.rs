//! Marks the server has not stored yet (spec sections 4 and 8: local state stays and is
//! merged with the server's lists). A mark change that gets no answer, or a failing
//! one, is kept here and in `pending-marks.json` beside the session (mode 0600), so it
//! survives a restart of the reader too; it is sent again when the server answers, and
//! dropped only once the server stored it or refused it with a reason that is shown.

use std::path::{Path, PathBuf};

use radar_api::{Mark, NewsItem};
use serde::{Deserialize, Serialize};

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

/// Where the waiting marks are kept.
#[derive(Debug, Clone)]
pub struct PendingFile {
    path: PathBuf,
}

impl PendingFile {
    /// The file in `dir` (the session's directory).
    pub fn in_dir(dir: &Path) -> Self {
        Self {
            path: dir.join("pending-marks.json"),
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The kept marks; none when there is no file. A file that cannot be read is an
    /// error the reader shows rather than a silent loss.
    pub fn load(&self) -> std::io::Result<PendingMarks> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map(|marks| PendingMarks { marks })
                .map_err(std::io::Error::other),
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
        let bytes = serde_json::to_vec_pretty(&pending.marks).expect("marks serialise");
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
    fn kept_privately_and_removed_when_empty() {
        let dir = tempfile::tempdir().unwrap();
        let file = PendingFile::in_dir(&dir.path().join("cfg"));
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
