//! The content pipeline: scheduler → fetch → parse → clean → store. Nothing here knows
//! about HTTP handlers; the daemon's scheduler and the admin commands both call
//! [`fetch_feed`].

pub mod clean;
pub mod encoding;
pub mod fetch;
pub mod lenient;
pub mod opml;
pub mod parse;
pub mod schedule;
pub mod scheduler;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, Utc};
use clap::builder::TypedValueParser as _;
use radar_store::{ImportStatus, NewItem, Store};
use serde::{Deserialize, Serialize};
use tokio::sync::watch;

use fetch::{FetchError, Fetched};
use schedule::{HostBudget, HostLimits, Outcome};

/// Settings of the content pipeline (flattened into `radar serve`).
#[derive(Debug, Clone, clap::Args)]
pub struct IngestConfig {
    /// How often every feed is polled: `30m`, `2h`, `45s` (a bare number is seconds).
    #[arg(long, env = "RADAR_FEED_INTERVAL", default_value = "30m", value_parser = crate::config::parse_duration)]
    pub feed_interval: Duration,

    /// How long one feed fetch may take before it counts as failed: `20s`.
    #[arg(long, env = "RADAR_FEED_TIMEOUT", default_value = "20s", value_parser = crate::config::parse_duration)]
    pub feed_timeout: Duration,

    /// Do not poll feeds in the background (fetch them with `radar feeds fetch`).
    #[arg(long, env = "RADAR_NO_FEED_POLLING")]
    pub no_feed_polling: bool,

    /// Most fetches from one host at the same time (polling and `radar feeds fetch`).
    #[arg(long, env = "RADAR_FEED_HOST_CONCURRENCY", default_value_t = DEFAULT_HOST_LIMITS.concurrent, value_parser = clap::value_parser!(u16).range(1..).map(usize::from))]
    pub feed_host_concurrency: usize,

    /// Most polls of one host started in any minute (0: no limit). `radar feeds fetch`
    /// counts towards it but is not held to it.
    #[arg(long, env = "RADAR_FEED_HOST_PER_MINUTE", default_value_t = DEFAULT_HOST_LIMITS.per_minute)]
    pub feed_host_per_minute: usize,

    /// Write the previous ISO week's summary once that week is over (checked at start and
    /// hourly); a summary removed by hand is not written again.
    #[arg(long, env = "RADAR_SUMMARY_SCHEDULE")]
    pub summary_schedule: bool,

    /// How often all readers' reads of the week are counted for the Insights tab (one
    /// process of a cluster counts each time): `10m`, `1s`.
    #[arg(long, env = "RADAR_READING_TOTALS_EVERY", default_value = "10m", value_parser = crate::config::parse_duration)]
    pub reading_totals_every: Duration,
}

impl Default for IngestConfig {
    fn default() -> Self {
        Self {
            feed_interval: DEFAULT_INTERVAL,
            feed_timeout: DEFAULT_TIMEOUT,
            no_feed_polling: false,
            feed_host_concurrency: DEFAULT_HOST_LIMITS.concurrent,
            feed_host_per_minute: DEFAULT_HOST_LIMITS.per_minute,
            summary_schedule: false,
            reading_totals_every: DEFAULT_READING_TOTALS_EVERY,
        }
    }
}

impl IngestConfig {
    /// The per-host budget these settings give.
    pub fn host_limits(&self) -> HostLimits {
        HostLimits {
            concurrent: self.feed_host_concurrency.max(1),
            per_minute: self.feed_host_per_minute,
        }
    }
}

/// How often reads are counted by default.
pub const DEFAULT_READING_TOTALS_EVERY: Duration = Duration::from_secs(600);

/// The default per-host budget: two fetches at once, twelve polls a minute (a host
/// serving many feeds is polled at a steady pace rather than all at once).
pub const DEFAULT_HOST_LIMITS: HostLimits = HostLimits {
    concurrent: 2,
    per_minute: 12,
};

/// Where polling reads the time. The scheduler decides every due time and budget by it,
/// so tests can move time forward instead of waiting.
pub trait Clock: Send + Sync {
    /// Now.
    fn now(&self) -> DateTime<Utc>;
}

/// The system's clock.
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// What every fetch of a process shares: the polling interval, the clock and the hosts'
/// budget.
#[derive(Clone)]
pub struct Polling {
    /// The polling interval (a fetched feed's next due time is this after it, or later).
    pub interval: Duration,
    /// The clock.
    pub clock: Arc<dyn Clock>,
    /// The per-host budget.
    pub hosts: HostBudget,
}

