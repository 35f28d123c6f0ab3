//! The reader API (issue 4): every protected row of docs/product.md §7 refuses a caller
//! without a token; waitlist, profile, API key, user metadata, weekly summaries and
//! `/api/config` through HTTP, each isolated between two users; and the OpenAPI document.

use std::path::Path;

use chrono::{DateTime, Duration, Utc};
use radar_store::{Options, Store, WeeklySummary};
use serde_json::{Value, json};

use crate::util::{Daemon, assert_error};

/// Every call that needs a signed-in user (method, path).
pub(crate) const PROTECTED: &[(&str, &str)] = &[
    ("GET", "/api/user/metadata"),
    ("POST", "/api/create-checkout-session"),
    ("GET", "/api/favorites"),
    ("POST", "/api/favorites/x"),
    ("DELETE", "/api/favorites/x"),
    ("GET", "/api/hidden"),
    ("POST", "/api/hidden/x"),
    ("DELETE", "/api/hidden/x"),
    ("GET", "/api/read"),
    ("POST", "/api/read/x"),
    ("DELETE", "/api/read/x"),
    ("GET", "/api/read/check/x"),
    ("POST", "/api/shared/x"),
    ("GET", "/api/shared"),
    ("GET", "/api/waitlist/status"),
    ("POST", "/api/waitlist/join"),
    ("POST", "/api/verify-subscription"),
    ("GET", "/api/key"),
    ("POST", "/api/key/rotate"),
    ("GET", "/api/user/profile"),
    ("PATCH", "/api/user/profile"),
    ("GET", "/api/weekly-summary/archive"),
    ("GET", "/api/weekly-summary/x"),
    ("POST", "/api/news/x/open"),
    ("GET", "/api/unread"),
    ("POST", "/api/read-before"),
    ("PUT", "/api/read-before"),
];

/// Writes into a data directory's store before a daemon opens it.
pub(crate) async fn seed(data: &Path, fill: impl AsyncFnOnce(&Store)) {
    std::fs::create_dir_all(data).unwrap();
    let store = if crate::util::on_postgres() {
        let url = crate::util::database_of(data);
        Store::open_shared(&url, None, Options::default()).await
    } else {
        Store::open(data, Options::default()).await
    }
    .unwrap();
    fill(&store).await;
    store.flush().await.unwrap();
}

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

fn week(id: &str, start: &str) -> WeeklySummary {
    let start = at(start);
    WeeklySummary {
        id: id.into(),
        title: String::new(),
        summary: format!("The week {id}"),
        content: vec!["Models got bigger.".into(), "Agents got busier.".into()],
        start_date: start,
        end_date: start + Duration::days(6),
        generated_date: start + Duration::days(7),
        article_count: 17,
        key_points: Vec::new(),
    }
}

#[tokio::test]
async fn every_protected_call_refuses_a_missing_or_bad_token() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));
    for (method, path) in PROTECTED {
        let body = (*method != "GET").then(|| json!({}));
        let code = assert_error(&d.call(method, path, None, body.clone()).await, 401);
        assert_eq!(code, "unauthorized", "{method} {path}");
        assert_error(
            &d.call(method, path, Some("not-a-token"), body.clone())
                .await,
            401,
        );
        // The anonymous key is not a user.
        assert_error(&d.call(method, path, Some(&d.anon_key), body).await, 401);
    }
}

#[tokio::test]
async fn waitlist_join_is_idempotent_and_per_user() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));
    let ann = d.sign_up("ann@example.com", "secret-password").await;
    let bob = d.sign_up("bob@example.com", "secret-password").await;

    assert_eq!(
        d.get("/api/waitlist/status", Some(&ann)).await,
        (200, json!({"isOnWaitlist": false, "joinedAt": null}))
    );
    let (status, joined) = d.call("POST", "/api/waitlist/join", Some(&ann), None).await;
    assert_eq!(status, 200, "{joined}");
    assert_eq!(joined["isOnWaitlist"], true);
    let first = joined["joinedAt"].as_str().unwrap().to_string();
    DateTime::parse_from_rfc3339(&first).expect("joinedAt is RFC 3339");

    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    let (_, again) = d.call("POST", "/api/waitlist/join", Some(&ann), None).await;
    assert_eq!(
        again["joinedAt"],
        first.as_str(),
        "joining twice keeps the first date"
    );
    assert_eq!(
        d.get("/api/waitlist/status", Some(&ann)).await.1,
        json!({"isOnWaitlist": true, "joinedAt": first})
    );
    assert_eq!(
        d.get("/api/waitlist/status", Some(&bob)).await.1["isOnWaitlist"],
        false
    );
}

