//! When a feed is next due and whether its host may be asked now: the polling decisions,
//! as small pure functions over plain values, apart from the loop that carries them out
//! (`scheduler`), so that they hold wherever the feeds' state is kept (one process today,
//! leased through a shared backend in a cluster tomorrow).
//!
//! What a source asks for is honoured: `Retry-After` on 429 and 503 (seconds or an HTTP
//! date), `Cache-Control: max-age` on every answer (never polled sooner, up to
//! [`MAX_HONOURED_WAIT`]); every wait gets a random extra of up to [`JITTER`] of itself, so
//! feeds added together drift apart instead of hitting their hosts in step, and no jitter
//! ever makes a poll sooner than the source asked. Each host gets a budget of fetches at
//! once and per minute ([`HostLimits`]).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, NaiveDateTime, Utc};

/// The largest share of a wait added at random.
pub const JITTER: f64 = 0.1;
/// The longest wait a source's `Retry-After` or `max-age` can impose: a feed that asks
/// for a week is still checked daily.
pub const MAX_HONOURED_WAIT: Duration = Duration::from_secs(24 * 3600);
/// The span of the per-minute budget.
const MINUTE: chrono::Duration = chrono::Duration::seconds(60);

/// Reads a `Retry-After` value: a number of seconds, or an HTTP date (IMF-fixdate, RFC 850
/// or asctime) turned into the time left from `now`. A date in the past is no wait.
pub fn retry_after(value: &str, now: DateTime<Utc>) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = http_date(value)?;
    Some((at - now).to_std().unwrap_or(Duration::ZERO))
}

/// Parses the three date forms HTTP allows.
fn http_date(value: &str) -> Option<DateTime<Utc>> {
    if let Ok(d) = DateTime::parse_from_rfc2822(value) {
        return Some(d.with_timezone(&Utc));
    }
    for format in ["%A, %d-%b-%y %H:%M:%S GMT", "%a %b %e %H:%M:%S %Y"] {
        if let Ok(d) = NaiveDateTime::parse_from_str(value, format) {
            return Some(d.and_utc());
        }
    }
    None
}

/// The freshness lifetime a `Cache-Control` header gives (`max-age`, or `s-maxage`, which
/// shared caches use and takes precedence); none when absent or when `no-cache` or
/// `no-store` say the answer is not to be reused.
pub fn max_age(cache_control: &str) -> Option<Duration> {
    let mut max_age = None;
    let mut shared = None;
    for directive in cache_control.split(',') {
        let directive = directive.trim().to_ascii_lowercase();
        let (name, value) = match directive.split_once('=') {
            Some((n, v)) => (
                n.trim().to_string(),
                Some(v.trim().trim_matches('"').to_string()),
            ),
            None => (directive.clone(), None),
        };
        match (name.as_str(), value) {
            ("no-cache" | "no-store", _) => return None,
            ("max-age", Some(v)) => max_age = v.parse::<u64>().ok(),
            ("s-maxage", Some(v)) => shared = v.parse::<u64>().ok(),
            _ => {}
        }
    }
    shared.or(max_age).map(Duration::from_secs)
}

/// How a poll went, as far as scheduling cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A document or a 304; `max_age` from its Cache-Control.
    Fresh {
        /// How long the source says the answer stays fresh.
        max_age: Option<Duration>,
    },
    /// The source asked us to wait (429 or 503), for `retry_after` when it said.
    Refused {
        /// Its `Retry-After`.
        retry_after: Option<Duration>,
    },
    /// Any other failure.
    Failed,
}

/// Why a feed's next poll is when it is (shown by `radar feeds list`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// The polling interval.
    Interval,
    /// The source's `Cache-Control: max-age`.
    MaxAge,
    /// The source's `Retry-After`.
    RetryAfter,
    /// Back-off after failures.
    Backoff,
}

