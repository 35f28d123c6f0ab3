//! Every byte layout of the store's keys, in one place.
//!
//! Integers are big-endian so that sled's byte order is numeric order. Variable-length
//! parts are joined by `0xff`, a byte that never occurs in UTF-8, so a user id can never
//! run into an item id. Newest-first listings walk a range in reverse rather than storing
//! inverted times, which keeps one key usable in both directions.

use chrono::{DateTime, TimeZone, Utc};

/// Separator between variable-length key parts; never valid inside UTF-8.
pub(crate) const SEP: u8 = 0xff;

/// An instant as 8 bytes whose byte order is time order, before and after 1970.
///
/// Milliseconds since the epoch as i64 with the sign bit flipped: negative times sort
/// below positive ones, and big-endian bytes keep numeric order.
pub(crate) fn time(t: DateTime<Utc>) -> [u8; 8] {
    time_ms(t.timestamp_millis())
}

/// Inverse of [`time`].
pub(crate) fn time_from(bytes: &[u8]) -> Option<DateTime<Utc>> {
    Utc.timestamp_millis_opt(time_ms_from(bytes)?).single()
}

/// [`time`] of an instant given in milliseconds since the epoch.
pub(crate) fn time_ms(ms: i64) -> [u8; 8] {
    (ms.cast_unsigned() ^ (1 << 63)).to_be_bytes()
}

/// Inverse of [`time_ms`]: the milliseconds of a key's first 8 bytes.
pub(crate) fn time_ms_from(bytes: &[u8]) -> Option<i64> {
    let raw: [u8; 8] = bytes.get(..8)?.try_into().ok()?;
    Some((u64::from_be_bytes(raw) ^ (1 << 63)).cast_signed())
}

/// `published_itemid` key: time(published) ++ item id. Equal times fall back to id order.
pub(crate) fn published(t: DateTime<Utc>, item_id: &str) -> Vec<u8> {
    let mut k = time(t).to_vec();
    k.extend_from_slice(item_id.as_bytes());
    k
}

/// The item id inside a `published_itemid` key.
pub(crate) fn published_item_id(key: &[u8]) -> Option<&str> {
    std::str::from_utf8(key.get(8..)?).ok()
}

/// `title_itemid` key: lower-cased title (first 256 bytes on a char boundary, NULs
/// dropped) ++ 0x00 ++ item id.
///
/// The separator here is 0x00, below every byte of a title, so a title sorts before its
/// extensions ("story 1" before "story 11"); with [`SEP`] it would sort after them.
pub(crate) fn title(title: &str, item_id: &str) -> Vec<u8> {
    let folded: String = title
        .to_lowercase()
        .chars()
        .filter(|c| *c != '\0')
        .collect();
    let mut end = folded.len().min(256);
    while !folded.is_char_boundary(end) {
        end -= 1;
    }
    let mut k = Vec::with_capacity(end + 1 + item_id.len());
    k.extend_from_slice(&folded.as_bytes()[..end]);
    k.push(0);
    k.extend_from_slice(item_id.as_bytes());
    k
}

/// The item id inside a `title_itemid` key.
pub(crate) fn title_item_id(key: &[u8]) -> Option<&str> {
    let at = key.iter().rposition(|b| *b == 0)?;
    std::str::from_utf8(&key[at + 1..]).ok()
}

/// The last SEP-separated part of a key (the item id of `title_itemid`, `userid_*` keys).
pub(crate) fn last_part(key: &[u8]) -> Option<&str> {
    let at = key.iter().rposition(|b| *b == SEP)?;
    std::str::from_utf8(&key[at + 1..]).ok()
}

/// `a ++ SEP ++ b`.
pub(crate) fn join(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(a.len() + 1 + b.len());
    k.extend_from_slice(a);
    k.push(SEP);
    k.extend_from_slice(b);
    k
}

/// The prefix of every key that belongs to one owner (user, session, key): `owner ++ SEP`.
pub(crate) fn prefix(owner: &str) -> Vec<u8> {
    let mut k = owner.as_bytes().to_vec();
    k.push(SEP);
    k
}

/// `owner ++ SEP ++ time ++ id`: per-owner lists ordered by time (shares, outbox).
pub(crate) fn owner_time(owner: &str, t: DateTime<Utc>, id: &str) -> Vec<u8> {
    let mut k = prefix(owner);
    k.extend_from_slice(&time(t));
    k.extend_from_slice(id.as_bytes());
    k
}

/// A u64 counter value.
pub(crate) fn u64_value(v: u64) -> [u8; 8] {
    v.to_be_bytes()
}

