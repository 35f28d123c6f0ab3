//! The journal: the frequent small writes of readers (marks and shares) are made durable
//! by appending a record of them to a file of our own and syncing that file, and applied
//! to sled in batches, instead of one sled transaction and one sled sync each.
//!
//! A sled transaction writes out sled's log buffer before and after it (sled's
//! `pin_log`), and a sled sync (`Store::flush`) seals and writes the buffers, waits for
//! them with `sched_yield` and syncs the log: together about 1.5 ms here. A journal sync
//! is one `write` and one `fdatasync` of the records appended since the last one.
//!
//! One thread, the journal's writer, does the rest in order. A change is checked by its
//! caller (an unknown item is refused at once), appended to the journal's buffer, and
//! waited for. The writer takes everything appended meanwhile, writes and syncs it, then
//! applies the whole batch to sled in the order it was appended, and tells each waiter
//! its outcome. So 32 concurrent writers share one sync, a write is answered only once it
//! is on disk and visible to reads, and sled always holds a prefix of the journal.
//!
//! **A change is durable with its item.** Readers see an item from its first sled write
//! on, before the batch that writes it is synced (see `items`), so they can mark it then.
//! The journal's record of the mark alone would not bring the item back after a crash, so
//! before the writer writes a batch it asks the group commit whether an item write may
//! not be on disk yet (`GroupCommit::items_unsynced`: one began and no sync started after
//! it ended), and if so syncs sled first. Every change of the batch was checked against
//! an item its caller could see, so that sync has the item. When no item write is in
//! flight, which is nearly always, this costs nothing.
//!
//! sled writes its own state out in the background. After a crash it comes back as some
//! prefix of its writes, and opening the store replays the journal on top. Every record
//! carries a sequence number, and after applying each batch the writer stores the highest
//! one in sled (meta `journal_applied`), after the records it covers, so sled's prefix
//! never claims more than it holds. Replay applies only the records newer than that:
//! records are absolute ("set this mark", "clear this mark", "this share"), so replaying
//! an old one over a newer state would roll it back, while replaying the newer ones in
//! order on top of any prefix that holds everything before them gives the state the
//! journal describes.
//!
//! Journal files are numbered. When one passes `Options::journal_checkpoint_bytes`, the
//! writer starts the next file, records in sled which file must exist now and the number
//! of its first record (meta `journal_file`), syncs sled (which holds every record of the
//! old file) and deletes the old one. Opening the store does the same for the file it
//! starts. A clean shutdown syncs sled without a current file and deletes it, so a store
//! closed cleanly has nothing to replay and expects no file.
//!
//! **Recovery never goes backwards.** A file starts with [`FILE_MAGIC`]; a record is
//! framed `FRAME_MAGIC u32 | len u32 | crc32 u32 | seq u64 | payload`, the checksum
//! covering the length and everything after it. Reading skips a damaged record and goes
//! on at the next intact frame (found by its magic and checksum); the sequence numbers
//! say how many records were skipped and whether sled already held them. The damaged file
//! is kept aside as `journal-N.damaged-<unix time>` and a warning names it and the count;
//! what sled holds is kept and every intact newer record replayed. Only bytes cut short
//! at the very end of the last file, the tail of a write a crash interrupted, which no
//! caller was told was saved, are dropped quietly. Records are written over zeros
//! written ahead of them (see `Writer::write`), so the records of a file end where its
//! last zeros begin, and a record cut short runs into them. A file that should exist
//! and does not, or a gap in the numbers with no damage to explain it, means acknowledged
//! changes are gone: opening refuses ([`Error::JournalLoss`], naming how many) unless
//! `Options::accept_journal_loss` says to go on without them.
//!
//! Files of the first format (no file magic, records `len | crc | payload` without a
//! sequence number) are still read: the first open by this version replays them whole,
//! as that version did, and from then on sled holds them.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use super::group_commit::GroupCommit;
use radar_api::ItemMarks;

use super::marks::{apply_change, mark_byte, mark_of_byte};
use super::{Memory, SledBackend, Trees, keys};
use crate::{Error, FILE_MODE, Mark, Result};

/// One journaled change. Each is absolute, so replaying it twice does no harm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Record {
    /// `user` changed their marks on `item` at `at` (`keys::time`): cleared the marks of
    /// `clear` (a mask of bit `Mark::index`), then set `set`.
    Mark {
        user: String,
        item: String,
        clear: u8,
        set: Option<Mark>,
        at: [u8; 8],
    },
    /// `user` shared `item`: the `userid_shared` value.
    Share {
        user: String,
        item: String,
        value: Vec<u8>,
    },
}

/// A mark set or cleared, as the first versions wrote it: the mark's byte and on or
/// off, read as the change the rule of those versions made (setting one of the three
/// marks cleared the other two).
const MARK: u8 = 1;
const SHARE: u8 = 2;
/// A change of marks: the mask cleared and the mark set (its byte, or 0 for none).
const MARKS: u8 = 3;

/// The first bytes of a journal file of this format. The first format had none: its
/// files start with a record's small length, never with these bytes.
const FILE_MAGIC: &[u8; 8] = b"RDRJNL2\n";
/// The first bytes of every record, so that reading finds the next record after damage.
const FRAME_MAGIC: [u8; 4] = [0xd5, 0x52, 0x4a, 0x7e];
/// Bytes before a record's payload: magic, length, checksum.
const HEAD: usize = 12;
/// Zeros written ahead of the records at a time (see [`Writer::write`]).
const ZEROED_AHEAD: u64 = ZEROS.len() as u64;
/// The zeros written ahead: a static of the binary's zero-filled data, so writing them
/// allocates nothing.
static ZEROS: [u8; 1 << 20] = [0; 1 << 20];
/// Longest payload a record can have (three fields under 64 KB and a few bytes): a longer
/// length is damage, not a record.
const MAX_PAYLOAD: usize = 4 << 16;

/// sled meta key: sequence number of the last record applied to sled (big-endian u64).
const APPLIED: &str = "journal_applied";
/// sled meta key: the journal file that must exist and the sequence number of its first
/// record (two big-endian u64); absent after a clean close.
const CURRENT_FILE: &str = "journal_file";

impl Record {
    /// Appends the record, framed, with sequence number `seq`, to `out`.
    fn encode(&self, seq: u64, out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(&FRAME_MAGIC);
        out.extend_from_slice(&[0; 8]);
        out.extend_from_slice(&seq.to_le_bytes());
        self.encode_body(out);
        let len = u32::try_from(out.len() - start - HEAD).expect("a journal record is small");
        out[start + 4..start + 8].copy_from_slice(&len.to_le_bytes());
        let crc = frame_crc(&out[start + 4..start + 8], &out[start + HEAD..]);
        out[start + 8..start + 12].copy_from_slice(&crc.to_le_bytes());
    }

    fn encode_body(&self, out: &mut Vec<u8>) {
        match self {
            Record::Mark {
                user,
                item,
                clear,
                set,
                at,
            } => {
                out.extend_from_slice(&[MARKS, *clear, set.map_or(0, mark_byte)]);
                out.extend_from_slice(at);
                field(out, user.as_bytes());
                field(out, item.as_bytes());
            }
            Record::Share { user, item, value } => {
                out.push(SHARE);
                field(out, user.as_bytes());
                field(out, item.as_bytes());
                field(out, value);
            }
        }
    }

    fn decode(payload: &[u8]) -> Option<Self> {
        let (&kind, mut rest) = payload.split_first()?;
        let record = match kind {
            MARK => {
                let (head, tail) = rest.split_at_checked(10)?;
                rest = tail;
                let mark = mark_of_byte(head[0])?;
                let on = head[1] == 1;
                let clear = if on {
                    Mark::ALL
                        .into_iter()
                        .filter(|m| *m != mark)
                        .fold(0, |acc, m| acc | (1 << m.index()))
                } else {
                    1 << mark.index()
                };
                Record::Mark {
                    clear,
                    set: on.then_some(mark),
                    at: head[2..10].try_into().ok()?,
                    user: text(&mut rest)?,
                    item: text(&mut rest)?,
                }
            }
            MARKS => {
                let (head, tail) = rest.split_at_checked(10)?;
                rest = tail;
                let set = match head[1] {
                    0 => None,
                    b => Some(mark_of_byte(b)?),
                };
                Record::Mark {
                    clear: head[0],
                    set,
                    at: head[2..10].try_into().ok()?,
                    user: text(&mut rest)?,
                    item: text(&mut rest)?,
                }
            }
            SHARE => Record::Share {
                user: text(&mut rest)?,
                item: text(&mut rest)?,
                value: take(&mut rest)?.to_vec(),
            },
            _ => return None,
        };
        rest.is_empty().then_some(record)
    }