#[tokio::test]
async fn profile_saves_the_resume_within_its_limit_per_user() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));
    let ann = d.sign_up("ann@example.com", "secret-password").await;
    let bob = d.sign_up("bob@example.com", "secret-password").await;

    assert_eq!(
        d.get("/api/user/profile", Some(&ann)).await,
        (
            200,
            json!({"resume": "", "markOnOpen": true, "weeklyEmail": false, "stories": true})
        )
    );
    let resume = "Data scientist; ten years of NLP. Zürich.";
    assert_eq!(
        d.call(
            "PATCH",
            "/api/user/profile",
            Some(&ann),
            Some(json!({"resume": resume}))
        )
        .await,
        (
            200,
            json!({"resume": resume, "markOnOpen": true, "weeklyEmail": false, "stories": true})
        )
    );
    // The reading setting changes alone, and the resume stays.
    assert_eq!(
        d.call(
            "PATCH",
            "/api/user/profile",
            Some(&ann),
            Some(json!({"markOnOpen": false, "weeklyEmail": false}))
        )
        .await,
        (
            200,
            json!({"resume": resume, "markOnOpen": false, "weeklyEmail": false, "stories": true})
        )
    );
    assert_eq!(
        d.get("/api/user/profile", Some(&ann)).await.1,
        json!({"resume": resume, "markOnOpen": false, "weeklyEmail": false, "stories": true})
    );
    assert_eq!(
        d.get("/api/user/profile", Some(&bob)).await.1,
        json!({"resume": "", "markOnOpen": true, "weeklyEmail": false, "stories": true}),
        "one user never sees another's profile"
    );

    // The documented limit is 20,000 characters; multi-byte characters count once.
    let at_limit = "é".repeat(20_000);
    assert_eq!(
        d.call(
            "PATCH",
            "/api/user/profile",
            Some(&ann),
            Some(json!({"resume": at_limit}))
        )
        .await
        .0,
        200
    );
    let over = "a".repeat(20_001);
    let got = d
        .call(
            "PATCH",
            "/api/user/profile",
            Some(&ann),
            Some(json!({"resume": over})),
        )
        .await;
    assert_eq!(assert_error(&got, 413), "resume_too_long");
    assert_eq!(
        d.get("/api/user/profile", Some(&ann)).await.1["resume"],
        at_limit.as_str(),
        "a refused save changes nothing"
    );

    // Bad bodies: not JSON, or not an object with a string resume, is 400.
    let res = d
        .http
        .patch(d.url("/api/user/profile"))
        .bearer_auth(&ann)
        .header("content-type", "application/json")
        .body("{resume")
        .send()
        .await
        .unwrap();
    assert_eq!(
        assert_error(&crate::util::answer(res).await, 400),
        "invalid_body"
    );
    for bad in [
        json!({"resume": 5}),
        json!({}),
        json!(["x"]),
        json!({"resume": null}),
        json!({"markOnOpen": "no"}),
        json!({"resume": "x", "markOnOpen": 1}),
        json!({"weeklyEmail": "yes"}),
    ] {
        let got = d
            .call("PATCH", "/api/user/profile", Some(&ann), Some(bad.clone()))
            .await;
        assert_eq!(assert_error(&got, 400), "invalid_body", "{bad}");
    }
}

