//! The public news API (issue 4): `GET /api/v1/news` by `X-API-Key`, its pagination,
//! sorting and validation, the quota headers, the 429 on request 101 of a free key, and
//! the counters after a restart.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use radar_store::NewItem;
use serde_json::Value;

use crate::reader_api::seed;
use crate::util::{Daemon, answer, assert_error};

const ITEMS: usize = 25;

/// 25 items whose title order, date order and id order all differ. No title is a prefix
/// of another: see `catalogue::tests::a_title_sorts_before_its_extensions` for why.
async fn seed_items(data: &std::path::Path) {
    seed(data, async |s| {
        for i in 0..ITEMS {
            s.upsert_item(NewItem {
                id: Some(format!("item-{:02}", (i * 7) % ITEMS)),
                title: format!(
                    "{} story {i:02}",
                    ["alpha", "Bravo", "charlie", "Delta", "echo"][i % 5]
                ),
                summary: format!("Summary {i}"),
                content: format!("Content {i}"),
                url: (i % 4 != 0).then(|| format!("https://news.example/{i}")),
                published_date: DateTime::parse_from_rfc3339(&format!(
                    "2026-11-{:02}T08:00:00Z",
                    1 + i
                ))
                .unwrap()
                .with_timezone(&Utc),
                ..Default::default()
            })
            .await
            .unwrap();
        }
    })
    .await;
}

struct Answer {
    status: u16,
    body: Value,
    headers: reqwest::header::HeaderMap,
}

async fn public(d: &Daemon, key: Option<&str>, query: &str) -> Answer {
    let mut req = d.http.get(d.url(&format!("/api/v1/news{query}")));
    if let Some(k) = key {
        req = req.header("X-API-Key", k);
    }
    let res = req.send().await.unwrap();
    let headers = res.headers().clone();
    let (status, body) = answer(res).await;
    Answer {
        status,
        body,
        headers,
    }
}

fn header(a: &Answer, name: &str) -> u64 {
    a.headers
        .get(name)
        .unwrap_or_else(|| panic!("{name} missing"))
        .to_str()
        .unwrap()
        .parse()
        .unwrap()
}

fn ids(a: &Answer) -> Vec<String> {
    a.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_string())
        .collect()
}

fn field(a: &Answer, f: &str) -> Vec<String> {
    a.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i[f].as_str().unwrap().to_string())
        .collect()
}

/// Signs a user up; answers their access token and API key.
async fn sign_up_with_key(d: &Daemon, email: &str) -> (String, String) {
    let token = d.sign_up(email, "secret-password").await;
    let key = d.get("/api/key", Some(&token)).await.1["apiKey"]
        .as_str()
        .unwrap()
        .to_string();
    (token, key)
}

async fn key_of(d: &Daemon, email: &str) -> String {
    sign_up_with_key(d, email).await.1
}

#[tokio::test]
async fn pages_sorts_and_validates() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    seed_items(&data).await;
    let d = Daemon::start(&data);

    assert_eq!(
        assert_error(
            &{
                let a = public(&d, None, "").await;
                (a.status, a.body)
            },
            401
        ),
        "unauthorized"
    );
    assert_error(
        &{
            let a = public(&d, Some("rk_live_0000"), "").await;
            (a.status, a.body)
        },
        401,
    );
    let key = key_of(&d, "dev@example.com").await;

    // Defaults: page 1, 20 per page, newest first.
    let first = public(&d, Some(&key), "").await;
    assert_eq!(first.status, 200, "{}", first.body);
    assert_eq!(
        first.body["pagination"],
        serde_json::json!({"total": 25, "page": 1, "limit": 20, "totalPages": 2, "hasNext": true, "hasPrev": false})
    );
    let items = first.body["items"].as_array().unwrap();
    assert_eq!(items.len(), 20);
    let keys: BTreeSet<_> = items[0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        BTreeSet::from(["id", "title", "summary", "content", "published_date", "url"])
    );
    assert!(
        items.iter().any(|i| i["url"].is_null()),
        "items without a source keep url null"
    );
    let dates = field(&first, "published_date");
    assert!(
        dates.windows(2).all(|w| w[0] > w[1]),
        "newest first: {dates:?}"
    );
    assert_eq!(dates[0], "2026-11-25T08:00:00Z");

    let second = public(&d, Some(&key), "?page=2").await;
    assert_eq!(second.body["items"].as_array().unwrap().len(), 5);
    assert_eq!(second.body["pagination"]["hasNext"], false);
    assert_eq!(second.body["pagination"]["hasPrev"], true);
    let mut all = ids(&first);
    all.extend(ids(&second));
    assert_eq!(
        all.iter().collect::<BTreeSet<_>>().len(),
        25,
        "two pages hold every item once"
    );
    let past = public(&d, Some(&key), "?page=9").await;
    assert_eq!(past.status, 200);
    assert!(ids(&past).is_empty());
    assert_eq!(past.body["pagination"]["total"], 25);

    // Sorting: by title (ignoring case), by id, ascending and descending, across pages.
    let mut by_title = Vec::new();
    for page in 1..=3 {
        by_title.extend(field(
            &public(
                &d,
                Some(&key),
                &format!("?sort=title&order=asc&limit=10&page={page}"),
            )
            .await,
            "title",
        ));
    }
    let mut want = by_title.clone();
    want.sort_by_key(|t| t.to_lowercase());
    assert_eq!(by_title, want);
    assert_eq!(by_title.len(), 25);
    let by_id = ids(&public(&d, Some(&key), "?sort=id&order=asc&limit=100").await);
    let mut sorted = by_id.clone();
    sorted.sort();
    assert_eq!(by_id, sorted);
    let mut desc = ids(&public(&d, Some(&key), "?sort=id&limit=100").await);
    desc.reverse();
    assert_eq!(desc, by_id, "order defaults to desc");
    let oldest = public(&d, Some(&key), "?sort=published_date&order=asc&limit=1").await;
    assert_eq!(field(&oldest, "published_date"), ["2026-11-01T08:00:00Z"]);
    assert_eq!(oldest.body["pagination"]["totalPages"], 25);

    // Validation names the parameter.
    for (query, param) in [
        ("?limit=101", "limit"),
        ("?limit=0", "limit"),
        ("?limit=ten", "limit"),
        ("?page=0", "page"),
        ("?page=-2", "page"),
        ("?page=1.5", "page"),
        ("?sort=date", "sort"),
        ("?order=up", "order"),
        ("?pageSize=5", "pageSize"),
        ("?page=1&page=2", "page"),
    ] {
        let a = public(&d, Some(&key), query).await;
        let got = (a.status, a.body.clone());
        assert_eq!(assert_error(&got, 400), "invalid_parameter", "{query}");
        assert!(
            a.body["message"].as_str().unwrap().starts_with(param),
            "{query}: {}",
            a.body["message"]
        );
        assert!(
            a.headers.contains_key("x-ratelimit-remaining"),
            "quota headers on errors too"
        );
    }
}

