//! The generic cell rate algorithm (GCRA) behind the sign-in limiter and the mail pace,
//! as one pure step that any backend applies to the one instant it keeps per key: in
//! memory, or in a database row updated in one statement.
//!
//! A key is allowed one event per `interval` on average with bursts of up to `burst`.
//! Its state is the theoretical arrival time (TAT) of the next event: an event at `now`
//! passes when `TAT - now <= (burst - 1) * interval`, and moves the TAT to
//! `max(TAT, now) + interval`; otherwise it is refused without changing anything, and
//! the caller waits `TAT - now - (burst - 1) * interval`.

use std::time::Duration;

use chrono::{DateTime, Utc};

/// One GCRA decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gcra {
    /// Let through; store this TAT.
    Pass(DateTime<Utc>),
    /// Refused; the next event may pass after this long.
    Wait(Duration),
}

impl Gcra {
    /// Decides an event at `now` for a key whose stored TAT is `tat` (none for a key
    /// not seen, or forgotten).
    pub fn step(
        tat: Option<DateTime<Utc>>,
        interval: Duration,
        burst: u32,
        now: DateTime<Utc>,
    ) -> Self {
        let interval = chrono::Duration::from_std(interval).unwrap_or(chrono::Duration::MAX);
        let tolerance = interval * i32::try_from(burst.max(1) - 1).unwrap_or(i32::MAX);
        let tat = tat.filter(|t| *t > now).unwrap_or(now);
        let ahead = tat - now;
        if ahead > tolerance {
            let wait = (ahead - tolerance).to_std().unwrap_or(Duration::ZERO);
            Self::Wait(wait)
        } else {
            Self::Pass(tat + interval)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_700_000_000 + secs, 0).unwrap()
    }

    #[test]
    fn a_burst_passes_then_one_per_interval() {
        let minute = Duration::from_secs(60);
        let mut tat = None;
        for _ in 0..3 {
            match Gcra::step(tat, minute / 3, 3, at(0)) {
                Gcra::Pass(t) => tat = Some(t),
                Gcra::Wait(w) => panic!("refused within the burst, wait {w:?}"),
            }
        }
        assert_eq!(
            Gcra::step(tat, minute / 3, 3, at(0)),
            Gcra::Wait(Duration::from_secs(20))
        );
        assert!(matches!(
            Gcra::step(tat, minute / 3, 3, at(20)),
            Gcra::Pass(_)
        ));
    }

    #[test]
    fn a_pace_of_one_allows_one_per_interval() {
        let minute = Duration::from_secs(60);
        let Gcra::Pass(tat) = Gcra::step(None, minute, 1, at(0)) else {
            panic!("the first passes")
        };
        assert_eq!(
            Gcra::step(Some(tat), minute, 1, at(1)),
            Gcra::Wait(Duration::from_secs(59))
        );
        assert!(matches!(
            Gcra::step(Some(tat), minute, 1, at(60)),
            Gcra::Pass(_)
        ));
    }
}