#[tokio::test]
async fn api_key_is_created_once_rotates_and_belongs_to_its_user() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));
    let ann = d.sign_up("ann@example.com", "secret-password").await;
    let bob = d.sign_up("bob@example.com", "secret-password").await;

    let (status, first) = d.get("/api/key", Some(&ann)).await;
    assert_eq!(status, 200, "{first}");
    let key = first["apiKey"].as_str().unwrap().to_string();
    assert!(key.starts_with("rk_live_"), "{key}");
    assert_eq!(
        d.get("/api/key", Some(&ann)).await.1["apiKey"],
        key.as_str(),
        "stable after creation"
    );
    let bobs = d.get("/api/key", Some(&bob)).await.1["apiKey"]
        .as_str()
        .unwrap()
        .to_string();
    assert_ne!(bobs, key);

    let works = |k: String| {
        let d = &d;
        async move {
            d.http
                .get(d.url("/api/v1/news"))
                .header("x-api-key", k)
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        }
    };
    assert_eq!(works(key.clone()).await, 200);

    let (status, rotated) = d.call("POST", "/api/key/rotate", Some(&ann), None).await;
    assert_eq!(status, 200, "{rotated}");
    let new = rotated["apiKey"].as_str().unwrap().to_string();
    assert_ne!(new, key);
    assert_eq!(
        d.get("/api/key", Some(&ann)).await.1["apiKey"],
        new.as_str()
    );
    assert_eq!(works(key).await, 401, "a rotated key stops working");
    assert_eq!(works(new).await, 200);
    assert_eq!(
        works(bobs).await,
        200,
        "rotating one user's key leaves the others alone"
    );
}

#[tokio::test]
async fn user_metadata_reports_the_subscription() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start_with(
        &dir.path().join("data"),
        &["--no-demo", "--complimentary", "vip@example.com"],
        &[],
    );
    let free = d.sign_up("free@example.com", "secret-password").await;
    let vip = d.sign_up("vip@example.com", "secret-password").await;
    assert_eq!(
        d.get("/api/user/metadata", Some(&free)).await,
        (
            200,
            json!({"subscription": {"isActive": false, "customerId": null}})
        )
    );
    assert_eq!(
        d.get("/api/user/metadata", Some(&vip)).await.1,
        json!({"subscription": {"isActive": true, "customerId": null}})
    );
}

#[tokio::test]
async fn weekly_summaries_are_listed_newest_first_for_any_signed_in_user() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    seed(&data, async |s| {
        s.put_summary(week("2026-w44", "2026-10-26T00:00:00Z"))
            .await
            .unwrap();
        s.put_summary(week("2026-w46", "2026-11-09T00:00:00Z"))
            .await
            .unwrap();
        let mut titled = week("2026-w45", "2026-11-02T00:00:00Z");
        titled.title = "Agents everywhere".into();
        s.put_summary(titled).await.unwrap();
    })
    .await;
    let d = Daemon::start(&data);
    let free = d.sign_up("free@example.com", "secret-password").await;

    let (status, archive) = d.get("/api/weekly-summary/archive", Some(&free)).await;
    assert_eq!(status, 200, "{archive}");
    let ids: Vec<_> = archive
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["2026-w46", "2026-w45", "2026-w44"]);
    let first = &archive[0];
    let mut keys: Vec<_> = first.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "article_count",
            "content",
            "end_date",
            "generated_date",
            "id",
            "key_points",
            "start_date",
            "summary",
            "title"
        ]
    );
    assert_eq!(first["title"], "Weekly AI News Summary");
    assert_eq!(
        first["content"],
        json!(["Models got bigger.", "Agents got busier."])
    );
    assert_eq!(first["article_count"], 17);
    assert_eq!(archive[1]["title"], "Agents everywhere");

    let (status, one) = d.get("/api/weekly-summary/2026-w45", Some(&free)).await;
    assert_eq!(status, 200);
    assert_eq!(one, archive[1]);
    assert_eq!(
        assert_error(
            &d.get("/api/weekly-summary/2020-w01", Some(&free)).await,
            404
        ),
        "not_found"
    );
}

#[tokio::test]
async fn config_tells_the_web_app_about_payments() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));
    let (status, config) = d.get("/api/config", None).await;
    assert_eq!(status, 200);
    assert_eq!(
        config,
        json!({"anonKey": d.anon_key, "subscriptionsOpen": false, "paymentsProvider": "test"})
    );
    drop(d);
    let d = Daemon::start_with(
        &dir.path().join("data"),
        &["--no-demo", "--subscriptions-open"],
        &[],
    );
    assert_eq!(
        d.get("/api/config", None).await.1["subscriptionsOpen"],
        true
    );
}

/// `{name}` path parameters replaced by a sample value.
fn concrete(path: &str) -> String {
    path.split('/')
        .map(|p| if p.starts_with('{') { "sample" } else { p })
        .collect::<Vec<_>>()
        .join("/")
}

