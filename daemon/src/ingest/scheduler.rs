//! The daemon's background loop: polls each feed when it is due (see [`super::schedule`]
//! for when that is: the interval, the source's `Retry-After` and `max-age`, back-off
//! after errors, jitter) and while its host is within its budget, and, when configured,
//! writes the previous week's summary once that week is over.
//!
//! Every decision reads the time from the polling clock ([`super::Clock`]), so a test can
//! move time forward and wake the loop instead of waiting. Each due feed is fetched in its
//! own task so a slow feed does not hold up the others; the shared in-flight set keeps a
//! feed that is still being fetched (by this loop or by `radar feeds fetch`) from being
//! fetched again; this loop skips such a feed, while `radar feeds fetch` waits for the
//! running fetch and reports its outcome. Across processes sharing the store, a loop
//! fetches a feed only under the store's lease of it (`feed-fetch:<id>`), so each due
//! feed is fetched by one of them.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::watch;

use super::schedule;
use crate::admin::AdminCtx;

/// How often the loop looks for due feeds and new feeds at the latest.
const TICK: Duration = Duration::from_secs(60);
/// How often the summary schedule checks whether last week's summary exists.
const SUMMARY_CHECK: Duration = Duration::from_secs(3600);

/// How long until a feed is due: none when it is due now (or was never fetched).
pub fn due_in(next_due: Option<DateTime<Utc>>, now: DateTime<Utc>) -> Option<Duration> {
    match next_due {
        Some(due) if due > now => Some((due - now).to_std().unwrap_or(TICK)),
        _ => None,
    }
}

/// How long a loop holds a feed's fetch against the other processes sharing the store:
/// a fetch lasts at most its timeout, then the entries are stored.
fn fetch_lease(timeout: Duration) -> chrono::Duration {
    chrono::Duration::from_std(timeout).unwrap_or(chrono::Duration::MAX)
        + chrono::Duration::seconds(60)
}

/// Runs until `stop` turns true.
pub async fn run(
    ctx: AdminCtx,
    poll_feeds: bool,
    summary_schedule: bool,
    totals_every: Duration,
    mut stop: watch::Receiver<bool>,
) {
    let mut next_summary_check = tokio::time::Instant::now();
    let mut next_count = tokio::time::Instant::now();
    // A period of zero would spin the loop.
    let totals_every = totals_every.max(Duration::from_secs(1));
    let poller = Poller {
        ctx: ctx.clone(),
        launched: Arc::default(),
        holder: uuid::Uuid::new_v4().to_string(),
    };
    let freed = ctx.polling.hosts.freed();
    loop {
        let mut wait = TICK.min(ctx.polling.interval);
        // Armed before looking, so a fetch ending meanwhile still wakes the loop.
        let host_freed = freed.notified();
        if poll_feeds {
            wait = poller.start_due_feeds(wait).await;
        }
        if summary_schedule && tokio::time::Instant::now() >= next_summary_check {
            next_summary_check = tokio::time::Instant::now() + SUMMARY_CHECK;
            let with = crate::summarize::Summarizer {
                store: &ctx.store,
                http: &ctx.http,
                llm: ctx.llm.as_ref(),
            };
            crate::summarize::scheduled(&with, &poller.holder).await;
        }
        if tokio::time::Instant::now() >= next_count {
            next_count = tokio::time::Instant::now() + totals_every;
            crate::insights::count_scheduled(&ctx.store, &poller.holder, totals_every).await;
        }
        wait = wait.min(next_count.saturating_duration_since(tokio::time::Instant::now()));
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            () = ctx.wake.notified() => {}
            () = host_freed => {}
            _ = stop.changed() => return,
        }
    }
}

/// The feed side of the loop, kept across its turns.
struct Poller {
    ctx: AdminCtx,
    /// Feeds whose task this loop started and which have not finished: the task claims
    /// the feed in the in-flight set only once it runs.
    launched: Arc<Mutex<HashSet<String>>>,
    /// This loop's name on the leases it takes: of the feeds it fetches, of the weekly
    /// summary it writes.
    holder: String,
}