impl Reason {
    /// The word the feed list shows.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Interval => "interval",
            Reason::MaxAge => "max-age",
            Reason::RetryAfter => "retry-after",
            Reason::Backoff => "backoff",
        }
    }
}

/// The wait before the next poll and why, before jitter. `failures` counts this poll when
/// it failed. The source's wish never shortens the interval or the back-off; it only
/// lengthens them, up to [`MAX_HONOURED_WAIT`].
pub fn wait_after(outcome: Outcome, interval: Duration, failures: u32) -> (Duration, Reason) {
    let (base, base_reason) = match outcome {
        Outcome::Fresh { .. } => (interval, Reason::Interval),
        _ => (super::backoff(interval, failures), Reason::Backoff),
    };
    let (asked, asked_reason) = match outcome {
        Outcome::Fresh { max_age } => (max_age, Reason::MaxAge),
        Outcome::Refused { retry_after } => (retry_after, Reason::RetryAfter),
        Outcome::Failed => (None, Reason::Backoff),
    };
    match asked.map(|a| a.min(MAX_HONOURED_WAIT)) {
        Some(a) if a > base => (a, asked_reason),
        _ => (base, base_reason),
    }
}

/// The next due time: `now` plus the wait plus a share of it, `unit` in `[0, 1)` (a
/// random number; 0 gives the wait exactly). Only ever later, never sooner.
pub fn next_due(now: DateTime<Utc>, wait: Duration, unit: f64) -> DateTime<Utc> {
    let extra = wait.mul_f64(JITTER * unit.clamp(0.0, 1.0));
    let total = chrono::Duration::from_std(wait + extra).unwrap_or(chrono::Duration::days(1));
    now + total
}

/// A per-host budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostLimits {
    /// Fetches from one host at the same time.
    pub concurrent: usize,
    /// Fetches from one host started within any minute (0: no limit).
    pub per_minute: usize,
}

/// What a host is doing: fetches under way and when recent ones started.
#[derive(Debug, Default, Clone)]
pub struct HostUse {
    /// Fetches under way.
    pub in_flight: usize,
    /// Start times of the fetches of the last minute, oldest first.
    pub recent: VecDeque<DateTime<Utc>>,
}

/// Whether a host may be asked now. `Err(Some(t))`: not before `t` (the per-minute budget
/// frees a place then); `Err(None)`: when one of its fetches ends.
pub fn admit(
    host: &HostUse,
    now: DateTime<Utc>,
    limits: HostLimits,
    per_minute: bool,
) -> Result<(), Option<DateTime<Utc>>> {
    if host.in_flight >= limits.concurrent.max(1) {
        return Err(None);
    }
    if per_minute && limits.per_minute > 0 {
        let recent: Vec<_> = host.recent.iter().filter(|t| **t > now - MINUTE).collect();
        if recent.len() >= limits.per_minute {
            return Err(Some(*recent[recent.len() - limits.per_minute] + MINUTE));
        }
    }
    Ok(())
}

/// The host of a feed URL, the unit of the budget (lower-case; the URL itself when it has
/// none, so such a feed is a budget of its own).
pub fn host_of(url: &str) -> String {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
        .unwrap_or_else(|| url.to_string())
}

/// Every host's use, shared by the scheduler and the admin commands of one process.
#[derive(Clone)]
pub struct HostBudget {
    limits: HostLimits,
    hosts: Arc<Mutex<HashMap<String, HostUse>>>,
    /// Told when a fetch ends, so a loop waiting for a place looks again.
    freed: Arc<tokio::sync::Notify>,
}

/// A place in a host's budget, given back when dropped.
pub struct HostPermit {
    budget: HostBudget,
    host: String,
}

impl HostBudget {
    /// A budget with these limits for every host.
    pub fn new(limits: HostLimits) -> Self {
        Self {
            limits,
            hosts: Arc::default(),
            freed: Arc::new(tokio::sync::Notify::new()),
        }
    }

