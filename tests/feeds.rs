//! Feeds (issue 7): a local HTTP server started here serves fixture feeds (RSS, Atom, JSON
//! Feed, a malformed one, one answering 304 to a conditional request, one answering 500,
//! one too slow); `radar feeds fetch` stores clean items, reports each feed, goes on past
//! broken ones, backs off after errors, and re-fetching adds no duplicates. With the
//! daemon running, polling fetches on its own and one feed is never fetched twice at once.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::admin::{cli, fixture};
use crate::util::Daemon;

/// Counters of what the fixture server saw.
#[derive(Default)]
struct Seen {
    /// Conditional requests answered 304.
    not_modified: AtomicUsize,
    /// Requests to /slow.xml.
    slow: AtomicUsize,
}

fn body(name: &str) -> String {
    std::fs::read_to_string(fixture(name)).unwrap()
}

fn xml(body: String) -> Response {
    ([(header::CONTENT_TYPE, "application/rss+xml")], body).into_response()
}

/// Starts the fixture server on 127.0.0.1:0; answers its base URL and counters.
async fn fixture_server() -> (String, Arc<Seen>) {
    let seen = Arc::new(Seen::default());
    let app = Router::new()
        .route("/rss.xml", get(|| async { xml(body("rss.xml")) }))
        .route(
            "/atom.xml",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "application/atom+xml")],
                    body("atom.xml"),
                )
                    .into_response()
            }),
        )
        .route(
            "/feed.json",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "application/feed+json")],
                    body("feed.json"),
                )
                    .into_response()
            }),
        )
        .route(
            "/malformed.xml",
            get(|| async { xml(body("malformed.xml")) }),
        )
        .route(
            "/conditional.xml",
            get(
                |State(seen): State<Arc<Seen>>, headers: HeaderMap| async move {
                    if headers
                        .get(header::IF_NONE_MATCH)
                        .and_then(|v| v.to_str().ok())
                        == Some("\"v1\"")
                    {
                        seen.not_modified.fetch_add(1, Ordering::SeqCst);
                        return StatusCode::NOT_MODIFIED.into_response();
                    }
                    let doc = body("rss.xml")
                        .replace("lab.example", "cond.example")
                        .replace("lab-post", "cond-post");
                    (
                        [
                            (header::ETAG, "\"v1\""),
                            (header::LAST_MODIFIED, "Thu, 19 Nov 2026 10:00:00 GMT"),
                        ],
                        doc,
                    )
                        .into_response()
                },
            ),
        )
        .route(
            "/error.xml",
            get(|| async {
                (StatusCode::INTERNAL_SERVER_ERROR, "database on fire").into_response()
            }),
        )
        .route(
            "/slow.xml",
            get(|State(seen): State<Arc<Seen>>| async move {
                seen.slow.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_secs(3)).await;
                xml(body("rss.xml")
                    .replace("lab.example", "slow.example")
                    .replace("lab-post", "slow-post"))
            }),
        )
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (base, seen)
}

/// Adds a feed and answers its id.
async fn add(dir: &std::path::Path, url: &str) -> String {
    let f = cli(dir, &["feeds", "add", url, "--json"]).await.ok_json();
    f["id"].as_str().unwrap().to_string()
}