impl Poller {
    /// Starts a fetch of each feed that is due, not being fetched, within its host's
    /// budget and leased to this loop; answers `wait`, shortened to when the next feed
    /// is due or its host frees.
    async fn start_due_feeds(&self, mut wait: Duration) -> Duration {
        let feeds = match self.ctx.store.feeds().await {
            Ok(feeds) => feeds,
            Err(e) => {
                tracing::error!(error = %e, "cannot list feeds");
                return wait;
            }
        };
        let now = self.ctx.polling.clock.now();
        for feed in feeds {
            if let Some(until) = due_in(feed.next_due, now) {
                wait = wait.min(until.max(Duration::from_secs(1)));
                continue;
            }
            if self.ctx.in_flight.contains(&feed.id) || self.is_launched(&feed.id) {
                continue;
            }
            let host = schedule::host_of(&feed.url);
            let permit = match self.ctx.polling.hosts.try_start(&host, now, true) {
                Ok(permit) => permit,
                Err(Some(at)) => {
                    // The host's minute is spent: look again when it frees.
                    let until = (at - now).to_std().unwrap_or_default();
                    wait = wait.min(until.max(Duration::from_secs(1)));
                    continue;
                }
                // One of the host's fetches must end first (that wakes us).
                Err(None) => continue,
            };
            if self.lease(&feed).await && self.still_due(&feed.id, now).await {
                self.launch(feed.id, permit);
            }
        }
        wait
    }