impl Polling {
    /// Polling with the system clock.
    pub fn new(interval: Duration, limits: HostLimits) -> Self {
        Self {
            interval,
            clock: Arc::new(SystemClock),
            hosts: HostBudget::new(limits),
        }
    }
}

/// Default polling interval.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(30 * 60);
/// Default fetch timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(20);
/// Longest wait between two polls of a failing feed.
pub const MAX_BACKOFF: Duration = Duration::from_secs(24 * 3600);

/// The wait before the next poll after `failures` consecutive failures: the interval,
/// doubled for each failure, at most a day (or the interval itself if that is longer).
pub fn backoff(interval: Duration, failures: u32) -> Duration {
    let factor = 1u32.checked_shl(failures.min(16)).unwrap_or(u32::MAX);
    interval
        .saturating_mul(factor)
        .min(MAX_BACKOFF.max(interval))
}

/// Feeds being fetched right now, shared by the scheduler and the admin commands so one
/// feed is never fetched twice at once. Each entry carries the fetch's outcome once it is
/// known, so `radar feeds fetch` on a feed the scheduler is fetching waits for that fetch
/// and reports what it stored, instead of returning before the items are there.
#[derive(Clone, Default)]
pub struct InFlight(Arc<Mutex<HashMap<String, watch::Receiver<Option<FetchReport>>>>>);

/// Holds a feed's place in [`InFlight`]; dropping it frees the feed. Those waiting for
/// the fetch get its report from [`InFlightGuard::finish`].
pub struct InFlightGuard {
    set: InFlight,
    id: String,
    done: watch::Sender<Option<FetchReport>>,
}

/// What [`InFlight::claim`] found.
pub enum Claim {
    /// The feed was free and is ours to fetch now.
    Mine(InFlightGuard),
    /// Another task is fetching it: its report arrives here (the channel closes without
    /// one when that fetch was abandoned).
    Running(watch::Receiver<Option<FetchReport>>),
}

impl InFlight {
    /// Whether a feed is being fetched right now.
    pub fn contains(&self, id: &str) -> bool {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .contains_key(id)
    }

    /// Claims a feed, or answers where the running fetch's report will come.
    pub fn claim(&self, id: &str) -> Claim {
        let mut set = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(running) = set.get(id) {
            return Claim::Running(running.clone());
        }
        let (done, report) = watch::channel(None);
        set.insert(id.to_string(), report);
        Claim::Mine(InFlightGuard {
            set: self.clone(),
            id: id.to_string(),
            done,
        })
    }
}

impl InFlightGuard {
    /// Hands the fetch's report to whoever waits for it, and frees the feed.
    pub fn finish(self, report: &FetchReport) {
        self.done.send_replace(Some(report.clone()));
    }
}

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        self.set
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&self.id);
    }
}

/// What [`fetch_feed`] does when the feed is already being fetched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IfRunning {
    /// Answer `busy` at once (the scheduler: the running fetch sets the next due time).
    Skip,
    /// Wait for the running fetch and answer its report, marked `joined` (an operator's
    /// `radar feeds fetch`: when it returns, what the feed holds is stored).
    Wait,
}

/// What one fetch of one feed did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FetchReport {
    /// The feed.
    pub feed_id: String,
    /// Its URL.
    pub url: String,
    /// `ok`, `not_modified`, `busy` (already being fetched, for [`IfRunning::Skip`]) or
    /// `error`.
    pub status: String,
    /// New items.
    pub added: usize,
    /// Items whose content changed.
    pub updated: usize,
    /// Entries already stored as they are.
    pub unchanged: usize,
    /// Entries that could not become items (no usable title or URL...).
    pub invalid: usize,
    /// What went wrong, for `error` (and the first invalid entry's reason otherwise).
    #[serde(default)]
    pub error: Option<String>,
    /// This is the report of a fetch that was already running when this one was asked
    /// for (by the scheduler or another command); it was waited for, not repeated.
    #[serde(default)]
    pub joined: bool,
}