/// Inverse of [`u64_value`]; a missing or short value reads as 0.
pub(crate) fn u64_from(bytes: Option<&[u8]>) -> u64 {
    bytes
        .and_then(|b| b.get(..8))
        .and_then(|b| b.try_into().ok())
        .map_or(0, u64::from_be_bytes)
}

/// Tests of the key layouts of sled's trees: sled only.
/// The start of every `userid_reads` key of one reader: reader id ++ SEP.
pub(crate) fn reads_prefix(reader: &str) -> Vec<u8> {
    let mut k = reader.as_bytes().to_vec();
    k.push(SEP);
    k
}

/// `userid_reads` key: reader id ++ SEP ++ time(at) ++ item id, so one reader's reads
/// from a time on are one range.
pub(crate) fn read_of(reader: &str, at: DateTime<Utc>, item: &str) -> Vec<u8> {
    let mut k = reads_prefix(reader);
    k.extend_from_slice(&time(at));
    k.extend_from_slice(item.as_bytes());
    k
}

/// The time and item id of a `userid_reads` key, after its reader prefix.
pub(crate) fn read_parts(rest: &[u8]) -> Option<(DateTime<Utc>, &str)> {
    Some((time_from(rest)?, std::str::from_utf8(rest.get(8..)?).ok()?))
}

/// `readat_userid` key: time(at) ++ reader id ++ SEP ++ item id, so every reader's reads
/// of a window of time are one range.
pub(crate) fn read_at(at: DateTime<Utc>, reader: &str, item: &str) -> Vec<u8> {
    let mut k = time(at).to_vec();
    k.extend_from_slice(reader.as_bytes());
    k.push(SEP);
    k.extend_from_slice(item.as_bytes());
    k
}

/// The read a `readat_userid` key names.
pub(crate) fn read_event(key: &[u8]) -> Option<crate::backend::ReadEvent> {
    let at = time_from(key)?;
    let rest = key.get(8..)?;
    let sep = rest.iter().position(|b| *b == SEP)?;
    Some(crate::backend::ReadEvent {
        reader: std::str::from_utf8(&rest[..sep]).ok()?.to_string(),
        item: std::str::from_utf8(&rest[sep + 1..]).ok()?.to_string(),
        at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn time_round_trips_before_and_after_the_epoch() {
        for s in [
            "1969-07-20T20:17:00Z",
            "1970-01-01T00:00:00Z",
            "2026-11-22T10:00:00.123Z",
        ] {
            assert_eq!(time_from(&time(at(s))), Some(at(s)));
        }
    }

    #[test]
    fn time_order_is_byte_order_across_years() {
        let times = [
            at("1950-01-01T00:00:00Z"),
            at("1969-12-31T23:59:59Z"),
            at("1970-01-01T00:00:00Z"),
            at("1999-12-31T23:59:59Z"),
            at("2000-01-01T00:00:00Z"),
            at("2025-12-31T23:59:59.999Z"),
            at("2026-01-01T00:00:00Z"),
            at("2100-06-01T00:00:00Z"),
        ];
        for pair in times.windows(2) {
            assert!(time(pair[0]) < time(pair[1]), "{} !< {}", pair[0], pair[1]);
            assert!(published(pair[0], "zzz") < published(pair[1], "aaa"));
        }
        let t = at("2026-03-01T00:00:00Z");
        assert!(time(t) < time(t + Duration::milliseconds(1)));
    }

    #[test]
    fn equal_times_order_by_id() {
        let t = at("2026-03-01T00:00:00Z");
        assert!(published(t, "a1") < published(t, "b0"));
        assert_eq!(published_item_id(&published(t, "item-7")), Some("item-7"));
    }

    #[test]
    fn separated_parts_do_not_run_together() {
        // "ab"+"c" and "a"+"bc" must be different keys, and a user's prefix must not
        // cover another user whose id starts with it.
        assert_ne!(join(b"ab", b"c"), join(b"a", b"bc"));
        assert!(!join(b"user10", b"x").starts_with(&prefix("user1")));
        assert_eq!(last_part(&join(b"user", b"item-1")), Some("item-1"));
    }

    #[test]
    fn title_keys_sort_case_insensitively_and_truncate_on_char_boundary() {
        assert!(title("apple", "2") < title("Banana", "1"));
        assert!(
            title("story 1", "z") < title("Story 11", "a"),
            "a title sorts before its extensions"
        );
        assert_eq!(title_item_id(&title("a\0b", "id-1")), Some("id-1"));
        let long = "é".repeat(300);
        let k = title(&long, "id");
        assert_eq!(title_item_id(&k), Some("id"));
        assert!(k.len() <= 256 + 1 + 2);
    }

    #[test]
    fn counters_round_trip() {
        assert_eq!(u64_from(Some(&u64_value(42))), 42);
        assert_eq!(u64_from(None), 0);
    }
}