    /// The record in the first format (`len u32 | crc32 u32 | payload`, no sequence
    /// number), as the previous version wrote it: for tests of reading its files.
    #[cfg(test)]
    fn encode_first_format(&self, out: &mut Vec<u8>) {
        let mut payload = Vec::new();
        self.encode_body(&mut payload);
        let len = u32::try_from(payload.len()).expect("a journal record is small");
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
        out.extend_from_slice(&payload);
    }
}

/// The checksum of a frame: its length field and its payload.
fn frame_crc(len: &[u8], payload: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(len);
    h.update(payload);
    h.finalize()
}

/// A length-prefixed byte string (ids and small values: under 64 KB).
fn field(out: &mut Vec<u8>, bytes: &[u8]) {
    let len = u16::try_from(bytes.len()).expect("journal fields are under 64 KB");
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(bytes);
}

fn take<'a>(rest: &mut &'a [u8]) -> Option<&'a [u8]> {
    let (len, tail) = rest.split_at_checked(2)?;
    let len = u16::from_le_bytes(len.try_into().ok()?) as usize;
    let (bytes, tail) = tail.split_at_checked(len)?;
    *rest = tail;
    Some(bytes)
}

fn text(rest: &mut &[u8]) -> Option<String> {
    String::from_utf8(take(rest)?.to_vec()).ok()
}

/// What reading one journal file found, in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    /// An intact record and its sequence number (none in the first format).
    Record(Option<u64>, Record),
    /// This many bytes that are no intact record, with intact ones after them, or at the
    /// end of the file in full-length frames (not merely cut short).
    Damaged(usize),
}

/// The contents of one journal file.
#[derive(Debug, Default, PartialEq, Eq)]
struct FileContents {
    entries: Vec<Entry>,
    /// Bytes at the end that begin a record and stop short: a write a crash cut.
    cut_short: usize,
}

/// What the frame at the start of `bytes` is.
enum Frame {
    /// An intact record, its sequence number, and the frame's length.
    Intact(Option<u64>, Record, usize),
    /// A frame whose header or length runs past the end of `bytes`.
    Short,
    /// Anything else: wrong magic, checksum or contents.
    Bad,
}

fn frame(bytes: &[u8], first_format: bool) -> Frame {
    if first_format {
        let Some(head) = bytes.get(..8) else {
            return Frame::Short;
        };
        let len = u32::from_le_bytes(head[..4].try_into().expect("4 bytes")) as usize;
        if len > MAX_PAYLOAD {
            return Frame::Bad;
        }
        let Some(payload) = bytes.get(8..8 + len) else {
            return Frame::Short;
        };
        let crc = u32::from_le_bytes(head[4..].try_into().expect("4 bytes"));
        return match Record::decode(payload) {
            Some(r) if crc32fast::hash(payload) == crc => Frame::Intact(None, r, 8 + len),
            _ => Frame::Bad,
        };
    }
    let magic = &bytes[..bytes.len().min(4)];
    if magic != &FRAME_MAGIC[..magic.len()] {
        return Frame::Bad;
    }
    let Some(head) = bytes.get(..HEAD) else {
        return Frame::Short;
    };
    let len = u32::from_le_bytes(head[4..8].try_into().expect("4 bytes")) as usize;
    if !(8..=MAX_PAYLOAD).contains(&len) {
        return Frame::Bad;
    }
    let Some(payload) = bytes.get(HEAD..HEAD + len) else {
        return Frame::Short;
    };
    let crc = u32::from_le_bytes(head[8..12].try_into().expect("4 bytes"));
    if frame_crc(&head[4..8], payload) != crc {
        return Frame::Bad;
    }
    let seq = u64::from_le_bytes(payload[..8].try_into().expect("8 bytes"));
    match Record::decode(&payload[8..]) {
        Some(r) => Frame::Intact(Some(seq), r, HEAD + len),
        None => Frame::Bad,
    }
}

/// Where the next intact frame after a damaged one starts, searched from `from` to `end`.
fn next_intact(bytes: &[u8], from: usize, end: usize, first_format: bool) -> Option<usize> {
    (from..end).find(|&at| {
        (first_format || bytes[at..].starts_with(&FRAME_MAGIC))
            && matches!(frame(&bytes[at..], first_format), Frame::Intact(..))
    })
}

/// Reads the records of a journal file's bytes, skipping damage.
///
/// Records of this format are written over zeros written ahead of them (see
/// [`Writer::write`]), so they end where the zeros at the end of the file begin. A frame
/// that runs into those zeros is the write a crash cut, as a frame that runs past the end
/// of the file is; but one whose own last bytes are zeros is whole, and read as such.
fn parse(bytes: &[u8]) -> FileContents {
    let mut out = FileContents::default();
    let written = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    let (first_format, mut at, end) = if bytes.starts_with(FILE_MAGIC) {
        (false, FILE_MAGIC.len(), written)
    } else if FILE_MAGIC.starts_with(&bytes[..written]) {
        // Created, and cut before its magic was on disk: nothing was written in it.
        return out;
    } else {
        (true, 0, bytes.len())
    };
    while at < end {
        let found = match frame(&bytes[at..end], first_format) {
            // It runs into the zeros: whole if it ends with zeros, else cut there.
            Frame::Short => match frame(&bytes[at..], first_format) {
                Frame::Bad => Frame::Short,
                whole => whole,
            },
            found => found,
        };
        let short = match found {
            Frame::Intact(seq, record, len) => {
                out.entries.push(Entry::Record(seq, record));
                at += len;
                continue;
            }
            Frame::Short => true,
            Frame::Bad => false,
        };
        match next_intact(bytes, at + 1, end, first_format) {
            Some(next) => {
                out.entries.push(Entry::Damaged(next - at));
                at = next;
            }
            None if short => {
                out.cut_short = end - at;
                break;
            }
            None => {
                out.entries.push(Entry::Damaged(end - at));
                break;
            }
        }
    }
    out
}

/// The journal files in `dir`, oldest first, with their numbers. Files kept aside
/// (`journal-N.damaged-T`) are not journal files.
fn journal_files(dir: &Path) -> Result<Vec<(u64, PathBuf)>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let name = entry.file_name();
        if let Some(n) = name
            .to_str()
            .and_then(|n| n.strip_prefix("journal-"))
            .and_then(|n| n.parse::<u64>().ok())
        {
            files.push((n, entry.path()));
        }
    }
    files.sort();
    Ok(files)
}

/// The value of [`CURRENT_FILE`].
fn current_file_value(number: u64, first_seq: u64) -> [u8; 16] {
    let mut v = [0; 16];
    v[..8].copy_from_slice(&keys::u64_value(number));
    v[8..].copy_from_slice(&keys::u64_value(first_seq));
    v
}

/// The entry of `damaged` for the file at `path` (`this_file`, added when none yet),
/// with `bytes` more damaged bytes.
fn damage_in(
    damaged: &mut Vec<DamagedFile>,
    this_file: &mut Option<usize>,
    path: &Path,
    bytes: usize,
) -> usize {
    let i = *this_file.get_or_insert_with(|| {
        damaged.push(DamagedFile {
            path: path.to_path_buf(),
            bytes: 0,
            skipped: 0,
            held: 0,
            at_the_end: false,
        });
        damaged.len() - 1
    });
    damaged[i].bytes += bytes;
    i
}

/// A journal file with damaged records in it, to keep aside.
struct DamagedFile {
    path: PathBuf,
    /// Damaged bytes in it.
    bytes: usize,
    /// Records that could not be read, known from the sequence numbers around them...
    skipped: u64,
    /// ...of which sled already held this many.
    held: u64,
    /// No intact numbered record follows the damage (it runs to the end of the journal,
    /// or the file is of the first format): how many records it held is unknown.
    at_the_end: bool,
}

