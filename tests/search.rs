//! Full-text search (issue 16): `GET /api/search` and `q=` on the public API against the
//! real daemon. Each element of the syntax, the free cap and subscriber pages, hidden
//! items left out, highlights, a write searchable as soon as it is acknowledged, a feed
//! update found by its new words only (against a local feed server), `radar items
//! reindex` live and offline, and a damaged or outdated index rebuilt on start.

use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use serde_json::{Value, json};

use crate::admin::{cli, cli_with};
use crate::util::{Daemon, assert_error, ids};
use radar_store::{FREE_LIMIT, SUBSCRIBER_PAGE};

const SUBSCRIBER: &str = "sub@example.com";

/// The items every syntax check searches, as JSON Lines for `radar items import`.
fn syntax_items() -> String {
    [
        json!({"id": "distil", "title": "Distillation makes small models strong",
               "summary": "Teachers train students.", "url": "https://www.theverge.com/a",
               "published_date": "2026-01-10T00:00:00Z"}),
        json!({"id": "weights", "title": "Open weights arrive",
               "summary": "A lab publishes open weights for its model.", "url": "https://wired.com/b",
               "published_date": "2026-02-10T00:00:00Z"}),
        json!({"id": "apart", "title": "Weights and measures",
               "summary": "The open question of model weights.", "url": "https://example.org/c",
               "published_date": "2026-03-10T00:00:00Z"}),
        json!({"id": "nvidia", "title": "Nvidia model chips",
               "summary": "A model about GPUs.", "url": "https://theverge.com/d",
               "published_date": "2026-02-20T00:00:00Z"}),
        json!({"id": "robots", "title": "Robotics roundup", "summary": "Arms and grippers.",
               "content": "Long text about warehouse robots.", "url": "https://example.org/e",
               "published_date": "2026-01-20T00:00:00Z"}),
    ]
    .iter()
    .map(|v| format!("{v}\n"))
    .collect()
}

/// `n` items that all match "benchmark", a day apart.
fn benchmark_items(n: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                "{}\n",
                json!({"id": format!("bench-{i:02}"), "title": format!("Benchmark report {i}"),
                       "summary": "Scores on a benchmark.", "url": format!("https://bench.example/{i}"),
                       "published_date": format!("2025-12-{:02}T00:00:00Z", 1 + i)})
            )
        })
        .collect()
}

fn path(q: &str) -> String {
    let mut url = reqwest::Url::parse("http://radar/api/search").unwrap();
    url.query_pairs_mut().append_pair("q", q);
    format!("/api/search?{}", url.query().unwrap())
}