    fn launched(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.launched
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn is_launched(&self, feed_id: &str) -> bool {
        self.launched().contains(feed_id)
    }

    /// Whether this loop holds the feed's fetch: another process sharing the store may
    /// be fetching it. One lease per feed, on the wall clock, which this loop renews
    /// while it keeps the feed and which lapses if it stops.
    async fn lease(&self, feed: &radar_store::Feed) -> bool {
        let until = Utc::now() + fetch_lease(self.ctx.feed_timeout);
        let name = format!("feed-fetch:{}", feed.id);
        match self.ctx.store.lease(&name, &self.holder, until).await {
            Ok(held) => held,
            Err(e) => {
                tracing::warn!(feed = %feed.url, error = %e, "cannot lease the feed's fetch");
                false
            }
        }
    }

    /// Whether the feed is still due, read again once leased. The list this loop walks
    /// may predate the end of its own last fetch of the feed (which records the next due
    /// time, then leaves the launched set), and this loop's lease is its own to renew: a
    /// stale "due" would fetch the feed twice.
    async fn still_due(&self, id: &str, now: DateTime<Utc>) -> bool {
        match self.ctx.store.feed(id).await {
            Ok(Some(feed)) => due_in(feed.next_due, now).is_none(),
            Ok(None) => false,
            Err(e) => {
                tracing::warn!(feed = %id, error = %e, "cannot read the feed again");
                false
            }
        }
    }

    /// Fetches the feed in a task of its own, within the fetch slots, and wakes the loop
    /// when it ends (its next due time is recorded then).
    fn launch(&self, feed_id: String, permit: schedule::HostPermit) {
        self.launched().insert(feed_id.clone());
        let ctx = self.ctx.clone();
        let launched = self.launched.clone();
        tokio::spawn(async move {
            let _slot = ctx.fetch_slots.clone().acquire_owned().await;
            let r = crate::ingest::fetch_feed(
                &ctx.store,
                &ctx.http,
                &ctx.in_flight,
                &feed_id,
                ctx.feed_timeout,
                &ctx.polling,
                Some(permit),
                crate::ingest::IfRunning::Skip,
            )
            .await;
            launched
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .remove(&feed_id);
            ctx.wake.notify_one();
            match r.status.as_str() {
                "error" => tracing::warn!(feed = %r.url, error = ?r.error, "feed fetch failed"),
                "busy" => {}
                _ => {
                    tracing::info!(feed = %r.url, added = r.added, updated = r.updated, status = %r.status, "feed fetched");
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use axum::Router;
    use axum::http::{StatusCode, header};
    use axum::response::IntoResponse;
    use axum::routing::get;
    use radar_store::Store;

    use super::*;
    use crate::ingest::{Clock, IngestConfig};

    /// A clock the test moves by hand.
    struct ManualClock(Mutex<DateTime<Utc>>);

    impl ManualClock {
        fn advance(&self, by: chrono::Duration) {
            *self.0.lock().unwrap() += by;
        }
    }

    impl Clock for ManualClock {
        fn now(&self) -> DateTime<Utc> {
            *self.0.lock().unwrap()
        }
    }

    /// What the stand-in feed server saw.
    #[derive(Default)]
    struct Seen {
        requests: AtomicUsize,
        now: AtomicUsize,
        most_at_once: AtomicUsize,
    }

    const RSS: &str = r#"<rss version="2.0"><channel><title>T</title><item><title>An item</title><link>https://x.example/1</link><description>Text.</description></item></channel></rss>"#;

    /// Serves `/limited.xml` (429 with Retry-After: 120) and `/slow/*` (an RSS document
    /// after 300 ms) on 127.0.0.1; answers its base URL.
    async fn feed_server(seen: Arc<Seen>) -> String {
        let app = Router::new()
            .route(
                "/limited.xml",
                get(
                    |axum::extract::State(seen): axum::extract::State<Arc<Seen>>| async move {
                        seen.requests.fetch_add(1, Ordering::SeqCst);
                        (
                            StatusCode::TOO_MANY_REQUESTS,
                            [(header::RETRY_AFTER, "120")],
                            "slow down",
                        )
                            .into_response()
                    },
                ),
            )
            .route(
                "/slow/{name}",
                get(
                    |axum::extract::State(seen): axum::extract::State<Arc<Seen>>| async move {
                        seen.requests.fetch_add(1, Ordering::SeqCst);
                        let at_once = seen.now.fetch_add(1, Ordering::SeqCst) + 1;
                        seen.most_at_once.fetch_max(at_once, Ordering::SeqCst);
                        tokio::time::sleep(Duration::from_millis(300)).await;
                        seen.now.fetch_sub(1, Ordering::SeqCst);
                        ([(header::CONTENT_TYPE, "application/rss+xml")], RSS).into_response()
                    },
                ),
            )
            .with_state(seen);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        base
    }

    /// A store, a context whose polling reads `clock`, and the loop running.
    async fn start(
        config: IngestConfig,
        clock: Arc<ManualClock>,
    ) -> (tempfile::TempDir, AdminCtx, watch::Sender<bool>) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), Default::default()).await.unwrap();
        let mut ctx = AdminCtx::with_config(store, &config);
        ctx.polling.clock = clock;
        let (stop, stopped) = watch::channel(false);
        tokio::spawn(run(
            ctx.clone(),
            true,
            false,
            Duration::from_secs(3600),
            stopped,
        ));
        (dir, ctx, stop)
    }

    async fn until(what: &str, mut done: impl AsyncFnMut() -> bool) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        while !done().await {
            assert!(
                tokio::time::Instant::now() < deadline,
                "waited in vain for {what}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    fn clock() -> Arc<ManualClock> {
        Arc::new(ManualClock(Mutex::new(
            "2026-11-20T10:00:00Z".parse().unwrap(),
        )))
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_source_answering_429_with_retry_after_is_not_asked_again_before_it_said() {
        let seen = Arc::new(Seen::default());
        let base = feed_server(seen.clone()).await;
        let clock = clock();
        let config = IngestConfig {
            feed_interval: Duration::from_secs(1),
            ..IngestConfig::default()
        };
        let (_dir, ctx, stop) = start(config, clock.clone()).await;
        let feed = ctx
            .store
            .add_feed(&format!("{base}/limited.xml"), None)
            .await
            .unwrap();
        ctx.wake.notify_one();
        until("the first poll", async || {
            seen.requests.load(Ordering::SeqCst) == 1
        })
        .await;
        until("the 429 to be recorded", async || {
            ctx.store.feed(&feed.id).await.unwrap().unwrap().failures == 1
        })
        .await;
        let recorded = ctx.store.feed(&feed.id).await.unwrap().unwrap();
        assert_eq!(recorded.next_due_reason.as_deref(), Some("retry-after"));
        let due = recorded.next_due.unwrap();
        let wait = due - clock.now();
        assert!(
            wait >= chrono::Duration::seconds(120) && wait <= chrono::Duration::seconds(132),
            "120 s and at most a tenth more: {wait}"
        );

        // Time passes on the scheduler's clock; the loop looks again each time.
        for step in [60, 59] {
            clock.advance(chrono::Duration::seconds(step));
            ctx.wake.notify_one();
            tokio::time::sleep(Duration::from_millis(300)).await;
            assert_eq!(
                seen.requests.load(Ordering::SeqCst),
                1,
                "asked again too soon"
            );
        }
        // Just before the jittered due time: still not.
        clock.advance(due - clock.now() - chrono::Duration::milliseconds(500));
        ctx.wake.notify_one();
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(
            seen.requests.load(Ordering::SeqCst),
            1,
            "asked again too soon"
        );

        clock.advance(chrono::Duration::seconds(1));
        ctx.wake.notify_one();
        until("the poll after the wait", async || {
            seen.requests.load(Ordering::SeqCst) == 2
        })
        .await;
        stop.send_replace(true);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn two_loops_sharing_a_store_fetch_a_due_feed_once() {
        // Two daemons' loops over one store: each has its own in-flight set and host
        // budget, so only the store's lease keeps the second from fetching too.
        let seen = Arc::new(Seen::default());
        let base = feed_server(seen.clone()).await;
        let clock = clock();
        let (_dir, first, stop) = start(IngestConfig::default(), clock.clone()).await;
        let mut second = AdminCtx::with_config(first.store.clone(), &IngestConfig::default());
        second.polling.clock = clock.clone();
        let (stop_second, stopped) = watch::channel(false);
        tokio::spawn(run(
            second.clone(),
            true,
            false,
            Duration::from_secs(3600),
            stopped,
        ));
        first
            .store
            .add_feed(&format!("{base}/slow/shared.xml"), None)
            .await
            .unwrap();
        first.wake.notify_one();
        second.wake.notify_one();
        until("the first poll", async || {
            seen.requests.load(Ordering::SeqCst) >= 1
        })
        .await;
        // The fetch takes 300 ms; both loops look again meanwhile and after.
        for _ in 0..4 {
            first.wake.notify_one();
            second.wake.notify_one();
            tokio::time::sleep(Duration::from_millis(150)).await;
        }
        assert_eq!(
            seen.requests.load(Ordering::SeqCst),
            1,
            "fetched by both loops"
        );
        stop.send_replace(true);
        stop_second.send_replace(true);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn two_feeds_on_one_host_never_exceed_its_budget() {
        // One at a time.
        let seen = Arc::new(Seen::default());
        let base = feed_server(seen.clone()).await;
        let config = IngestConfig {
            feed_host_concurrency: 1,
            feed_host_per_minute: 0,
            ..IngestConfig::default()
        };
        let (_dir, ctx, stop) = start(config, clock()).await;
        for name in ["a.xml", "b.xml"] {
            ctx.store
                .add_feed(&format!("{base}/slow/{name}"), None)
                .await
                .unwrap();
        }
        ctx.wake.notify_one();
        until("both polls", async || {
            seen.requests.load(Ordering::SeqCst) == 2
        })
        .await;
        assert_eq!(
            seen.most_at_once.load(Ordering::SeqCst),
            1,
            "one fetch at a time"
        );
        stop.send_replace(true);

        // Two a minute: the third feed waits for the scheduler's clock to pass the minute.
        let seen = Arc::new(Seen::default());
        let base = feed_server(seen.clone()).await;
        let config = IngestConfig {
            feed_host_concurrency: 2,
            feed_host_per_minute: 2,
            ..IngestConfig::default()
        };
        let clock = clock();
        let (_dir, ctx, stop) = start(config, clock.clone()).await;
        for name in ["a.xml", "b.xml", "c.xml"] {
            ctx.store
                .add_feed(&format!("{base}/slow/{name}"), None)
                .await
                .unwrap();
        }
        ctx.wake.notify_one();
        until("two polls", async || {
            seen.requests.load(Ordering::SeqCst) == 2
        })
        .await;
        tokio::time::sleep(Duration::from_millis(800)).await;
        ctx.wake.notify_one();
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(seen.requests.load(Ordering::SeqCst), 2, "two a minute");
        assert!(seen.most_at_once.load(Ordering::SeqCst) <= 2);
        clock.advance(chrono::Duration::seconds(61));
        ctx.wake.notify_one();
        until("the third poll", async || {
            seen.requests.load(Ordering::SeqCst) == 3
        })
        .await;
        stop.send_replace(true);
    }

    #[test]
    fn a_feed_is_due_at_its_time_or_when_never_fetched() {
        let now: DateTime<Utc> = "2026-11-20T10:00:00Z".parse().unwrap();
        assert_eq!(due_in(None, now), None);
        assert_eq!(due_in(Some(now), now), None);
        assert_eq!(due_in(Some(now - chrono::Duration::seconds(5)), now), None);
        assert_eq!(
            due_in(Some(now + chrono::Duration::seconds(120)), now),
            Some(Duration::from_secs(120))
        );
    }
}