/// Fetches one feed, stores its entries and records the outcome on the feed (validators,
/// error, failures, next due time and why). Never fails: failures are in the report. A
/// feed already being fetched is skipped or waited for, as `if_running` says. The fetch
/// holds a place in its host's budget: `host` when the caller took it (the scheduler),
/// else one is waited for here (an operator's fetch, not held to the per-minute budget).
#[allow(clippy::too_many_arguments)]
pub async fn fetch_feed(
    store: &Store,
    http: &reqwest::Client,
    in_flight: &InFlight,
    feed_id: &str,
    timeout: Duration,
    polling: &Polling,
    host: Option<schedule::HostPermit>,
    if_running: IfRunning,
) -> FetchReport {
    let report = FetchReport {
        feed_id: feed_id.to_string(),
        ..Default::default()
    };
    let feed = match store.feed(feed_id).await {
        Ok(Some(f)) => f,
        Ok(None) => return report.failed("no such feed".into()),
        Err(e) => return report.failed(e.to_string()),
    };
    let mut report = FetchReport {
        url: feed.url.clone(),
        ..report
    };
    let guard = match claim_or_join(in_flight, feed_id, if_running).await {
        Ok(guard) => guard,
        Err(Some(joined)) => return joined,
        Err(None) => {
            return FetchReport {
                status: "busy".into(),
                ..report.failed("already being fetched".into())
            };
        }
    };
    let _host = match host {
        Some(permit) => permit,
        None => {
            polling
                .hosts
                .start(&schedule::host_of(&feed.url), polling.clock.as_ref(), false)
                .await
        }
    };
    let (outcome, max_age) =
        fetch_and_store(store, http, &feed, timeout, polling, &mut report).await;
    record(store, feed_id, &outcome, max_age, polling).await;
    if let Err(e) = outcome {
        report.status = "error".into();
        report.error = Some(e.message);
    }
    guard.finish(&report);
    report
}

/// What a fetch brought to record on the feed: the validators to send next time, the
/// document's title and the number of new items (all `None` for a 304).
type Fetch = (
    Option<(Option<String>, Option<String>)>,
    Option<String>,
    Option<usize>,
);

/// Claims `feed_id` for one fetch, or joins the fetch under way. `Err(None)`: it is being fetched and `if_running` says
/// skip (answer `busy`); `Err(Some(report))`: the running fetch's report, waited for.
async fn claim_or_join(
    in_flight: &InFlight,
    feed_id: &str,
    if_running: IfRunning,
) -> Result<InFlightGuard, Option<FetchReport>> {
    loop {
        match in_flight.claim(feed_id) {
            Claim::Mine(guard) => return Ok(guard),
            Claim::Running(_) if if_running == IfRunning::Skip => return Err(None),
            Claim::Running(mut running) => {
                if let Ok(done) = running.wait_for(Option::is_some).await
                    && let Some(done) = done.clone()
                {
                    return Err(Some(FetchReport {
                        joined: true,
                        ..done
                    }));
                }
                // That fetch was abandoned without a report: claim the feed again.
            }
        }
    }
}

/// Fetches `feed` and stores the document's entries, filling `report`'s status and
/// counts; answers what to record and the answer's Cache-Control max-age.
async fn fetch_and_store(
    store: &Store,
    http: &reqwest::Client,
    feed: &radar_store::Feed,
    timeout: Duration,
    polling: &Polling,
    report: &mut FetchReport,
) -> (Result<Fetch, FetchError>, Option<Duration>) {
    match fetch::fetch(http, feed, timeout, polling.clock.now()).await {
        Ok(Fetched::NotModified { max_age }) => {
            report.status = "not_modified".into();
            (Ok((None, None, None)), max_age)
        }
        Ok(Fetched::Document {
            max_age,
            body,
            content_type,
            etag,
            last_modified,
        }) => {
            let stored =
                store_document(store, &feed.id, &feed.url, &body, content_type.as_deref()).await;
            let outcome = match stored {
                Ok((counts, title)) => {
                    let added = counts.added;
                    *report = FetchReport {
                        status: "ok".into(),
                        ..counts.with_ids(std::mem::take(report))
                    };
                    Ok((Some((etag, last_modified)), title, Some(added)))
                }
                Err(e) => Err(e.into()),
            };
            (outcome, max_age)
        }
        Err(e) => (Err(e), None),
    }
}

