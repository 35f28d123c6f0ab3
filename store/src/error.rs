//! The store's one error type. Each variant says what kind of failure it is, so the daemon
//! can map it to an HTTP status without looking at messages.

/// Everything a store call can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The named thing (an item, a user, a summary...) does not exist.
    #[error("{0} not found")]
    NotFound(&'static str),
    /// The caller's input breaks a rule; the message says which and why.
    #[error("{0}")]
    Invalid(String),
    /// The write would break uniqueness (an e-mail already registered, say).
    #[error("{0}")]
    Conflict(String),
    /// The caller may not do this (a free account asking past the free cap, say).
    #[error("{0}")]
    Forbidden(String),
    /// Another process has the store open (a running daemon, a long command).
    #[error("the store in {0} is in use by another process")]
    Locked(std::path::PathBuf),
    /// The disk holding the data directory (named) is short of the space guard's reserve:
    /// the write was refused before it changed anything, and writes resume by themselves
    /// once space is freed (see `space`). Reads go on.
    #[error("the disk holding {0} is full: writes are refused until space is freed there")]
    StorageFull(std::path::PathBuf),
    /// The store could not write to its disk and cannot go on writing until it is
    /// restarted (its database or the journal met an I/O error); every acknowledged write
    /// is in its log and comes back on restart. The message says what failed.
    #[error("{0}")]
    Unavailable(String),
    /// A shared database cannot be reached right now (it is down, restarting, failing
    /// over, or out of connections) or asked for the transaction to be tried again.
    /// Nothing is wrong with the store: the same request may succeed in a few seconds,
    /// and the connections heal by themselves. The message says what failed.
    #[error("{0}")]
    Unreachable(String),
    /// The store cannot be opened for a reason the operator can fix (a full disk, a
    /// permission, a file where a folder belongs); the message names the cause first,
    /// then the path and what to do.
    #[error("{0}")]
    Open(String),
    /// Reading or writing a file failed.
    #[error("storage error: {0}")]
    Io(#[from] std::io::Error),
    /// The backend failed for another reason (corruption, a database's error); the
    /// message says what failed.
    #[error("storage error: {0}")]
    Storage(String),
    /// A stored record no longer decodes.
    #[error("corrupt record: {0}")]
    Corrupt(#[from] serde_json::Error),
    /// Changes the journal acknowledged are missing from it (a journal file deleted, a
    /// gap in its records): opening refuses rather than go on without them silently.
    /// The message says which and how many.
    #[error(
        "{0}. The store was not opened; to open it without them, start again with \
         --accept-journal-loss (or RADAR_ACCEPT_JOURNAL_LOSS=1)"
    )]
    JournalLoss(String),
    /// The search index failed (I/O, a damaged file); `radar items reindex` rebuilds it.
    #[error("search index error: {0}")]
    Index(String),
}

impl Error {
    /// Whether the backend met a full disk the space guard did not foresee (another
    /// process filled it between the check and the write): the embedded backend then
    /// refuses writes until the store is opened again.
    pub fn met_full_disk(&self) -> bool {
        matches!(self, Error::Io(io) if io.kind() == std::io::ErrorKind::StorageFull)
    }
}

/// The store's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