/// A read over the journal files, record by record, against what sled holds.
struct Scan {
    /// What sled's `meta` says it has applied; none before the first open of the
    /// numbered format.
    applied: Option<u64>,
    /// The sequence number sled holds up to.
    held: u64,
    /// The records to replay, in order.
    records: Vec<Record>,
    damaged: Vec<DamagedFile>,
    /// Changes found missing, said in words.
    loss: Vec<String>,
    /// The last sequence number seen.
    prev: Option<u64>,
    /// The damaged file read since `prev`, if any: a gap after damage is the damage's.
    damage_since: Option<usize>,
    /// The last sequence number known, replayed or held.
    last_seq: u64,
}

impl Scan {
    /// One journal file's entries; a cut-short tail is a crash's only in the `last`
    /// file: the others were synced whole before the next one was started.
    fn file(&mut self, path: &Path, contents: FileContents, last: bool) {
        let mut this_file = None;
        for entry in contents.entries {
            match entry {
                Entry::Damaged(bytes) => {
                    self.damage_since =
                        Some(damage_in(&mut self.damaged, &mut this_file, path, bytes));
                }
                // The first format: replayed whole by the first open of this version,
                // which then records what sled holds; after that sled has them.
                Entry::Record(None, record) => {
                    if self.applied.is_none() {
                        self.records.push(record);
                    }
                }
                Entry::Record(Some(seq), record) => self.numbered(seq, record, path),
            }
        }
        if contents.cut_short == 0 {
        } else if !last {
            self.damage_since = Some(damage_in(
                &mut self.damaged,
                &mut this_file,
                path,
                contents.cut_short,
            ));
        } else {
            tracing::info!(
                file = %path.display(),
                bytes = contents.cut_short,
                "the journal ends with a record cut short by a crash; it was never acknowledged"
            );
        }
    }

    /// A numbered record: replayed when sled does not hold it. A gap before it belongs
    /// to the damage read since the last record when there is some, else the changes of
    /// the gap that sled does not hold are lost.
    fn numbered(&mut self, seq: u64, record: Record, path: &Path) {
        if self.prev.is_some_and(|p| seq <= p) {
            return;
        }
        if let Some(p) = self.prev
            && seq > p + 1
        {
            let gap = seq - p - 1;
            // Those of the gap that sled does not hold.
            let newer = seq - (p + 1).max(self.held + 1).min(seq);
            match self.damage_since {
                Some(d) => {
                    self.damaged[d].skipped += gap;
                    self.damaged[d].held += gap - newer;
                }
                None if newer > 0 => self.loss.push(format!(
                    "{newer} changes (#{} to #{}) are in no journal file before {}",
                    seq - newer,
                    seq - 1,
                    path.display()
                )),
                None => {}
            }
        }
        self.damage_since = None;
        self.prev = Some(seq);
        self.last_seq = self.last_seq.max(seq);
        if seq > self.held {
            self.records.push(record);
        }
    }
}

/// What an earlier run left to replay: the records newer than what sled holds, in order,
/// the files holding them, to delete once they are applied and sled is synced, and the
/// damaged ones, to keep aside.
pub(crate) struct Leftover {
    pub records: Vec<Record>,
    files: Vec<PathBuf>,
    damaged: Vec<DamagedFile>,
    /// Number of the file the journal starts now.
    next_number: u64,
    /// Sequence number of the last record known, replayed or held by sled.
    last_seq: u64,
}

impl Leftover {
    /// Reads the journal files in `dir` (created if missing), given what sled's `meta`
    /// tree says it holds. Refuses with [`Error::JournalLoss`] when records are missing,
    /// unless `accept_loss`.
    pub(crate) fn read(dir: &Path, meta: &sled::Tree, accept_loss: bool) -> Result<Self> {
        std::fs::create_dir_all(dir).map_err(io)?;
        let files = journal_files(dir)?;
        let applied = meta.get(APPLIED)?.map(|v| keys::u64_from(Some(&v)));
        let held = applied.unwrap_or(0);
        let expected = meta.get(CURRENT_FILE)?.map(|v| {
            (
                keys::u64_from(v.get(..8)),
                keys::u64_from(v.get(8..)).max(1),
            )
        });
        let mut scan = Scan {
            applied,
            held,
            records: Vec::new(),
            damaged: Vec::new(),
            loss: Vec::new(),
            prev: expected.map(|(_, first)| first - 1),
            damage_since: None,
            last_seq: held,
        };
        for (i, (number, path)) in files.iter().enumerate() {
            // Older than the file a checkpoint started: sled held all of it when it synced.
            if expected.is_some_and(|(current, _)| *number < current) {
                continue;
            }
            let contents = parse(&std::fs::read(path).map_err(io)?);
            scan.file(path, contents, i + 1 == files.len());
        }
        if let Some(d) = scan.damage_since {
            scan.damaged[d].at_the_end = true;
        }
        // The file a checkpoint or the last open started is gone, and no later record
        // tells how many it held (when one does, the gap above counted them).
        if let Some((current, first)) = expected
            && !files.iter().any(|(n, _)| *n == current)
            && scan.prev == Some(first - 1)
        {
            let known = held.saturating_sub(first - 1);
            scan.loss.push(format!(
                "{} is missing: it held every change from #{first} on; the database holds {known} of them \
                 (up to #{held}), and any acknowledged after #{held} are lost",
                file_path(dir, current).display()
            ));
        }
        if !scan.loss.is_empty() {
            let why = format!("the marks journal is incomplete: {}", scan.loss.join("; "));
            if !accept_loss {
                return Err(Error::JournalLoss(why));
            }
            tracing::warn!("{why}; going on without them (--accept-journal-loss)");
        }
        Ok(Self {
            records: scan.records,
            next_number: files.last().map_or(1, |(n, _)| n + 1),
            files: files.into_iter().map(|(_, p)| p).collect(),
            damaged: scan.damaged,
            last_seq: scan.last_seq,
        })
    }

    /// Keeps each damaged file aside under a name of its own, saying so; call before
    /// sled records that their records are replayed, so the evidence is never lost.
    fn keep_damaged(&self) -> Result<()> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        for d in &self.damaged {
            let mut aside = d.path.clone().into_os_string();
            aside.push(format!(".damaged-{now}"));
            let aside = PathBuf::from(aside);
            // A link, so the journal file stays whole until sled has what it replayed.
            if !aside.exists() {
                std::fs::hard_link(&d.path, &aside).map_err(io)?;
            }
            let newer = d.skipped - d.held;
            if d.at_the_end {
                tracing::warn!(
                    file = %d.path.display(),
                    kept_as = %aside.display(),
                    damaged_bytes = d.bytes,
                    "damaged journal records with no numbered record after them: how many changes \
                     they held is unknown; every intact record was replayed"
                );
            } else {
                tracing::warn!(
                    file = %d.path.display(),
                    kept_as = %aside.display(),
                    damaged_bytes = d.bytes,
                    skipped = d.skipped,
                    already_in_store = d.held,
                    lost = newer,
                    "skipped {} damaged journal records ({} of them the store already held, {newer} lost); \
                     every intact record after them was replayed",
                    d.skipped,
                    d.held
                );
            }
        }
        Ok(())
    }

    /// Deletes the replayed files; call after sled holds their records on disk.
    fn remove(self) -> Result<()> {
        for f in &self.files {
            std::fs::remove_file(f).map_err(io)?;
        }
        Ok(())
    }
}

/// A journaled change on its way to disk. Its outcome (the item's marks after it, or why
/// it was refused) is known once it is on disk and applied: [`Durable::on_disk`].
#[must_use = "a change is done only once it is on disk"]
pub(crate) struct Durable {
    journal: Arc<Journal>,
    record: u64,
    outcome: Arc<Outcome>,
}

/// Where the writer leaves the outcome of one change.
type Outcome = Mutex<Option<Result<ItemMarks>>>;

impl Durable {
    /// Waits until the change is on disk without holding a thread, and answers its
    /// outcome: the daemon's way, so that many writers share one sync.
    pub(crate) async fn on_disk(self) -> Result<ItemMarks> {
        self.journal.durable(self.record).await?;
        self.outcome()
    }

    fn outcome(self) -> Result<ItemMarks> {
        let outcome = self
            .outcome
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        outcome.unwrap_or_else(|| Err(poisoned("the change was not applied")))
    }
}