/// The ids `q` finds for `token`, in order (the first page).
async fn found(d: &Daemon, token: &str, q: &str) -> Vec<String> {
    let (status, page) = d.get(&path(q), Some(token)).await;
    assert_eq!(status, 200, "{q}: {page}");
    ids(&page["items"])
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn syntax_caps_hidden_items_and_the_public_api() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let d = Daemon::start_with(&data, &["--no-demo", "--complimentary", SUBSCRIBER], &[]);
    let all = format!("{}{}", syntax_items(), benchmark_items(26));
    let import = cli_with(&data, &["items", "import", "-", "--json"], &all, &[]).await;
    assert_eq!(import.ok_json()["added"], 31);
    let sub = d.sign_up(SUBSCRIBER, "secret-password").await;
    let free = d.sign_up("free@example.com", "secret-password").await;

    // Signed-in readers only.
    assert_error(&d.get(&path("model"), None).await, 401);

    // Words match any form of the word, in any text field; the title match ranks first.
    assert_eq!(found(&d, &sub, "distilled").await, ["distil"]);
    assert_eq!(
        found(&d, &sub, "warehouse").await,
        ["robots"],
        "content is searched"
    );
    assert_eq!(
        sorted(found(&d, &sub, "open weights").await),
        ["apart", "weights"]
    );
    // A phrase needs its words together and in order.
    assert_eq!(found(&d, &sub, "\"open weights\"").await, ["weights"]);
    // Exclusion.
    assert_eq!(
        sorted(found(&d, &sub, "model -nvidia").await),
        ["apart", "distil", "weights"]
    );
    assert_eq!(
        found(&d, &sub, "weights -\"open weights\"").await,
        ["apart"]
    );
    // Source, by name or host; several mean any; excluded too.
    assert_eq!(
        sorted(found(&d, &sub, "source:theverge").await),
        ["distil", "nvidia"]
    );
    assert_eq!(found(&d, &sub, "source:wired.com").await, ["weights"]);
    assert_eq!(
        sorted(found(&d, &sub, "model -source:theverge").await),
        ["apart", "weights"]
    );
    // Dates: after: includes its day, before: excludes its day; filters alone go newest first.
    assert_eq!(
        found(&d, &sub, "after:2026-02-10 before:2026-03-10").await,
        ["nvidia", "weights"]
    );
    assert_eq!(found(&d, &sub, "model before:2026-02-01").await, ["distil"]);

    // Malformed queries: 400 invalid_query, saying what is wrong.
    for (q, says) in [
        ("\"open weights", "quote is not closed"),
        ("model after:2026-13-01", "is not a date"),
        ("after:2026-03-01 before:2026-02-01", "not earlier"),
        ("-nvidia", "nothing to search for"),
        ("", "empty"),
    ] {
        let got = d.get(&path(q), Some(&sub)).await;
        assert_eq!(assert_error(&got, 400), "invalid_query", "{q}");
        assert!(
            got.1["message"].as_str().unwrap().contains(says),
            "{q}: {}",
            got.1
        );
    }
    assert_error(&d.get("/api/search", Some(&sub)).await, 400);

    // Highlights: code point ranges of the display text, no markup.
    let (_, page) = d.get(&path("distilled"), Some(&sub)).await;
    let h = &page["items"][0]["highlights"];
    assert_eq!(h["title"]["text"], "Distillation makes small models strong");
    assert_eq!(h["title"]["ranges"], json!([[0, 12]]));
    assert_eq!(page["items"][0]["title"], h["title"]["text"]);

    // Caps: a free reader gets the best FREE_LIMIT and no cursor; a subscriber pages of
    // SUBSCRIBER_PAGE.
    let (status, page) = d.get(&path("benchmark"), Some(&free)).await;
    assert_eq!(status, 200);
    assert_eq!(
        (
            ids(&page["items"]).len(),
            &page["hasMore"],
            &page["nextCursor"],
            &page["limit"]
        ),
        (FREE_LIMIT, &json!(true), &Value::Null, &json!(FREE_LIMIT))
    );
    let got = d
        .get(
            &format!("{}&cursor=AAAAAAAAAAAAAAAAAAAAAA", path("benchmark")),
            Some(&free),
        )
        .await;
    assert_error(&got, 403);
    let (_, first) = d.get(&path("benchmark"), Some(&sub)).await;
    assert_eq!(ids(&first["items"]).len(), SUBSCRIBER_PAGE);
    let cursor = first["nextCursor"].as_str().unwrap();
    let (_, second) = d
        .get(
            &format!("{}&cursor={cursor}", path("benchmark")),
            Some(&sub),
        )
        .await;
    assert_eq!(
        (ids(&second["items"]).len(), &second["nextCursor"]),
        (6, &Value::Null)
    );
    let mut both = [ids(&first["items"]), ids(&second["items"])].concat();
    both.sort();
    both.dedup();
    assert_eq!(both.len(), 26, "no result twice, none missing");
    let got = d
        .get(&format!("{}&cursor={cursor}", path("model")), Some(&sub))
        .await;
    assert_eq!(assert_error(&got, 400), "invalid_request");

    // Hidden items are left out for that reader only.
    let top = ids(&first["items"])[0].clone();
    let (status, _) = d
        .call("POST", &format!("/api/hidden/{top}"), Some(&sub), None)
        .await;
    assert_eq!(status, 200);
    let (_, again) = d.get(&path("benchmark"), Some(&sub)).await;
    assert!(!ids(&again["items"]).contains(&top));
    assert_eq!(ids(&again["items"]).len(), SUBSCRIBER_PAGE);
    assert_eq!(found(&d, &free, "benchmark").await[0], top);

    // The public API: q= with the same pagination, total counting every match.
    let (_, key) = d.get("/api/key", Some(&sub)).await;
    let key = key["apiKey"].as_str().unwrap().to_string();
    let public = |query: &str| {
        let req = d
            .http
            .get(d.url(&format!("/api/v1/news?{query}")))
            .header("x-api-key", &key);
        async move { crate::util::answer(req.send().await.unwrap()).await }
    };
    let (status, p2) = public("q=benchmark&limit=10&page=2").await;
    assert_eq!(status, 200, "{p2}");
    assert_eq!(
        p2["pagination"],
        json!({"total": 26, "page": 2, "limit": 10, "totalPages": 3, "hasNext": true, "hasPrev": true})
    );
    let (_, p1) = public("q=benchmark&limit=10").await;
    let (_, p3) = public("q=benchmark&limit=10&page=3").await;
    let mut pages = [ids(&p1["items"]), ids(&p2["items"]), ids(&p3["items"])].concat();
    assert_eq!(pages.len(), 26);
    pages.sort();
    pages.dedup();
    assert_eq!(pages.len(), 26);
    let (_, phrase) = public("q=%22open+weights%22").await;
    assert_eq!(ids(&phrase["items"]), ["weights"]);
    assert_eq!(
        phrase["items"][0].get("highlights"),
        None,
        "public items keep their shape"
    );
    assert_eq!(
        assert_error(&public("q=%22open").await, 400),
        "invalid_query"
    );
    assert_eq!(
        assert_error(&public("q=benchmark&sort=title").await, 400),
        "invalid_parameter"
    );

    // Both are in the OpenAPI document with their 400s.
    let (_, doc) = d.get("/api/openapi.json", None).await;
    assert!(doc["paths"]["/api/search"]["get"]["responses"]["400"].is_object());
    let params = doc["paths"]["/api/v1/news"]["get"]["parameters"]
        .as_array()
        .unwrap();
    assert!(params.iter().any(|p| p["name"] == "q"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_acknowledged_write_is_searchable_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let d = Daemon::start_with(&data, &["--no-demo", "--complimentary", SUBSCRIBER], &[]);
    let sub = d.sign_up(SUBSCRIBER, "secret-password").await;
    let added = cli(
        &data,
        &[
            "items",
            "add",
            "--title",
            "Zeppelin revival",
            "--summary",
            "Airships return.",
            "--json",
        ],
    )
    .await
    .ok_json();
    let id = added["item"]["id"].as_str().unwrap().to_string();
    assert_eq!(found(&d, &sub, "zeppelin").await, std::slice::from_ref(&id));
    let edit = [
        "items",
        "add",
        "--id",
        &id,
        "--title",
        "Dirigible revival",
        "--summary",
        "Airships return.",
        "--json",
    ];
    assert_eq!(cli(&data, &edit).await.ok_json()["status"], "updated");
    assert!(found(&d, &sub, "zeppelin").await.is_empty());
    assert_eq!(
        found(&d, &sub, "dirigible").await,
        std::slice::from_ref(&id)
    );
    assert_eq!(cli(&data, &["items", "remove", &id]).await.code, 0);
    assert!(found(&d, &sub, "dirigible").await.is_empty());
}

/// A feed whose one entry changes its words when `version` moves on.
async fn changing_feed() -> (String, Arc<AtomicUsize>) {
    let version = Arc::new(AtomicUsize::new(1));
    let app = Router::new()
        .route(
            "/changing.xml",
            get(|State(v): State<Arc<AtomicUsize>>| async move {
                let title = if v.load(Ordering::SeqCst) == 1 {
                    "Quantum annealing breakthrough"
                } else {
                    "Photonic interconnect breakthrough"
                };
                let doc = format!(
                    r#"<?xml version="1.0"?><rss version="2.0"><channel><title>Changing</title>
<link>https://changing.example/</link><description>d</description>
<item><title>{title}</title><link>https://changing.example/story</link>
<guid isPermaLink="false">story-1</guid><pubDate>Tue, 17 Nov 2026 09:00:00 GMT</pubDate>
<description>{title}, in short.</description></item></channel></rss>"#
                );
                ([(header::CONTENT_TYPE, "application/rss+xml")], doc).into_response()
            }),
        )
        .with_state(version.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (base, version)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_item_updated_by_its_feed_is_found_by_its_new_words_only() {
    let (base, version) = changing_feed().await;
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let d = Daemon::start_with(
        &data,
        &[
            "--no-demo",
            "--no-feed-polling",
            "--complimentary",
            SUBSCRIBER,
        ],
        &[],
    );
    let sub = d.sign_up(SUBSCRIBER, "secret-password").await;
    let url = format!("{base}/changing.xml");
    assert_eq!(cli(&data, &["feeds", "add", &url, "--json"]).await.code, 0);
    assert_eq!(cli(&data, &["feeds", "fetch", "--json"]).await.code, 0);
    let first = found(&d, &sub, "quantum").await;
    assert_eq!(first.len(), 1);
    version.store(2, Ordering::SeqCst);
    let fetched = cli(&data, &["feeds", "fetch", "--json"]).await.ok_json();
    assert_eq!(fetched[0]["updated"], 1, "{fetched}");
    assert!(
        found(&d, &sub, "quantum").await.is_empty(),
        "old words are gone"
    );
    assert_eq!(
        found(&d, &sub, "photonic").await,
        first,
        "same item, new words"
    );
}

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reindex_live_and_offline_and_a_damaged_index_rebuilt_on_start() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let search = data.join("search");
    let d = Daemon::start_with(&data, &["--complimentary", SUBSCRIBER], &[]);
    let sub = d.sign_up(SUBSCRIBER, "secret-password").await;
    assert_eq!(found(&d, &sub, "photonic").await, ["demo-19"]);

    // Through the running daemon.
    let live = cli(&data, &["items", "reindex", "--json"]).await.ok_json();
    assert_eq!(live["items"], 64, "{live}");
    assert_eq!(found(&d, &sub, "photonic").await, ["demo-19"]);
    d.stop();

    // Offline, on the store opened by the command.
    let offline = cli(&data, &["items", "reindex"]).await;
    assert_eq!(offline.code, 0, "{offline:?}");
    assert!(
        offline.stdout.contains("search index rebuilt: 64 items"),
        "{offline:?}"
    );

    // The index is the owner's alone, like the rest of the data directory.
    assert_eq!(mode(&search), 0o700);
    for entry in std::fs::read_dir(&search).unwrap() {
        let path = entry.unwrap().path();
        assert_eq!(mode(&path), 0o600, "{}", path.display());
    }

    // Every file damaged: rebuilt on start, and searching works again.
    for entry in std::fs::read_dir(&search).unwrap() {
        std::fs::write(entry.unwrap().path(), b"not an index").unwrap();
    }
    let d = Daemon::start_with(&data, &["--complimentary", SUBSCRIBER], &[]);
    let sub = d.sign_in(SUBSCRIBER, "secret-password").await;
    assert_eq!(found(&d, &sub, "photonic").await, ["demo-19"]);
    d.stop();

    // From an older format: rebuilt on start (the format file names the new one again).
    std::fs::write(search.join("radar-format"), "radar-search 0\n").unwrap();
    let marker = search.join("stale-file-from-the-old-index");
    std::fs::write(&marker, b"old").unwrap();
    let d = Daemon::start_with(&data, &["--complimentary", SUBSCRIBER], &[]);
    let sub = d.sign_in(SUBSCRIBER, "secret-password").await;
    assert_eq!(found(&d, &sub, "photonic").await, ["demo-19"]);
    assert!(!marker.exists(), "the old index was replaced");
    let format = std::fs::read_to_string(search.join("radar-format")).unwrap();
    assert_ne!(format.trim(), "radar-search 0");

    // Missing altogether: rebuilt on start too.
    d.stop();
    std::fs::remove_dir_all(&search).unwrap();
    let d = Daemon::start_with(&data, &["--complimentary", SUBSCRIBER], &[]);
    let sub = d.sign_in(SUBSCRIBER, "secret-password").await;
    assert_eq!(found(&d, &sub, "photonic").await, ["demo-19"]);
}