fn next_utc_midnight() -> i64 {
    (Utc::now().date_naive() + chrono::Duration::days(1))
        .and_hms_opt(0, 0, 0)
        .unwrap()
        .and_utc()
        .timestamp()
}

#[tokio::test]
async fn free_key_gets_429_on_request_101_and_counters_survive_restart() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    seed_items(&data).await;
    let d = Daemon::start_with(
        &data,
        &["--no-demo", "--complimentary", "pro@example.com"],
        &[],
    );
    let (token, key) = sign_up_with_key(&d, "free@example.com").await;
    let pro = key_of(&d, "pro@example.com").await;

    let mut last = None;
    for n in 1..=60u64 {
        let a = public(&d, Some(&key), "?limit=1").await;
        assert_eq!(a.status, 200, "request {n}: {}", a.body);
        assert_eq!(header(&a, "x-ratelimit-limit"), 100);
        assert_eq!(header(&a, "x-ratelimit-remaining"), 100 - n);
        last = Some(a);
    }
    let reset = i64::try_from(header(last.as_ref().unwrap(), "x-ratelimit-reset")).unwrap();
    assert!(
        (reset - next_utc_midnight()).abs() <= 1,
        "reset is the next UTC midnight"
    );
    d.stop();

    let d = Daemon::start_with(
        &data,
        &["--no-demo", "--complimentary", "pro@example.com"],
        &[],
    );
    let a = public(&d, Some(&key), "?limit=1").await;
    assert_eq!(
        header(&a, "x-ratelimit-remaining"),
        39,
        "the count of request 61 survived the restart"
    );
    for n in 62..=100u64 {
        let a = public(&d, Some(&key), "").await;
        assert_eq!(a.status, 200, "request {n}");
        assert_eq!(header(&a, "x-ratelimit-remaining"), 100 - n);
    }
    let refused = public(&d, Some(&key), "").await;
    assert_eq!(
        assert_error(&(refused.status, refused.body.clone()), 429),
        "rate_limited"
    );
    let retry: i64 = refused.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        (1..=86_400).contains(&retry)
            && (Utc::now().timestamp() + retry - next_utc_midnight()).abs() <= 2,
        "{retry}"
    );
    assert_eq!(header(&refused, "x-ratelimit-remaining"), 0);
    assert_eq!(header(&refused, "x-ratelimit-limit"), 100);

    // A rotated key does not start the day over (the session outlived the restart).
    let rotated = d
        .call("POST", "/api/key/rotate", Some(&token), None)
        .await
        .1["apiKey"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(public(&d, Some(&rotated), "").await.status, 429);

    // A subscriber's key has the premium quota, counted separately.
    let a = public(&d, Some(&pro), "").await;
    assert_eq!(a.status, 200);
    assert_eq!(header(&a, "x-ratelimit-limit"), 10_000);
    assert_eq!(header(&a, "x-ratelimit-remaining"), 9_999);
}

/// Counters live in memory and are checkpointed every second: after a crash, the counts
/// of requests made well before it are still there.
#[tokio::test]
async fn counters_checkpointed_before_a_crash_survive_it() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let d = Daemon::start_with(&data, &["--no-demo", "--api-free-quota", "50"], &[]);
    let key = key_of(&d, "free@example.com").await;
    for _ in 0..20 {
        assert_eq!(public(&d, Some(&key), "").await.status, 200);
    }
    // Several checkpoint intervals, so one has run after the last request.
    tokio::time::sleep(std::time::Duration::from_secs(5)).await;
    d.crash();

    let d = Daemon::start_with(&data, &["--no-demo", "--api-free-quota", "50"], &[]);
    let a = public(&d, Some(&key), "").await;
    assert_eq!(header(&a, "x-ratelimit-remaining"), 29);
}

#[tokio::test]
async fn quotas_are_configurable() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let d = Daemon::start_with(&data, &["--no-demo", "--api-free-quota", "2"], &[]);
    let key = key_of(&d, "free@example.com").await;
    assert_eq!(public(&d, Some(&key), "").await.status, 200);
    let a = public(&d, Some(&key), "").await;
    assert_eq!(
        (
            a.status,
            header(&a, "x-ratelimit-limit"),
            header(&a, "x-ratelimit-remaining")
        ),
        (200, 2, 0)
    );
    assert_eq!(public(&d, Some(&key), "").await.status, 429);
}