impl SledBackend {
    /// Applies what an earlier run journaled and sled may not hold, records in sled the
    /// last sequence number and the journal file started now, syncs sled, and deletes the
    /// old journal files (keeping damaged ones aside first).
    pub(crate) fn replay_journal(&self, leftover: Leftover) -> Result<()> {
        let replayed = leftover.records.len();
        let mut touched = Vec::new();
        for record in &leftover.records {
            let (Record::Mark { user, item, .. } | Record::Share { user, item, .. }) = record;
            // The account's removal was synced after its changes.
            if !self.t.users.contains_key(user.as_bytes())? {
                continue;
            }
            match apply_change(&self.t, &self.mem, record) {
                Ok(_) | Err(Error::NotFound(_) | Error::Invalid(_)) => {}
                Err(e) => return Err(e),
            }
            if matches!(record, Record::Mark { .. }) {
                touched.push((user.as_str(), item.as_str()));
            }
        }
        self.repair_marks(touched)?;
        leftover.keep_damaged()?;
        self.t
            .meta
            .insert(APPLIED, &keys::u64_value(leftover.last_seq))?;
        self.t.meta.insert(
            CURRENT_FILE,
            &current_file_value(leftover.next_number, leftover.last_seq + 1),
        )?;
        self.sync()?;
        let files = leftover.files.len();
        leftover.remove()?;
        if files > 0 {
            tracing::info!(records = replayed, "replayed the journal");
        }
        Ok(())
    }
}

/// The journal of an open store: appends records and makes them durable on its thread.
pub(crate) struct Journal {
    shared: Arc<Shared>,
    writer: Mutex<Option<JoinHandle<()>>>,
}

struct Shared {
    state: Mutex<State>,
    /// Records were appended, or the store is closing.
    appended: Condvar,
    /// `durable` for async waiters (`u64::MAX` once the journal failed).
    durable_watch: tokio::sync::watch::Sender<u64>,
}

#[derive(Default)]
struct State {
    /// Records appended and not yet handed to the writer, framed...
    buf: Vec<u8>,
    /// ...and as they are, with where their outcomes go.
    pending: Vec<(Record, Arc<Outcome>)>,
    /// Sequence number of the last record appended.
    appended: u64,
    /// Sequence number of the last record on disk and applied.
    durable: u64,
    /// Why the journal can no longer promise durability.
    poisoned: Option<String>,
    closing: bool,
    /// Batches written and synced, for tests and benchmarks of sharing.
    syncs: u64,
}

/// Where the journal thread writes, and what a checkpoint syncs.
struct Writer {
    dir: PathBuf,
    number: u64,
    file: File,
    /// Bytes of records written to the current file.
    len: u64,
    /// The current file's length: zeros after its records (see [`Writer::write`]).
    zeroed: u64,
    checkpoint_bytes: u64,
    db: sled::Db,
    commit: Arc<GroupCommit>,
    trees: Arc<Trees>,
    memory: Arc<Memory>,
}

/// Writes zeros into `file` from `from`, [`ZEROED_AHEAD`] at a time, until they reach
/// `to` (a batch may be longer than what is left of the last ones), and answers where they
/// end.
fn zero_ahead(file: &File, from: u64, to: u64) -> std::io::Result<u64> {
    let mut end = from;
    while end < to {
        file.write_all_at(&ZEROS, end)?;
        end += ZEROED_AHEAD;
    }
    Ok(end)
}

impl Journal {
    /// Starts a new journal file after `leftover`'s in `dir` and the thread that writes it.
    pub(crate) fn start(
        dir: &Path,
        leftover: &Leftover,
        checkpoint_bytes: u64,
        db: sled::Db,
        commit: Arc<GroupCommit>,
        trees: Arc<Trees>,
        memory: Arc<Memory>,
    ) -> Result<Self> {
        let number = leftover.next_number;
        let last = leftover.last_seq;
        let writer = Writer {
            file: create_file(dir, number)?,
            dir: dir.to_path_buf(),
            number,
            len: 0,
            zeroed: FILE_MAGIC.len() as u64,
            checkpoint_bytes,
            db,
            commit,
            trees,
            memory,
        };
        // Numbers go on after every record an earlier run may have acknowledged.
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                appended: last,
                durable: last,
                ..State::default()
            }),
            appended: Condvar::new(),
            durable_watch: tokio::sync::watch::Sender::new(last),
        });
        let thread = {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("radar-journal".into())
                .spawn(move || writer.run(&shared))
                .map_err(io)?
        };
        Ok(Self {
            shared,
            writer: Mutex::new(Some(thread)),
        })
    }

    /// Batches written and synced so far.
    pub(crate) fn syncs(&self) -> u64 {
        self.shared.lock().syncs
    }

    /// Refuses writes once the journal failed, before they are applied.
    pub(crate) fn check(&self) -> Result<()> {
        match &self.shared.lock().poisoned {
            Some(why) => Err(poisoned(why)),
            None => Ok(()),
        }
    }

    /// Appends a change; it is done once the answer says so.
    pub(crate) fn append(self: &Arc<Self>, record: Record) -> Durable {
        let outcome = Arc::new(Outcome::default());
        let mut s = self.shared.lock();
        s.appended += 1;
        let seq = s.appended;
        record.encode(seq, &mut s.buf);
        s.pending.push((record, outcome.clone()));
        drop(s);
        self.shared.appended.notify_one();
        Durable {
            journal: self.clone(),
            record: seq,
            outcome,
        }
    }

    /// Returns once record `n` is on disk and applied; the task waits, not its thread.
    pub(crate) async fn durable(&self, n: u64) -> Result<()> {
        let mut rx = self.shared.durable_watch.subscribe();
        // The sender lives as long as `self`, so this ends.
        let _ = rx.wait_for(|d| *d >= n).await;
        let s = self.shared.lock();
        match &s.poisoned {
            Some(why) if s.durable < n => Err(poisoned(why)),
            _ => Ok(()),
        }
    }
}

impl Drop for Journal {
    /// Writes what is left and checkpoints, so a clean close leaves nothing to replay.
    fn drop(&mut self) {
        self.shared.lock().closing = true;
        self.shared.appended.notify_one();
        if let Some(thread) = self.writer.lock().ok().and_then(|mut w| w.take()) {
            let _ = thread.join();
        }
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Refuses every later change, and answers the waiting ones with the error.
    fn poison(&self, why: String) {
        tracing::error!(error = %why, "the journal failed; restart radar to recover");
        self.lock().poisoned = Some(why);
        self.durable_watch.send_replace(u64::MAX);
    }
}

impl Writer {
    fn run(mut self, shared: &Shared) {
        let mut bytes = Vec::new();
        let mut batch = Vec::new();
        loop {
            let upto = {
                let mut s = shared.lock();
                while s.buf.is_empty() && !s.closing {
                    s = shared
                        .appended
                        .wait(s)
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                }
                if s.buf.is_empty() {
                    break;
                }
                std::mem::swap(&mut s.buf, &mut bytes);
                std::mem::swap(&mut s.pending, &mut batch);
                s.appended
            };
            let outcome = self
                .sync_items()
                .and_then(|()| self.write(&bytes))
                .and_then(|()| self.apply(&batch, upto));
            bytes.clear();
            batch.clear();
            if let Err(why) = outcome {
                shared.poison(why);
                return;
            }
            {
                let mut s = shared.lock();
                s.durable = upto;
                s.syncs += 1;
            }
            shared.durable_watch.send_replace(upto);
            if self.len >= self.checkpoint_bytes
                && let Err(why) = self.checkpoint(Some(upto + 1))
            {
                shared.poison(why);
                return;
            }
        }
        if let Err(why) = self.checkpoint(None) {
            tracing::warn!(error = %why, "the journal was not checkpointed on close; it is replayed on the next open");
        }
    }

    /// Syncs sled when an item a change of this batch names may not be on disk yet (see
    /// the module's docs): called after the batch was taken, so after every change of it
    /// was checked against its item.
    fn sync_items(&self) -> std::result::Result<(), String> {
        if self.commit.items_unsynced() {
            self.commit
                .sync(&self.db)
                .map_err(|e| format!("syncing the items marked: {e}"))?;
        }
        Ok(())
    }

    /// Applies a synced batch to sled in order, records in sled the sequence number
    /// `upto` of its last record after them, and hands each change its outcome.
    fn apply(
        &self,
        batch: &[(Record, Arc<Outcome>)],
        upto: u64,
    ) -> std::result::Result<(), String> {
        let mut outcomes = Vec::with_capacity(batch.len());
        for (record, _) in batch {
            outcomes.push(match apply_change(&self.trees, &self.memory, record) {
                Err(e @ (Error::Storage(_) | Error::Io(_))) => {
                    return Err(format!("applying a change: {e}"));
                }
                outcome => outcome,
            });
        }
        self.trees
            .meta
            .insert(APPLIED, &keys::u64_value(upto))
            .map_err(|e| format!("applying a change: {e}"))?;
        for ((_, slot), outcome) in batch.iter().zip(outcomes) {
            *slot
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(outcome);
        }
        Ok(())
    }