    /// The limits.
    pub fn limits(&self) -> HostLimits {
        self.limits
    }

    /// Takes a place for a fetch from `host` if [`admit`] allows it; `per_minute` false
    /// counts the fetch but does not hold it to the per-minute budget (an operator's
    /// explicit `radar feeds fetch`).
    pub fn try_start(
        &self,
        host: &str,
        now: DateTime<Utc>,
        per_minute: bool,
    ) -> Result<HostPermit, Option<DateTime<Utc>>> {
        let mut hosts = self
            .hosts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let h = hosts.entry(host.to_string()).or_default();
        while h.recent.front().is_some_and(|t| *t <= now - MINUTE) {
            h.recent.pop_front();
        }
        admit(h, now, self.limits, per_minute)?;
        h.in_flight += 1;
        h.recent.push_back(now);
        Ok(HostPermit {
            budget: self.clone(),
            host: host.to_string(),
        })
    }

    /// Waits (on the real clock) until a place at `host` is free and takes it.
    pub async fn start(
        &self,
        host: &str,
        clock: &dyn super::Clock,
        per_minute: bool,
    ) -> HostPermit {
        loop {
            let freed = self.freed.notified();
            match self.try_start(host, clock.now(), per_minute) {
                Ok(permit) => return permit,
                Err(until) => {
                    let wait = until
                        .and_then(|t| (t - clock.now()).to_std().ok())
                        .unwrap_or(Duration::from_secs(1))
                        .min(Duration::from_secs(1));
                    tokio::select! {
                        () = freed => {}
                        () = tokio::time::sleep(wait) => {}
                    }
                }
            }
        }
    }

    /// Resolves when a fetch ends somewhere.
    pub fn freed(&self) -> Arc<tokio::sync::Notify> {
        self.freed.clone()
    }
}

