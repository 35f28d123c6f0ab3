//! The daemon's background loop: polls each feed when it is due (every interval, later
//! after errors, see [`super::backoff`]) and, when configured, writes the previous week's
//! summary once that week is over.
//!
//! Each due feed is fetched in its own task so a slow feed does not hold up the others;
//! the shared in-flight set keeps a feed that is still being fetched (by this loop or by
//! `radar feeds fetch`) from being fetched again; this loop skips such a feed, while
//! `radar feeds fetch` waits for the running fetch and reports its outcome.

use std::time::Duration;

use chrono::Utc;
use tokio::sync::watch;

use crate::admin::AdminCtx;

/// How often the loop looks for due feeds and new feeds at the latest.
const TICK: Duration = Duration::from_secs(60);
/// How often the summary schedule checks whether last week's summary exists.
const SUMMARY_CHECK: Duration = Duration::from_secs(3600);

/// Runs until `stop` turns true.
pub async fn run(
    ctx: AdminCtx,
    poll_feeds: bool,
    summary_schedule: bool,
    mut stop: watch::Receiver<bool>,
) {
    let mut next_summary_check = tokio::time::Instant::now();
    loop {
        let mut wait = TICK.min(ctx.feed_interval);
        if poll_feeds {
            match ctx.store.feeds().await {
                Ok(feeds) => {
                    let now = Utc::now();
                    for feed in feeds {
                        match feed.next_due {
                            Some(due) if due > now => {
                                let until = (due - now).to_std().unwrap_or(TICK);
                                wait = wait.min(until.max(Duration::from_secs(1)));
                            }
                            _ => {
                                // Look again soon: the fetch sets the feed's next due time.
                                wait = wait.min(Duration::from_secs(1));
                                if ctx.in_flight.contains(&feed.id) {
                                    continue;
                                }
                                let ctx = ctx.clone();
                                tokio::spawn(async move {
                                    let _slot = ctx.fetch_slots.clone().acquire_owned().await;
                                    let r = crate::ingest::fetch_feed(
                                        &ctx.store,
                                        &ctx.http,
                                        &ctx.in_flight,
                                        &feed.id,
                                        ctx.feed_timeout,
                                        ctx.feed_interval,
                                        crate::ingest::IfRunning::Skip,
                                    )
                                    .await;
                                    match r.status.as_str() {
                                        "error" => {
                                            tracing::warn!(feed = %r.url, error = ?r.error, "feed fetch failed")
                                        }
                                        "busy" => {}
                                        _ => {
                                            tracing::info!(feed = %r.url, added = r.added, updated = r.updated, status = %r.status, "feed fetched")
                                        }
                                    }
                                });
                            }
                        }
                    }
                }
                Err(e) => tracing::error!(error = %e, "cannot list feeds"),
            }
        }
        if summary_schedule && tokio::time::Instant::now() >= next_summary_check {
            next_summary_check = tokio::time::Instant::now() + SUMMARY_CHECK;
            crate::summarize::scheduled(&ctx).await;
        }
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = ctx.wake.notified() => {}
            _ = stop.changed() => return,
        }
    }
}
