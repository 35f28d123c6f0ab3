//! Dates as operators write them, read the same way wherever they are written: on the
//! command line (`items add --published`, `--until`) and in import files
//! (`published_date`). One reader, so a date one place accepts is never refused by the
//! other.

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};

/// The forms [`parse`] accepts, for error messages.
pub const ACCEPTED: &str =
    "YYYY-MM-DD, YYYY-MM-DD HH:MM[:SS] (UTC) or RFC 3339 such as 2026-11-20T10:00:00Z";

/// Reads a date: RFC 3339 (any offset), `YYYY-MM-DD HH:MM[:SS]` or `YYYY-MM-DDTHH:MM[:SS]`
/// in UTC, or a bare `YYYY-MM-DD` meaning the start of that day UTC (with `end_of_day`,
/// the start of the next day, so that day is included). The error says what was read
/// and which forms are accepted.
pub fn parse(s: &str, end_of_day: bool) -> Result<DateTime<Utc>, String> {
    let t = s.trim();
    if let Ok(at) = DateTime::parse_from_rfc3339(t) {
        return Ok(at.with_timezone(&Utc));
    }
    for format in [
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%d %H:%M",
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%dT%H:%M",
    ] {
        if let Ok(at) = NaiveDateTime::parse_from_str(t, format) {
            return Ok(at.and_utc());
        }
    }
    let day = NaiveDate::parse_from_str(t, "%Y-%m-%d")
        .map_err(|_| format!("{s:?} is not a date; write {ACCEPTED}"))?;
    let day = if end_of_day {
        day.succ_opt()
            .ok_or_else(|| format!("{s:?} is out of range"))?
    } else {
        day
    };
    Ok(day.and_hms_opt(0, 0, 0).expect("midnight exists").and_utc())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> String {
        parse(s, false).unwrap().to_rfc3339()
    }

    #[test]
    fn every_accepted_form_reads_as_utc() {
        assert_eq!(at("2026-11-20"), "2026-11-20T00:00:00+00:00");
        assert_eq!(at(" 2026-11-20 10:00 "), "2026-11-20T10:00:00+00:00");
        assert_eq!(at("2026-11-20 10:00:30"), "2026-11-20T10:00:30+00:00");
        assert_eq!(at("2026-11-20T10:00"), "2026-11-20T10:00:00+00:00");
        assert_eq!(at("2026-11-20T10:00:00Z"), "2026-11-20T10:00:00+00:00");
        assert_eq!(at("2026-11-20T10:00:00+02:00"), "2026-11-20T08:00:00+00:00");
        assert_eq!(
            parse("2027-01-31", true).unwrap().to_rfc3339(),
            "2027-02-01T00:00:00+00:00",
            "a bare day with end_of_day includes that day"
        );
        assert_eq!(
            parse("2027-01-31 10:00", true).unwrap().to_rfc3339(),
            "2027-01-31T10:00:00+00:00",
            "an instant is taken as written"
        );
    }

    #[test]
    fn errors_quote_the_input_and_list_the_forms() {
        for bad in [
            "next week",
            "2026-13-01",
            "20/11/2026",
            "",
            "2026-11-20 25:00",
        ] {
            let e = parse(bad, false).unwrap_err();
            assert!(e.contains(&format!("{bad:?}")), "{e}");
            assert!(e.contains("YYYY-MM-DD") && e.contains("RFC 3339"), "{e}");
        }
    }
}