impl Drop for HostPermit {
    fn drop(&mut self) {
        let mut hosts = self
            .budget
            .hosts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(h) = hosts.get_mut(&self.host) {
            h.in_flight = h.in_flight.saturating_sub(1);
        }
        drop(hosts);
        self.budget.freed.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn retry_after_reads_seconds_and_every_http_date_form() {
        let now = at("2026-11-20T10:00:00Z");
        assert_eq!(retry_after("120", now), Some(Duration::from_secs(120)));
        assert_eq!(retry_after(" 0 ", now), Some(Duration::ZERO));
        for date in [
            "Fri, 20 Nov 2026 10:02:00 GMT",
            "Friday, 20-Nov-26 10:02:00 GMT",
            "Fri Nov 20 10:02:00 2026",
        ] {
            assert_eq!(
                retry_after(date, now),
                Some(Duration::from_secs(120)),
                "{date}"
            );
        }
        assert_eq!(
            retry_after("Fri, 20 Nov 2026 09:00:00 GMT", now),
            Some(Duration::ZERO),
            "a date passed is no wait"
        );
        assert_eq!(retry_after("soon", now), None);
        assert_eq!(retry_after("-5", now), None);
    }

    #[test]
    fn max_age_is_read_and_no_cache_means_none() {
        assert_eq!(
            max_age("public, max-age=3600"),
            Some(Duration::from_secs(3600))
        );
        assert_eq!(
            max_age("max-age=60, s-maxage=7200"),
            Some(Duration::from_secs(7200))
        );
        assert_eq!(max_age("MAX-AGE=\"90\""), Some(Duration::from_secs(90)));
        assert_eq!(max_age("no-cache, max-age=3600"), None);
        assert_eq!(max_age("private"), None);
        assert_eq!(max_age("max-age=abc"), None);
    }

    #[test]
    fn the_wait_honours_the_source_but_never_shortens_ours() {
        let interval = Duration::from_secs(1800);
        let fresh = |s| Outcome::Fresh {
            max_age: Some(Duration::from_secs(s)),
        };
        assert_eq!(
            wait_after(Outcome::Fresh { max_age: None }, interval, 0),
            (interval, Reason::Interval)
        );
        assert_eq!(
            wait_after(fresh(7200), interval, 0),
            (Duration::from_secs(7200), Reason::MaxAge)
        );
        assert_eq!(
            wait_after(fresh(60), interval, 0),
            (interval, Reason::Interval),
            "a short max-age does not make us poll more often"
        );
        assert_eq!(
            wait_after(fresh(365 * 86400), interval, 0),
            (MAX_HONOURED_WAIT, Reason::MaxAge),
            "within sane bounds"
        );
        let refused = |s| Outcome::Refused {
            retry_after: Some(Duration::from_secs(s)),
        };
        let short = Duration::from_secs(1);
        assert_eq!(
            wait_after(refused(120), short, 1),
            (Duration::from_secs(120), Reason::RetryAfter)
        );
        assert_eq!(
            wait_after(refused(120), interval, 1),
            (interval * 2, Reason::Backoff),
            "a Retry-After shorter than the back-off waits the back-off"
        );
        assert_eq!(
            wait_after(Outcome::Refused { retry_after: None }, interval, 2),
            (interval * 4, Reason::Backoff)
        );
        assert_eq!(
            wait_after(Outcome::Failed, interval, 1),
            (interval * 2, Reason::Backoff)
        );
    }

    #[test]
    fn jitter_only_ever_adds_up_to_a_tenth() {
        let now = at("2026-11-20T10:00:00Z");
        let wait = Duration::from_secs(120);
        assert_eq!(
            next_due(now, wait, 0.0),
            now + chrono::Duration::seconds(120)
        );
        let latest = next_due(now, wait, 0.999_999);
        assert!(latest > now + chrono::Duration::seconds(131));
        assert!(latest <= now + chrono::Duration::seconds(132));
        for unit in [0.1, 0.5, 0.9] {
            let due = next_due(now, wait, unit);
            assert!(
                due >= now + chrono::Duration::seconds(120)
                    && due < latest + chrono::Duration::seconds(1)
            );
        }
    }

    #[test]
    fn a_host_gets_its_budget_and_no_more() {
        let limits = HostLimits {
            concurrent: 2,
            per_minute: 3,
        };
        let now = at("2026-11-20T10:00:00Z");
        let mut host = HostUse::default();
        assert_eq!(admit(&host, now, limits, true), Ok(()));
        host.in_flight = 2;
        assert_eq!(admit(&host, now, limits, true), Err(None), "two at once");
        host.in_flight = 0;
        host.recent = [
            now,
            now + chrono::Duration::seconds(10),
            now + chrono::Duration::seconds(20),
        ]
        .into_iter()
        .collect();
        let later = now + chrono::Duration::seconds(30);
        assert_eq!(
            admit(&host, later, limits, true),
            Err(Some(now + MINUTE)),
            "three in the minute: the next when the first is a minute old"
        );
        assert_eq!(
            admit(&host, later, limits, false),
            Ok(()),
            "an operator's fetch"
        );
        assert_eq!(
            admit(
                &host,
                now + MINUTE + chrono::Duration::seconds(1),
                limits,
                true
            ),
            Ok(())
        );
    }

    #[test]
    fn permits_count_in_flight_fetches_per_host() {
        let budget = HostBudget::new(HostLimits {
            concurrent: 1,
            per_minute: 0,
        });
        let now = at("2026-11-20T10:00:00Z");
        let a = budget.try_start("a.example", now, true).ok().unwrap();
        assert!(budget.try_start("a.example", now, true).is_err());
        let b = budget.try_start("b.example", now, true);
        assert!(b.is_ok(), "another host has its own budget");
        drop(a);
        assert!(budget.try_start("a.example", now, true).is_ok());
        assert_eq!(
            host_of("https://Feeds.Example.com:8443/rss"),
            "feeds.example.com"
        );
    }
}