#[tokio::test]
async fn openapi_document_is_openapi_3_and_lists_every_endpoint() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));
    let (status, doc) = d.get("/api/openapi.json", None).await;
    assert_eq!(status, 200);
    assert!(
        doc["openapi"].as_str().unwrap().starts_with("3."),
        "{}",
        doc["openapi"]
    );
    assert!(doc["info"]["title"].is_string() && doc["info"]["version"].is_string());
    let paths = doc["paths"].as_object().unwrap();

    let listed = |method: &str, path: &str| {
        paths
            .get(path)
            .and_then(|p| p.get(method.to_lowercase()))
            .is_some()
    };
    let mut every: Vec<(&str, String)> = PROTECTED
        .iter()
        .map(|(m, p)| {
            let templ = p
                .replace("/favorites/x", "/favorites/{news_id}")
                .replace("/hidden/x", "/hidden/{news_id}")
                .replace("/read/check/x", "/read/check/{news_id}")
                .replace("/read/x", "/read/{news_id}")
                .replace("/shared/x", "/shared/{news_id}")
                .replace("/news/x/open", "/news/{news_id}/open")
                .replace("/weekly-summary/x", "/weekly-summary/{id}");
            (*m, templ)
        })
        .collect();
    for (m, p) in [
        ("GET", "/api/news"),
        ("GET", "/api/config"),
        ("GET", "/api/v1/news"),
        ("GET", "/api/openapi.json"),
        ("POST", "/api/stripe/webhook"),
        ("GET", "/checkout/{session_id}"),
        ("POST", "/checkout/{session_id}"),
        ("POST", "/auth/v1/signup"),
        ("POST", "/auth/v1/token"),
        ("POST", "/auth/v1/logout"),
        ("GET", "/auth/v1/user"),
        ("PUT", "/auth/v1/user"),
        ("POST", "/auth/v1/recover"),
        ("POST", "/auth/v1/resend"),
        ("GET", "/auth/v1/health"),
        ("GET", "/auth/v1/authorize"),
        ("GET", "/auth/v1/verify"),
        ("POST", "/auth/v1/verify"),
        ("GET", "/auth/v1/settings"),
    ] {
        every.push((m, p.to_string()));
    }
    for (m, p) in &every {
        assert!(listed(m, p), "{m} {p} is not in the OpenAPI document");
    }

    // And every operation the document lists is really served: no "no endpoint" 404 and
    // no 405 from the router.
    for (path, item) in paths {
        for method in ["get", "post", "put", "patch", "delete"] {
            if item.get(method).is_none() {
                continue;
            }
            let (status, body) = d
                .call(&method.to_uppercase(), &concrete(path), None, None)
                .await;
            let fallback = body["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("There is no endpoint"));
            assert!(
                !fallback && status != 405,
                "{method} {path} is listed but not served: {status} {body}"
            );
        }
    }

    // Schemas the web app relies on carry the field names of docs/product.md §3.
    let schemas = &doc["components"]["schemas"];
    let props = |name: &str| -> Vec<String> {
        let mut v: Vec<String> = schemas[name]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        v.sort();
        v
    };
    assert_eq!(props("WaitlistStatus"), ["isOnWaitlist", "joinedAt"]);
    assert_eq!(
        props("Pagination"),
        ["hasNext", "hasPrev", "limit", "page", "total", "totalPages"]
    );
    assert_eq!(
        props("WeeklySummary"),
        [
            "article_count",
            "content",
            "end_date",
            "generated_date",
            "id",
            "key_points",
            "start_date",
            "summary",
            "title"
        ]
    );
    validate_with_python(&doc);
}

/// Runs `openapi-spec-validator` on the document when the Python package is installed
/// (`pip install openapi-spec-validator`); without it, the structural checks above stand.
fn validate_with_python(doc: &Value) {
    let probe = std::process::Command::new("python3")
        .args(["-c", "import openapi_spec_validator"])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        eprintln!("openapi-spec-validator is not installed; skipping the external validation");
        return;
    }
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), serde_json::to_vec(doc).unwrap()).unwrap();
    let out = std::process::Command::new("python3")
        .args(["-c", "import sys, json; from openapi_spec_validator import validate; validate(json.load(open(sys.argv[1]))); print('valid')"])
        .arg(file.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "openapi-spec-validator refused the document:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