    /// Writes `bytes` after the records of the current file and syncs them.
    ///
    /// Records are written over zeros written ahead of them, [`ZEROED_AHEAD`] at a time,
    /// not appended: `fdatasync` of a write that grows a file must also commit the new
    /// size through the filesystem's journal, a second wait for the disk and for the
    /// filesystem's journal thread (on a busy machine, for a core), while a write over
    /// bytes already on disk syncs the data alone. So only one sync in a megabyte of
    /// records pays for the size. Reading treats the zeros as the end of the records.
    fn write(&mut self, bytes: &[u8]) -> std::result::Result<(), String> {
        let at = FILE_MAGIC.len() as u64 + self.len;
        let end = at + bytes.len() as u64;
        if end > self.zeroed {
            self.zeroed = zero_ahead(&self.file, self.zeroed, end).map_err(|e| e.to_string())?;
        }
        self.file
            .write_all_at(bytes, at)
            .map_err(|e| e.to_string())?;
        self.file.sync_data().map_err(|e| e.to_string())?;
        self.len += bytes.len() as u64;
        Ok(())
    }

    /// Syncs sled, which holds every record written so far, and drops the current file.
    /// With `next`, the sequence number of the next record, later records go to a new
    /// file created first, which sled records as the one that must exist; without, sled
    /// records that none must (a clean close).
    fn checkpoint(&mut self, next: Option<u64>) -> std::result::Result<(), String> {
        let old = file_path(&self.dir, self.number);
        let recorded = match next {
            Some(first) => {
                self.number += 1;
                self.file = create_file(&self.dir, self.number).map_err(|e| e.to_string())?;
                self.len = 0;
                self.zeroed = FILE_MAGIC.len() as u64;
                self.trees
                    .meta
                    .insert(CURRENT_FILE, &current_file_value(self.number, first))
                    .map(drop)
            }
            None => self.trees.meta.remove(CURRENT_FILE).map(drop),
        };
        recorded.map_err(|e| format!("recording the journal file: {e}"))?;
        self.commit
            .sync(&self.db)
            .map_err(|e| format!("syncing the store: {e}"))?;
        std::fs::remove_file(&old).map_err(|e| e.to_string())
    }
}

fn file_path(dir: &Path, number: u64) -> PathBuf {
    dir.join(format!("journal-{number:020}"))
}

/// Creates journal file `number`, private, beginning with [`FILE_MAGIC`], with its
/// folder entry on disk. The magic is synced with the first records written after it.
fn create_file(dir: &Path, number: u64) -> Result<File> {
    let file = OpenOptions::new()
        .create_new(true)
        .write(true)
        .mode(FILE_MODE)
        .open(file_path(dir, number))
        .map_err(io)?;
    file.write_all_at(FILE_MAGIC, 0).map_err(io)?;
    File::open(dir).and_then(|d| d.sync_all()).map_err(io)?;
    Ok(file)
}

fn io(e: std::io::Error) -> Error {
    Error::Io(e)
}

fn poisoned(why: &str) -> Error {
    Error::Unavailable(format!(
        "the journal could not sync to disk ({why}); restart radar to recover"
    ))
}

/// Tests of the journal of marks and shares (its file format, replay after a crash,
/// damage, group commit of its syncs): sled only.
#[cfg(test)]
mod tests {
    use super::*;

    /// The journal record of `user` setting (`on`) or clearing `mark` on `item` at `at`,
    /// as the backend writes it.
    fn mark_record(user: &str, item: &str, mark: Mark, on: bool, at: [u8; 8]) -> Record {
        let change = crate::marks::change_of(mark, on);
        Record::Mark {
            user: user.into(),
            item: item.into(),
            clear: super::super::marks::mask(change.clear),
            set: change.set,
            at,
        }
    }

    fn mark(user: &str, on: bool) -> Record {
        mark_record(user, "item-1", Mark::Favorite, on, [1, 2, 3, 4, 5, 6, 7, 8])
    }

    fn share() -> Record {
        Record::Share {
            user: "u".into(),
            item: "i".into(),
            value: br#"{"platform":"x"}"#.to_vec(),
        }
    }

    /// A journal file of this format holding `records` numbered from `first`, and where
    /// each record starts in it.
    fn file_of(first: u64, records: &[Record]) -> (Vec<u8>, Vec<usize>) {
        let mut bytes = FILE_MAGIC.to_vec();
        let mut starts = Vec::new();
        for (i, r) in records.iter().enumerate() {
            starts.push(bytes.len());
            r.encode(first + i as u64, &mut bytes);
        }
        (bytes, starts)
    }

    fn numbered(first: u64, records: &[Record]) -> Vec<Entry> {
        (first..)
            .zip(records)
            .map(|(n, r)| Entry::Record(Some(n), r.clone()))
            .collect()
    }

    #[test]
    fn records_round_trip_a_cut_tail_is_dropped_and_damage_is_skipped() {
        let records = [mark("a", true), share(), mark("b", false), mark("c", true)];
        let (bytes, starts) = file_of(5, &records);
        let got = parse(&bytes);
        assert_eq!(got.entries, numbered(5, &records));
        assert_eq!(got.cut_short, 0);

        // A crash in the middle of the last record.
        let got = parse(&bytes[..bytes.len() - 3]);
        assert_eq!(got.entries, numbered(5, &records[..3]));
        assert_eq!(got.cut_short, bytes.len() - 3 - starts[3]);

        // A flipped byte in the second record's payload, and in the third one's length:
        // each is skipped alone, the records after it are read.
        for at in [starts[1] + HEAD + 10, starts[2] + 5] {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x40;
            let hit = starts.iter().rposition(|s| *s <= at).unwrap();
            let mut want = numbered(5, &records);
            want[hit] = Entry::Damaged(starts[hit + 1] - starts[hit]);
            assert_eq!(parse(&damaged).entries, want, "byte {at}");
        }

        // A flipped byte in the last record: damage, not a cut tail.
        let mut damaged = bytes.clone();
        damaged[starts[3] + HEAD + 2] ^= 1;
        let got = parse(&damaged);
        assert_eq!(
            got.entries.last(),
            Some(&Entry::Damaged(bytes.len() - starts[3]))
        );
        assert_eq!(got.cut_short, 0);

        // A file created and cut before its magic was written holds nothing.
        assert_eq!(parse(&FILE_MAGIC[..3]), FileContents::default());
    }

    #[test]
    fn records_end_where_the_zeros_written_ahead_of_them_begin() {
        let ends_in_zeros = Record::Share {
            user: "u".into(),
            item: "i".into(),
            value: b"v\0\0".to_vec(),
        };
        let records = [mark("a", true), share(), mark("b", false), ends_in_zeros];
        let (mut bytes, starts) = file_of(5, &records);
        let written = bytes.len();
        bytes.resize(written + 4096, 0);
        let got = parse(&bytes);
        assert_eq!(
            got.entries,
            numbered(5, &records),
            "a record may end with zeros"
        );
        assert_eq!(got.cut_short, 0);

        // A crash cut the write of the last two records: the disk kept the first part
        // of the third and zeros where the rest would be.
        // The cut record's bytes are those up to its last one that is not zero.
        let kept = |cut: &[u8]| cut.iter().rposition(|&b| b != 0).unwrap() + 1 - starts[2];
        let mut cut = bytes.clone();
        cut[starts[2] + HEAD + 4..].fill(0);
        let got = parse(&cut);
        assert_eq!(got.entries, numbered(5, &records[..2]));
        assert_eq!(got.cut_short, kept(&cut));
        assert!(got.cut_short > HEAD);
        // ...or before the header of the third was whole.
        cut[starts[2] + 6..].fill(0);
        let got = parse(&cut);
        assert_eq!(got.entries, numbered(5, &records[..2]));
        assert_eq!(got.cut_short, kept(&cut));
        // ...or at the start of the third: the zeros are the end.
        cut[starts[2]..].fill(0);
        let got = parse(&cut);
        assert_eq!(got.entries, numbered(5, &records[..2]));
        assert_eq!(got.cut_short, 0);

        // A flipped byte in the last record before the zeros is damage, not a cut (when
        // the record ends with zeros, it cannot be told from a cut).
        let (mut damaged, starts) = file_of(5, &records[..3]);
        let written = damaged.len();
        damaged.resize(written + 4096, 0);
        damaged[starts[2] + HEAD + 9] ^= 1;
        let got = parse(&damaged);
        assert_eq!(
            got.entries.last(),
            Some(&Entry::Damaged(written - starts[2]))
        );
        assert_eq!(got.cut_short, 0);

        // A file whose zeros reached the disk before its magic holds nothing.
        assert_eq!(parse(&[0; 64]), FileContents::default());
    }

