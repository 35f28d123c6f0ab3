//! The admin command groups, one module each. Every command builds one
//! `radar_daemon::admin::AdminRequest`, hands it to [`crate::admin_client`] (the running
//! daemon, or the store opened here) and prints the answer: a table by default, the
//! answer's data as JSON with `--json`. Exit status: 0 success, 1 failure (the message on
//! stderr says what was wrong and what to do), 2 usage error.
//!
//! Decisions where the issue left room:
//! - `waitlist approve` grants the subscription and takes the entry off the pending list,
//!   but keeps the entry with its join and approval dates: `waitlist list --all` shows it.
//! - `--until DATE` (grant, approve) includes that whole day: the subscription ends at the
//!   next midnight UTC. `subscribers revoke` also clears a payment customer id, since the
//!   subscriber rule counts one; a complimentary account stays a subscriber (it is config).
//! - `items import` imports every valid record and then exits 1 if any record was invalid,
//!   listing each with its line; running it again is harmless. `feeds fetch` reports every
//!   feed and exits 1 if any failed.
//! - A weekly summary's id is its ISO week (`2026-W47`), so a week has one summary;
//!   `start_date` is Monday 00:00 UTC, `end_date` Sunday 23:59:59 UTC, and `article_count`
//!   the items published in between.
//! - `users delete` also removes the e-mails kept for that address in the outbox.
//! - A `--data` directory without a store is a usage error (exit 2) for the commands that
//!   only read or change what is there; `users create`, `items add|import` and
//!   `feeds add|import-opml` start a store, as `serve` does, and `--create` lets any other.
//! - A reader closing the output pipe early is not a failure: exit 0, nothing on stderr.

pub mod feeds;
pub mod items;
pub mod migrate;
pub mod outbox;
pub mod subscribers;
pub mod summaries;
pub mod users;
pub mod waitlist;

use chrono::{DateTime, Utc};

/// Reads a date for `--until`/`--published`, exactly as imports read `published_date`
/// (see `radar_daemon::admin::dates`): RFC 3339, `YYYY-MM-DD HH:MM` in UTC, or
/// `YYYY-MM-DD` meaning the start of that day UTC (with `end_of_day`, the start of the
/// next day, so the day is included).
pub fn parse_date(s: &str, end_of_day: bool) -> Result<DateTime<Utc>, String> {
    radar_daemon::admin::dates::parse(s, end_of_day)
}

/// `--until DATE`: through the end of that day.
pub fn until_date(s: &str) -> Result<DateTime<Utc>, String> {
    parse_date(s, true)
}

/// `--published DATE`: that instant or the start of that day.
pub fn published_date(s: &str) -> Result<DateTime<Utc>, String> {
    parse_date(s, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_read_as_days_or_instants() {
        assert_eq!(
            until_date("2027-01-31").unwrap().to_rfc3339(),
            "2027-02-01T00:00:00+00:00"
        );
        assert_eq!(
            published_date("2027-01-31").unwrap().to_rfc3339(),
            "2027-01-31T00:00:00+00:00"
        );
        assert_eq!(
            published_date("2027-01-31T10:00:00+02:00")
                .unwrap()
                .to_rfc3339(),
            "2027-01-31T08:00:00+00:00"
        );
        assert!(until_date("next week").is_err());
    }
}