/// Records a fetch's outcome on the feed: when, the validators, the error and failures,
/// and the next due time with why. A failure to record is logged: the next fetch records
/// again.
async fn record(
    store: &Store,
    feed_id: &str,
    outcome: &Result<Fetch, FetchError>,
    max_age: Option<Duration>,
    polling: &Polling,
) {
    let now = polling.clock.now();
    // Drawn once, outside the update (it may run again).
    let unit: f64 = rand::random();
    let recorded = store
        .update_feed(feed_id, |f| {
            f.last_fetched_at = Some(now);
            let (wait, why) = match outcome {
                Ok((validators, title, added)) => {
                    if let Some((etag, lm)) = validators {
                        f.etag.clone_from(etag);
                        f.last_modified.clone_from(lm);
                    }
                    if f.name.is_none() {
                        f.name.clone_from(title);
                    }
                    f.items_added += added.unwrap_or(0) as u64;
                    f.last_error = None;
                    f.failures = 0;
                    schedule::wait_after(Outcome::Fresh { max_age }, polling.interval, 0)
                }
                Err(e) => {
                    f.last_error = Some(e.message.clone());
                    f.failures = f.failures.saturating_add(1);
                    let failed = if e.refused {
                        Outcome::Refused {
                            retry_after: e.retry_after,
                        }
                    } else {
                        Outcome::Failed
                    };
                    schedule::wait_after(failed, polling.interval, f.failures)
                }
            };
            f.next_due = Some(schedule::next_due(now, wait, unit));
            f.next_due_reason = Some(why.as_str().into());
        })
        .await;
    if let Err(e) = recorded {
        tracing::warn!(feed = feed_id, error = %e, "cannot record the fetch");
    }
}

/// Parses a document (`content_type` is the answer's header, for its charset) and stores
/// its entries; answers the counts and the feed's title.
async fn store_document(
    store: &Store,
    feed_id: &str,
    url: &str,
    body: &[u8],
    content_type: Option<&str>,
) -> Result<(FetchReport, Option<String>), String> {
    let parsed = parse::parse(body, content_type, url, Utc::now())?;
    let mut counts = FetchReport::default();
    for entry in parsed.entries {
        // The feed's name for itself is the publication's name readers know.
        let item = NewItem {
            source: parsed.title.clone(),
            ..entry.item
        };
        match store
            .upsert_feed_entry(feed_id, &entry.guid, item, entry.dated)
            .await
        {
            Ok(o) => match o.status {
                ImportStatus::Added => counts.added += 1,
                ImportStatus::Updated => counts.updated += 1,
                ImportStatus::Unchanged => counts.unchanged += 1,
            },
            Err(radar_store::Error::Invalid(why)) => {
                counts.invalid += 1;
                counts
                    .error
                    .get_or_insert(format!("entry {:?}: {why}", entry.guid));
            }
            Err(e) => return Err(format!("cannot store entries: {e}")),
        }
    }
    Ok((counts, parsed.title))
}

impl FetchReport {
    /// This report as a failure saying `error`.
    fn failed(self, error: String) -> FetchReport {
        FetchReport {
            status: "error".into(),
            error: Some(error),
            ..self
        }
    }

    fn with_ids(self, ids: FetchReport) -> FetchReport {
        FetchReport {
            feed_id: ids.feed_id,
            url: ids.url,
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_is_capped() {
        let i = Duration::from_secs(1800);
        assert_eq!(backoff(i, 0), i);
        assert_eq!(backoff(i, 1), i * 2);
        assert_eq!(backoff(i, 3), i * 8);
        assert_eq!(backoff(i, 40), MAX_BACKOFF);
        let week = Duration::from_secs(7 * 86400);
        assert_eq!(backoff(week, 5), week);
    }

    fn mine(claim: Claim) -> Option<InFlightGuard> {
        match claim {
            Claim::Mine(g) => Some(g),
            Claim::Running(_) => None,
        }
    }

    #[test]
    fn a_feed_is_claimed_once_at_a_time() {
        let set = InFlight::default();
        let g = mine(set.claim("f1")).unwrap();
        assert!(mine(set.claim("f1")).is_none());
        assert!(mine(set.claim("f2")).is_some());
        drop(g);
        assert!(mine(set.claim("f1")).is_some());
    }

    #[tokio::test]
    async fn those_waiting_for_a_running_fetch_get_its_report() {
        let set = InFlight::default();
        let g = mine(set.claim("f1")).unwrap();
        let Claim::Running(mut waiting) = set.claim("f1") else {
            panic!("the feed is being fetched");
        };
        let report = FetchReport {
            feed_id: "f1".into(),
            status: "ok".into(),
            added: 2,
            ..Default::default()
        };
        g.finish(&report);
        let got = waiting.wait_for(Option::is_some).await.unwrap().clone();
        assert_eq!(got, Some(report));
        assert!(!set.contains("f1"), "finishing frees the feed");

        // An abandoned fetch closes the channel without a report.
        let g = mine(set.claim("f1")).unwrap();
        let Claim::Running(mut waiting) = set.claim("f1") else {
            panic!("the feed is being fetched");
        };
        drop(g);
        assert!(waiting.wait_for(Option::is_some).await.is_err());
    }
}