/// Fetch reports by the last path segment of their URL.
fn by_name(reports: &Value) -> HashMap<String, Value> {
    reports
        .as_array()
        .unwrap_or_else(|| panic!("not a list of reports: {reports}"))
        .iter()
        .map(|r| {
            (
                r["url"]
                    .as_str()
                    .unwrap()
                    .rsplit('/')
                    .next()
                    .unwrap()
                    .to_string(),
                r.clone(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_kind_of_feed_is_fetched_and_refetching_adds_no_duplicates() {
    let (base, seen) = fixture_server().await;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    for name in [
        "rss.xml",
        "atom.xml",
        "feed.json",
        "malformed.xml",
        "conditional.xml",
        "error.xml",
        "slow.xml",
    ] {
        add(&dir, &format!("{base}/{name}")).await;
    }

    let first = cli(&dir, &["feeds", "fetch", "--timeout", "1", "--json"]).await;
    assert_eq!(
        first.code, 1,
        "broken feeds make the fetch fail after reporting all: {first:?}"
    );
    let r = by_name(&first.json());
    assert_eq!(r.len(), 7);
    assert_eq!(
        (
            r["rss.xml"]["status"].as_str(),
            r["rss.xml"]["added"].as_u64()
        ),
        (Some("ok"), Some(2)),
        "{r:?}"
    );
    assert_eq!(
        (
            r["atom.xml"]["status"].as_str(),
            r["atom.xml"]["added"].as_u64()
        ),
        (Some("ok"), Some(1))
    );
    assert_eq!(
        (
            r["feed.json"]["status"].as_str(),
            r["feed.json"]["added"].as_u64()
        ),
        (Some("ok"), Some(2))
    );
    assert_eq!(
        (
            r["conditional.xml"]["status"].as_str(),
            r["conditional.xml"]["added"].as_u64()
        ),
        (Some("ok"), Some(2))
    );
    assert_eq!(r["malformed.xml"]["status"], "error");
    assert!(
        r["malformed.xml"]["error"]
            .as_str()
            .unwrap()
            .contains("not a valid"),
        "{:?}",
        r["malformed.xml"]
    );
    assert_eq!(r["error.xml"]["status"], "error");
    assert!(
        r["error.xml"]["error"].as_str().unwrap().contains("500"),
        "{:?}",
        r["error.xml"]
    );
    assert_eq!(r["slow.xml"]["status"], "error");
    assert!(
        r["slow.xml"]["error"]
            .as_str()
            .unwrap()
            .contains("timed out"),
        "{:?}",
        r["slow.xml"]
    );
    assert!(first.stderr.contains("3 feed(s) failed"), "{first:?}");

    // The items are clean text.
    let items = cli(&dir, &["items", "list", "--limit", "100", "--json"])
        .await
        .ok_json();
    let items = items.as_array().unwrap();
    assert_eq!(items.len(), 7);
    let model = items
        .iter()
        .find(|i| i["url"] == "https://lab.example/posts/reasoning-model")
        .unwrap();
    assert_eq!(model["title"], "Lab releases a reasoning model");
    assert_eq!(
        model["summary"],
        "The lab released a reasoning model that plans before it answers [1]. It is available today."
    );
    assert_eq!(
        model["short"],
        "The lab released a reasoning model that plans before it answers."
    );
    assert_eq!(model["published_date"], "2026-11-17T09:00:00Z");
    let evals = items
        .iter()
        .find(|i| i["url"] == "https://lab.example/posts/evals")
        .unwrap();
    assert_eq!(evals["title"], "Evaluation results & methods");
    assert_eq!(
        evals["summary"],
        "Independent evaluators tested the model on cyber tasks.\n\nResults were mixed."
    );
    let chips = items
        .iter()
        .find(|i| i["url"] == "https://chips.example/accelerator")
        .unwrap();
    assert_eq!(
        chips["content"],
        "A new accelerator ships with more memory.\n\nCloud providers will offer it next month."
    );
    let policy = items
        .iter()
        .find(|i| i["url"] == "https://policy.example/eu-consultation")
        .unwrap();
    assert_eq!(
        policy["summary"],
        "The commission opened a consultation on general-purpose AI. Comments are due in March."
    );
    assert!(
        items
            .iter()
            .all(|i| !i.to_string().contains('<') && !i.to_string().contains("track()")),
        "no markup left"
    );

    // Per-feed state: names from the feeds, errors with back-off.
    let feeds = cli(&dir, &["feeds", "list", "--json"]).await.ok_json();
    let feeds = by_name(&feeds);
    assert_eq!(feeds["rss.xml"]["name"], "Lab Notes");
    assert_eq!(feeds["conditional.xml"]["etag"], "\"v1\"");
    assert!(feeds["rss.xml"]["last_error"].is_null());
    let broken = &feeds["error.xml"];
    assert_eq!(broken["failures"], 1);
    let next: DateTime<Utc> = broken["next_due"].as_str().unwrap().parse().unwrap();
    let wait = next - Utc::now();
    assert!(
        wait > chrono::Duration::minutes(55) && wait <= chrono::Duration::minutes(60),
        "one failure doubles the 30 min interval: {wait}"
    );

    // Again: nothing new, the conditional feed answers 304, failures count up.
    let second = cli(&dir, &["feeds", "fetch", "--timeout", "1", "--json"]).await;
    let r = by_name(&second.json());
    assert_eq!(r["conditional.xml"]["status"], "not_modified");
    assert_eq!(
        seen.not_modified.load(Ordering::SeqCst),
        1,
        "the validators went back to the server"
    );
    assert_eq!(
        (
            r["rss.xml"]["added"].as_u64(),
            r["rss.xml"]["unchanged"].as_u64()
        ),
        (Some(0), Some(2))
    );
    assert_eq!(r["feed.json"]["unchanged"], 2);
    let items = cli(&dir, &["items", "list", "--limit", "100", "--json"])
        .await
        .ok_json();
    assert_eq!(
        items.as_array().unwrap().len(),
        7,
        "re-fetching adds no duplicates"
    );
    let feeds = by_name(&cli(&dir, &["feeds", "list", "--json"]).await.ok_json());
    assert_eq!(feeds["error.xml"]["failures"], 2);

    // One feed by id, by itself: success, human output.
    let id = feeds["rss.xml"]["id"].as_str().unwrap().to_string();
    let one = cli(&dir, &["feeds", "fetch", &id]).await;
    assert_eq!(one.code, 0, "{one:?}");
    assert!(
        one.stdout.contains("ok: 0 added, 0 updated, 2 unchanged"),
        "{one:?}"
    );
    assert_eq!(cli(&dir, &["feeds", "fetch", "nope"]).await.code, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_daemon_fetches_through_the_socket_and_never_twice_at_once() {
    let (base, seen) = fixture_server().await;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let d = Daemon::start_with(&dir, &["--no-demo", "--no-feed-polling"], &[]);
    let slow = add(&dir, &format!("{base}/slow.xml")).await;
    let args = ["feeds", "fetch", slow.as_str(), "--timeout", "10", "--json"];
    let (a, b) = tokio::join!(cli(&dir, &args), async {
        tokio::time::sleep(Duration::from_millis(500)).await;
        cli(
            &dir,
            &["feeds", "fetch", &slow, "--timeout", "10", "--json"],
        )
        .await
    });
    let statuses = [a.json()[0]["status"].clone(), b.json()[0]["status"].clone()];
    assert_eq!(
        statuses,
        [Value::from("ok"), Value::from("busy")],
        "{a:?} {b:?}"
    );
    assert_eq!(
        seen.slow.load(Ordering::SeqCst),
        1,
        "one request to the feed"
    );
    let (_, news) = d.get("/api/news", None).await;
    assert!(
        news.to_string().contains("slow.example"),
        "the daemon serves the fetched items: {news}"
    );
    d.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_daemon_polls_feeds_on_its_interval() {
    let (base, _) = fixture_server().await;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let d = Daemon::start_with(
        &dir,
        &["--no-demo", "--feed-interval", "1s", "--feed-timeout", "2s"],
        &[],
    );
    add(&dir, &format!("{base}/atom.xml")).await;
    add(&dir, &format!("{base}/error.xml")).await;
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let items = cli(&dir, &["items", "list", "--json"]).await.ok_json();
        if items.as_array().unwrap().len() == 1 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the daemon did not poll the feed"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    // The broken feed is retried with growing waits: its failures rise, its next time moves away.
    tokio::time::sleep(Duration::from_secs(4)).await;
    let feeds = by_name(&cli(&dir, &["feeds", "list", "--json"]).await.ok_json());
    let failures = feeds["error.xml"]["failures"].as_u64().unwrap();
    assert!(
        (1..=3).contains(&failures),
        "1 s, then 2 s, then 4 s between tries: {failures}"
    );
    assert!(
        feeds["error.xml"]["last_error"]
            .as_str()
            .unwrap()
            .contains("500")
    );
    assert_eq!(feeds["atom.xml"]["failures"], 0);
    d.stop();
}