    #[test]
    fn zeros_are_written_ahead_as_far_as_a_batch_needs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("zeros");
        std::fs::write(&path, b"head").unwrap();
        let file = OpenOptions::new().write(true).open(&path).unwrap();
        let step = ZEROED_AHEAD;
        // Nothing is owed: nothing is written.
        assert_eq!(zero_ahead(&file, 4, 4).unwrap(), 4);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 4);
        assert_eq!(zero_ahead(&file, 4, 5).unwrap(), 4 + step);
        // A batch of two and a half steps gets three.
        let end = zero_ahead(&file, 4 + step, 4 + step + step * 5 / 2).unwrap();
        assert_eq!(end, 4 + 4 * step);
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.len() as u64, end);
        assert_eq!(&bytes[..4], b"head");
        assert!(bytes[4..].iter().all(|&b| b == 0));
    }

    #[test]
    fn files_of_the_first_format_are_read_with_its_framing() {
        let records = [mark("a", true), share(), mark("b", false)];
        let mut bytes = Vec::new();
        let mut starts = Vec::new();
        for r in &records {
            starts.push(bytes.len());
            r.encode_first_format(&mut bytes);
        }
        let all: Vec<_> = records
            .iter()
            .map(|r| Entry::Record(None, r.clone()))
            .collect();
        assert_eq!(parse(&bytes).entries, all);
        let mut damaged = bytes.clone();
        damaged[starts[1] + 9] ^= 0x40;
        assert_eq!(
            parse(&damaged).entries,
            vec![
                all[0].clone(),
                Entry::Damaged(starts[2] - starts[1]),
                all[2].clone()
            ]
        );
    }

    fn meta() -> sled::Tree {
        let db = sled::Config::new().temporary(true).open().unwrap();
        db.open_tree("meta").unwrap()
    }

    #[test]
    fn leftover_files_are_read_in_order_and_the_next_number_follows_them() {
        let dir = tempfile::tempdir().unwrap();
        for (n, user, seq) in [(10, "ten", 2), (9, "nine", 1)] {
            std::fs::write(
                file_path(dir.path(), n),
                file_of(seq, &[mark(user, true)]).0,
            )
            .unwrap();
        }
        std::fs::write(dir.path().join("unrelated"), b"x").unwrap();
        let left = Leftover::read(dir.path(), &meta(), false).unwrap();
        assert_eq!(left.records, vec![mark("nine", true), mark("ten", true)]);
        assert_eq!(left.next_number, 11);
        assert_eq!(left.last_seq, 2);
        left.remove().unwrap();
        assert_eq!(journal_files(dir.path()).unwrap(), vec![]);
    }

    #[test]
    fn only_records_newer_than_sled_are_replayed_and_damage_is_counted() {
        let dir = tempfile::tempdir().unwrap();
        let meta = meta();
        let records: Vec<_> = (0..10).map(|i| mark(&format!("u{i}"), true)).collect();
        let (mut bytes, starts) = file_of(1, &records);
        // Record 4 is damaged; sled holds up to record 2.
        bytes[starts[3] + HEAD + 3] ^= 0x10;
        std::fs::write(file_path(dir.path(), 3), &bytes).unwrap();
        meta.insert(APPLIED, &keys::u64_value(2)).unwrap();
        meta.insert(CURRENT_FILE, &current_file_value(3, 1))
            .unwrap();
        let left = Leftover::read(dir.path(), &meta, false).unwrap();
        let mut want = records[2..].to_vec();
        want.remove(1);
        assert_eq!(left.records, want);
        assert_eq!(left.last_seq, 10);
        assert_eq!(left.damaged.len(), 1);
        let d = &left.damaged[0];
        assert_eq!((d.skipped, d.held, d.at_the_end), (1, 0, false));

        // Sled already holds the damaged record: nothing of it is lost.
        meta.insert(APPLIED, &keys::u64_value(6)).unwrap();
        let left = Leftover::read(dir.path(), &meta, false).unwrap();
        assert_eq!(left.records, records[6..].to_vec());
        assert_eq!((left.damaged[0].skipped, left.damaged[0].held), (1, 1));
    }

    #[test]
    fn a_missing_journal_file_refuses_unless_the_loss_is_accepted() {
        let dir = tempfile::tempdir().unwrap();
        let meta = meta();
        meta.insert(APPLIED, &keys::u64_value(12)).unwrap();
        meta.insert(CURRENT_FILE, &current_file_value(4, 10))
            .unwrap();
        // File 4 is gone, and nothing after it.
        let Err(Error::JournalLoss(why)) = Leftover::read(dir.path(), &meta, false) else {
            panic!("a missing journal file was not noticed");
        };
        assert!(
            why.contains("journal-00000000000000000004 is missing"),
            "{why}"
        );
        assert!(
            why.contains("the database holds 3 of them (up to #12)"),
            "{why}"
        );
        let text = Error::JournalLoss(why).to_string();
        assert!(text.contains("--accept-journal-loss"), "{text}");
        let left = Leftover::read(dir.path(), &meta, true).unwrap();
        assert!(left.records.is_empty());
        assert_eq!(left.last_seq, 12);

        // File 4 is gone and file 5 follows: the gap is counted exactly.
        let (bytes, _) = file_of(20, &[mark("a", true)]);
        std::fs::write(file_path(dir.path(), 5), bytes).unwrap();
        let Err(Error::JournalLoss(why)) = Leftover::read(dir.path(), &meta, false) else {
            panic!("a gap in the journal was not noticed");
        };
        assert!(
            why.contains("7 changes (#13 to #19) are in no journal file"),
            "{why}"
        );
        let left = Leftover::read(dir.path(), &meta, true).unwrap();
        assert_eq!(left.records, vec![mark("a", true)]);
        assert_eq!(left.last_seq, 20);
    }

    mod store {
        use std::sync::Arc;

        use super::super::*;
        use crate::engines::sled::testing::open_sled;
        use crate::items::tests::new_item;
        use crate::testing::crash_copy;
        use crate::{Mark, Options, Store};

        async fn open(dir: &Path) -> (Store, Arc<SledBackend>) {
            open_sled(dir, Options::default()).await.unwrap()
        }

        /// A user and two items; answers the user's id and the items' ids.
        async fn reader(store: &Store) -> (String, Vec<String>) {
            let user = store
                .create_user("j@example.com", "hash".into(), Default::default(), true)
                .await
                .unwrap();
            let items = (0..2)
                .map(|i| new_item(&format!("Item {i}"), None, "2026-03-01T00:00:00Z"))
                .collect::<Vec<_>>();
            let ids = store.upsert_items(items).await.unwrap();
            (user.id, ids.into_iter().map(|u| u.id).collect())
        }

        /// Writes records numbered from `first` as an earlier run that crashed would
        /// have left them.
        fn leave_journal(dir: &Path, first: u64, records: &[Record]) {
            let (bytes, _) = super::file_of(first, records);
            std::fs::write(file_path(&dir.join("journal"), 7), bytes).unwrap();
        }

        /// Sequence number of the last change the store journaled.
        fn last_seq(sled: &SledBackend) -> u64 {
            sled.journal.shared.lock().durable
        }

        fn mark(user: &str, item: &str, m: Mark, on: bool) -> Record {
            super::mark_record(user, item, m, on, keys::time(chrono::Utc::now()))
        }

        /// A record of the first format, as the first versions wrote a mark set or
        /// cleared: its length and checksum, the mark's byte and on or off.
        fn first_format_mark(user: &str, item: &str, m: Mark, on: bool, out: &mut Vec<u8>) {
            let mut payload = vec![MARK, mark_byte(m), u8::from(on)];
            payload.extend_from_slice(&keys::time(chrono::Utc::now()));
            field(&mut payload, user.as_bytes());
            field(&mut payload, item.as_bytes());
            let len = u32::try_from(payload.len()).expect("a journal record is small");
            out.extend_from_slice(&len.to_le_bytes());
            out.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
            out.extend_from_slice(&payload);
        }

        #[tokio::test]
        async fn an_acknowledged_mark_is_in_the_journal_file_before_sled_syncs() {
            let dir = tempfile::tempdir().unwrap();
            let (store, sled) = open(dir.path()).await;
            let (user, items) = reader(&store).await;
            let syncs = sled.syncs();
            store
                .set_mark(&user, &items[0], Mark::Favorite)
                .await
                .unwrap();
            store.record_share(&user, &items[1], "x").await.unwrap();
            assert_eq!(sled.syncs(), syncs, "marks and shares do not sync sled");
            let files = journal_files(&dir.path().join("journal")).unwrap();
            assert_eq!(files.len(), 1);
            let records = parse(&std::fs::read(&files[0].1).unwrap()).entries;
            assert!(
                matches!(&records[0], Entry::Record(Some(_), Record::Mark { item, set: Some(Mark::Favorite), .. }) if *item == items[0])
            );
            assert!(
                matches!(&records[1], Entry::Record(Some(_), Record::Share { item, .. }) if *item == items[1])
            );

            // A clean close folds the journal into sled.
            drop((store, sled));
            let files = journal_files(&dir.path().join("journal")).unwrap();
            assert!(files.is_empty(), "{files:?}");
            let (store, _sled) = open(dir.path()).await;
            assert!(
                store
                    .has_mark(&user, &items[0], Mark::Favorite)
                    .await
                    .unwrap()
            );
            assert!(store.has_shared(&user, &items[1]).await.unwrap());
        }

        #[tokio::test]
        async fn replay_restores_lost_changes_and_does_not_count_applied_ones_twice() {
            let dir = tempfile::tempdir().unwrap();
            let (user, items, first) = {
                let (store, sled) = open(dir.path()).await;
                let r = reader(&store).await;
                let first = last_seq(&sled) + 1;
                // Applied and synced before the crash: favourite, then read.
                store.set_mark(&r.0, &r.1[0], Mark::Favorite).await.unwrap();
                store.set_mark(&r.0, &r.1[0], Mark::Read).await.unwrap();
                (r.0, r.1, first)
            };
            // The crash left in the journal the two changes sled had, and two it lost.
            leave_journal(
                dir.path(),
                first,
                &[
                    mark(&user, &items[0], Mark::Favorite, true),
                    mark(&user, &items[0], Mark::Read, true),
                    mark(&user, &items[1], Mark::Hidden, true),
                    mark(&user, &items[0], Mark::Read, false),
                    mark("a-deleted-user", &items[0], Mark::Favorite, true),
                    mark(&user, "a-removed-item", Mark::Favorite, true),
                ],
            );
            let (store, _sled) = open(dir.path()).await;
            assert!(journal_files(&dir.path().join("journal")).unwrap().len() == 1);
            assert_eq!(
                store.item_marks(&user, &items[0]).await.unwrap(),
                Default::default()
            );
            assert!(
                store
                    .has_mark(&user, &items[1], Mark::Hidden)
                    .await
                    .unwrap()
            );
            let counts = store.mark_counts(&user).await.unwrap();
            let mut want = crate::backend::MarkCounts::default();
            want.add(Mark::Hidden, 1);
            assert_eq!(counts, want);
            assert_eq!(
                store.mark_counts("a-deleted-user").await.unwrap(),
                Default::default()
            );
            // The feed follows the replayed marks.
            let viewer = crate::Viewer {
                user_id: Some(user.clone()),
                subscriber: true,
            };
            let page = store.feed_page(&viewer, None).await.unwrap();
            assert_eq!(page.items.len(), 1);
            assert_eq!(page.items[0].id, items[0]);
        }

        #[tokio::test]
        async fn a_change_sled_kept_in_part_is_completed_and_recounted() {
            let dir = tempfile::tempdir().unwrap();
            let (user, items, next) = {
                let (store, sled) = open(dir.path()).await;
                let r = reader(&store).await;
                store.set_mark(&r.0, &r.1[0], Mark::Hidden).await.unwrap();
                let next = last_seq(&sled) + 1;
                // "Read" on item 1 reached the mark tree, and neither the reverse index
                // nor the counts, when the process died.
                let key = keys::join(r.0.as_bytes(), r.1[1].as_bytes());
                sled.t.userid_read.insert(key, &[0; 8]).unwrap();
                // And "favourite" on item 0 only removed the hidden mark.
                let key = keys::join(r.0.as_bytes(), r.1[0].as_bytes());
                sled.t.userid_hidden.remove(key).unwrap();
                store.flush().await.unwrap();
                (r.0, r.1, next)
            };
            leave_journal(
                dir.path(),
                next,
                &[
                    mark(&user, &items[1], Mark::Read, true),
                    mark(&user, &items[0], Mark::Favorite, true),
                ],
            );
            let (store, _sled) = open(dir.path()).await;
            assert!(store.item_marks(&user, &items[0]).await.unwrap().favorite);
            assert!(store.item_marks(&user, &items[1]).await.unwrap().read);
            let mut want = crate::backend::MarkCounts::default();
            want.add(Mark::Favorite, 1);
            want.add(Mark::Read, 1);
            assert_eq!(store.mark_counts(&user).await.unwrap(), want);
        }

        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn concurrent_writers_share_journal_syncs_and_checkpoints_keep_one_file() {
            let dir = tempfile::tempdir().unwrap();
            let opts = Options {
                journal_checkpoint_bytes: 4096,
                ..Options::default()
            };
            let (store, sled) = open_sled(dir.path(), opts.clone()).await.unwrap();
            let (user, items) = reader(&store).await;
            let writers = 16;
            let each = 40;
            let barrier = Arc::new(tokio::sync::Barrier::new(writers));
            let syncs_before = sled.journal.syncs();
            let handles: Vec<_> = (0..writers)
                .map(|w| {
                    let (store, user, items, barrier) =
                        (store.clone(), user.clone(), items.clone(), barrier.clone());
                    tokio::spawn(async move {
                        barrier.wait().await;
                        for i in 0..each {
                            let mark = [Mark::Favorite, Mark::Read][(w + i) % 2];
                            store.set_mark(&user, &items[i % 2], mark).await.unwrap();
                        }
                    })
                })
                .collect();
            for h in handles {
                h.await.unwrap();
            }
            let syncs = sled.journal.syncs() - syncs_before;
            let writes = (writers * each) as u64;
            assert!(syncs < writes, "{syncs} journal syncs for {writes} writes");
            // A checkpoint runs on the journal's thread after the sync it follows has
            // answered its writers: wait for the one the last writes started.
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
            let mut files = journal_files(&dir.path().join("journal")).unwrap();
            while files.len() > 1 && std::time::Instant::now() < deadline {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                files = journal_files(&dir.path().join("journal")).unwrap();
            }
            assert_eq!(files.len(), 1, "old journal files are removed: {files:?}");
            let mut marks_now = Vec::new();
            for i in &items {
                marks_now.push(store.item_marks(&user, i).await.unwrap());
            }
            let counts = store.mark_counts(&user).await.unwrap();
            drop((store, sled));
            let (store, _sled) = open_sled(dir.path(), opts).await.unwrap();
            for (i, m) in items.iter().zip(&marks_now) {
                assert_eq!(&store.item_marks(&user, i).await.unwrap(), m);
            }
            assert_eq!(store.mark_counts(&user).await.unwrap(), counts);
        }

        /// 300 changes of a reader's marks on ten items, the 150th the only one on an
        /// eleventh; with `sync_after` changes done sled is synced, and the process is
        /// killed after the last. Answers the crashed data directory, the user, the items
        /// and their marks as acknowledged. Call it on a current-thread runtime: sled
        /// opens on this thread, without a background flush.
        async fn three_hundred_changes_then_a_crash(
            dir: &Path,
            sync_after: usize,
        ) -> (PathBuf, String, Vec<String>, Vec<ItemMarks>) {
            super::super::super::lock::NO_BACKGROUND_FLUSH.with(|f| f.set(true));
            let live = dir.join("live");
            let (store, _sled) = open(&live).await;
            let user = store
                .create_user("j@example.com", "hash".into(), Default::default(), true)
                .await
                .unwrap()
                .id;
            let items: Vec<String> = store
                .upsert_items(
                    (0..11).map(|i| new_item(&format!("Item {i}"), None, "2026-03-01T00:00:00Z")),
                )
                .await
                .unwrap()
                .into_iter()
                .map(|u| u.id)
                .collect();
            for i in 0..300 {
                let (item, mark, on) = if i == 149 {
                    (&items[10], Mark::Favorite, true)
                } else {
                    (&items[i % 10], Mark::ALL[(i / 10) % 3], (i / 7) % 2 == 0)
                };
                store.change_mark(&user, item, mark, on).await.unwrap();
                if i + 1 == sync_after {
                    store.flush().await.unwrap();
                }
            }
            let mut marks = Vec::new();
            for i in &items {
                marks.push(store.item_marks(&user, i).await.unwrap());
            }
            let crashed = dir.join("crashed");
            crash_copy(&live, &crashed);
            super::super::super::lock::NO_BACKGROUND_FLUSH.with(|f| f.set(false));
            (crashed, user, items, marks)
        }

        /// Flips a byte in the payload of the `n`th record (from 1) of the only journal
        /// file in `data`.
        fn damage_record(data: &Path, n: usize) -> PathBuf {
            let files = journal_files(&data.join("journal")).unwrap();
            assert_eq!(files.len(), 1, "{files:?}");
            let path = files[0].1.clone();
            let mut bytes = std::fs::read(&path).unwrap();
            let at = (0..bytes.len())
                .filter(|&i| bytes[i..].starts_with(&FRAME_MAGIC))
                .nth(n - 1)
                .unwrap();
            bytes[at + HEAD + 9] ^= 0x20;
            std::fs::write(&path, bytes).unwrap();
            path
        }

        fn kept_aside(data: &Path, damaged: &Path) -> Vec<PathBuf> {
            let name = damaged.file_name().unwrap().to_str().unwrap().to_string();
            std::fs::read_dir(data.join("journal"))
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| {
                    let n = p.file_name().unwrap().to_str().unwrap();
                    n.starts_with(&format!("{name}.damaged-"))
                })
                .collect()
        }

        #[tokio::test]
        async fn a_damaged_record_in_the_middle_loses_nothing_sled_held_and_is_kept_aside() {
            let dir = tempfile::tempdir().unwrap();
            // sled holds the first 230 changes; record 150 of the journal is damaged.
            let (data, user, items, marks) =
                three_hundred_changes_then_a_crash(dir.path(), 230).await;
            let damaged = damage_record(&data, 150);
            let (store, sled) = open(&data).await;
            for (item, want) in items.iter().zip(&marks) {
                assert_eq!(
                    &store.item_marks(&user, item).await.unwrap(),
                    want,
                    "{item}"
                );
            }
            let aside = kept_aside(&data, &damaged);
            assert_eq!(aside.len(), 1, "the damaged file is kept: {aside:?}");
            assert!(!damaged.exists(), "and the journal goes on in a new file");
            // The copy kept aside still holds the damage.
            let contents = parse(&std::fs::read(&aside[0]).unwrap());
            assert!(
                contents
                    .entries
                    .iter()
                    .any(|e| matches!(e, Entry::Damaged(_)))
            );
            drop((store, sled));
            // Opening again replays nothing old over the state.
            let (store, _sled) = open(&data).await;
            for (item, want) in items.iter().zip(&marks) {
                assert_eq!(
                    &store.item_marks(&user, item).await.unwrap(),
                    want,
                    "{item}"
                );
            }
        }

        #[tokio::test]
        async fn a_damaged_record_sled_did_not_hold_is_the_only_change_lost() {
            let dir = tempfile::tempdir().unwrap();
            let (data, user, items, mut marks) =
                three_hundred_changes_then_a_crash(dir.path(), 100).await;
            let damaged = damage_record(&data, 150);
            let (store, _sled) = open(&data).await;
            // Change 150, the eleventh item's favourite, is lost; every other one is kept.
            marks[10] = ItemMarks::default();
            for (item, want) in items.iter().zip(&marks) {
                assert_eq!(
                    &store.item_marks(&user, item).await.unwrap(),
                    want,
                    "{item}"
                );
            }
            assert_eq!(kept_aside(&data, &damaged).len(), 1);
        }

        #[tokio::test]
        async fn damage_at_the_end_of_the_journal_does_not_roll_back_what_sled_held() {
            let dir = tempfile::tempdir().unwrap();
            // sled holds all 300 changes; records 200 to 300 are damaged. Replaying the
            // 199 readable ones over it would take the marks back to change 199.
            let (data, user, items, marks) =
                three_hundred_changes_then_a_crash(dir.path(), 300).await;
            let mut damaged = PathBuf::new();
            for n in 200..=300 {
                damaged = damage_record(&data, n);
            }
            let (store, _sled) = open(&data).await;
            for (item, want) in items.iter().zip(&marks) {
                assert_eq!(
                    &store.item_marks(&user, item).await.unwrap(),
                    want,
                    "{item}"
                );
            }
            assert_eq!(kept_aside(&data, &damaged).len(), 1);
        }

        #[tokio::test]
        async fn a_deleted_journal_refuses_to_open_and_the_loss_can_be_accepted() {
            let dir = tempfile::tempdir().unwrap();
            let (data, user, items, marks) =
                three_hundred_changes_then_a_crash(dir.path(), 230).await;
            std::fs::remove_dir_all(data.join("journal")).unwrap();
            let Err(e) = Store::open(&data, Options::default()).await else {
                panic!("opened without its journal");
            };
            let text = e.to_string();
            assert!(matches!(e, Error::JournalLoss(_)), "{e:?}");
            assert!(text.contains("is missing"), "{text}");
            assert!(text.contains("--accept-journal-loss"), "{text}");
            let accept = Options {
                accept_journal_loss: true,
                ..Options::default()
            };
            let store = Store::open(&data, accept).await.unwrap();
            // What sled held is there: the state after change 230.
            assert_eq!(
                store.item_marks(&user, &items[10]).await.unwrap(),
                marks[10],
                "change 150"
            );
            drop(store);
            // From then on the store opens without the flag.
            drop(open(&data).await);
        }

        #[tokio::test]
        async fn a_journal_of_the_first_format_is_replayed_on_upgrade() {
            let dir = tempfile::tempdir().unwrap();
            let (user, items) = {
                let (store, sled) = open(dir.path()).await;
                let r = reader(&store).await;
                // As the previous version left its store: no sequence numbers in sled.
                sled.t.meta.remove(APPLIED).unwrap();
                sled.t.meta.remove(CURRENT_FILE).unwrap();
                store.flush().await.unwrap();
                r
            };
            let mut bytes = Vec::new();
            first_format_mark(&user, &items[0], Mark::Favorite, true, &mut bytes);
            first_format_mark(&user, &items[1], Mark::Read, true, &mut bytes);
            std::fs::write(file_path(&dir.path().join("journal"), 3), bytes).unwrap();
            let (store, sled) = open(dir.path()).await;
            assert!(
                store
                    .has_mark(&user, &items[0], Mark::Favorite)
                    .await
                    .unwrap()
            );
            assert!(store.has_mark(&user, &items[1], Mark::Read).await.unwrap());
            // New records are numbered after it and replayed after a crash.
            store
                .set_mark(&user, &items[0], Mark::Hidden)
                .await
                .unwrap();
            assert!(last_seq(&sled) >= 1);
        }

        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn async_waiters_are_answered_once_on_disk() {
            let dir = tempfile::tempdir().unwrap();
            let (store, sled) = open(dir.path()).await;
            let (user, items) = reader(&store).await;
            let waits: Vec<_> = (0..64)
                .map(|i| {
                    let (sled, user, item) = (sled.clone(), user.clone(), items[i % 2].clone());
                    tokio::spawn(async move {
                        // A change as the backend journals it.
                        let change =
                            sled.journal
                                .append(mark(&user, &item, Mark::Hidden, i % 3 != 0));
                        let record = change.record;
                        change.on_disk().await?;
                        let durable = sled.journal.shared.lock().durable;
                        assert!(durable >= record, "answered before its record was synced");
                        Ok::<_, crate::Error>(())
                    })
                })
                .collect();
            for w in waits {
                w.await.unwrap().unwrap();
            }
        }
    }
}
