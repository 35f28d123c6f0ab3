//! ISO weeks: `2026-W47` runs from Monday 00:00 UTC to the next Monday 00:00 UTC.

use chrono::{DateTime, Datelike, Duration, NaiveDate, TimeZone, Utc, Weekday};

/// One ISO week.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Week {
    /// ISO week-numbering year.
    pub year: i32,
    /// 1 to 53.
    pub week: u32,
}

impl Week {
    /// Parses `YYYY-Www` (also `YYYY-ww`, `YYYYWww`, any case).
    pub fn parse(s: &str) -> Result<Week, String> {
        let bad = || format!("{s:?} is not an ISO week; write it as YYYY-Www, e.g. 2026-W47");
        let t = s.trim().to_ascii_uppercase();
        let (y, w) = t
            .split_once("-W")
            .or_else(|| t.split_once('W'))
            .or_else(|| t.split_once('-'))
            .ok_or_else(bad)?;
        let year: i32 = y.trim_end_matches('-').parse().map_err(|_| bad())?;
        let week: u32 = w.parse().map_err(|_| bad())?;
        if !(1000..=9999).contains(&year) {
            return Err(bad());
        }
        NaiveDate::from_isoywd_opt(year, week, Weekday::Mon).ok_or_else(|| {
            format!("{year} has no ISO week {week} (weeks run from 1 to 52 or 53)")
        })?;
        Ok(Week { year, week })
    }

    /// The week containing an instant.
    pub fn containing(t: DateTime<Utc>) -> Week {
        let iso = t.date_naive().iso_week();
        Week {
            year: iso.year(),
            week: iso.week(),
        }
    }

    /// The last full week before the one containing `now`.
    pub fn previous(now: DateTime<Utc>) -> Week {
        Week::containing(now - Duration::days(7))
    }

    /// Monday 00:00 UTC.
    pub fn start(&self) -> DateTime<Utc> {
        let monday = NaiveDate::from_isoywd_opt(self.year, self.week, Weekday::Mon)
            .expect("weeks are validated when made");
        Utc.from_utc_datetime(&monday.and_hms_opt(0, 0, 0).expect("midnight exists"))
    }

    /// The next Monday 00:00 UTC (the end, exclusive).
    pub fn end(&self) -> DateTime<Utc> {
        self.start() + Duration::days(7)
    }

    /// The last instant of the week (Sunday 23:59:59 UTC), as summaries' `end_date`.
    pub fn last_second(&self) -> DateTime<Utc> {
        self.end() - Duration::seconds(1)
    }

    /// `2026-W47`: also the id of the week's summary.
    pub fn label(&self) -> String {
        format!("{}-W{:02}", self.year, self.week)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn parses_iso_weeks_and_refuses_impossible_ones() {
        let w = Week::parse("2026-W47").unwrap();
        assert_eq!(
            w,
            Week {
                year: 2026,
                week: 47
            }
        );
        assert_eq!(w.start(), at("2026-11-16T00:00:00Z"));
        assert_eq!(w.end(), at("2026-11-23T00:00:00Z"));
        assert_eq!(w.last_second(), at("2026-11-22T23:59:59Z"));
        assert_eq!(Week::parse("2026w47").unwrap(), w);
        assert_eq!(Week::parse("2026-47").unwrap(), w);
        assert_eq!(w.label(), "2026-W47");
        assert_eq!(Week::parse("2026-W05").unwrap().label(), "2026-W05");
        assert!(Week::parse("2026-W54").is_err());
        assert!(Week::parse("2025-W53").is_err(), "2025 has 52 ISO weeks");
        assert!(Week::parse("2020-W53").is_ok(), "2020 has 53");
        assert!(Week::parse("last week").is_err());
        assert!(Week::parse("2026-W0").is_err());
    }

    #[test]
    fn weeks_cross_year_boundaries_as_iso_says() {
        // 2027-01-01 is a Friday: it belongs to 2026-W53.
        assert_eq!(
            Week::containing(at("2027-01-01T12:00:00Z")).label(),
            "2026-W53"
        );
        assert_eq!(
            Week::parse("2026-W01").unwrap().start(),
            at("2025-12-29T00:00:00Z")
        );
    }

    #[test]
    fn previous_is_the_last_full_week() {
        // Sunday night and the following Monday morning.
        assert_eq!(
            Week::previous(at("2026-11-22T23:00:00Z")).label(),
            "2026-W46"
        );
        assert_eq!(
            Week::previous(at("2026-11-23T00:30:00Z")).label(),
            "2026-W47"
        );
    }
}
