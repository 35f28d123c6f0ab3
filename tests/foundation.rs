//! The foundation (issue 2): demo data, the news feed with its caps and order, marks
//! through HTTP, durability across restarts and crashes, and the error shape.

use serde_json::{Value, json};

use crate::util::{Daemon, assert_error, ids};
use radar_store::{FREE_LIMIT, SUBSCRIBER_PAGE};

const SUBSCRIBER: &str = "sub@example.com";

/// Starts a daemon with the demo data and one complimentary subscriber.
fn demo_daemon(data: &std::path::Path) -> Daemon {
    Daemon::start_with(data, &["--complimentary", SUBSCRIBER], &[])
}

/// Pages through the whole feed as `token` and answers every item.
async fn whole_feed(d: &Daemon, token: &str) -> Vec<Value> {
    let mut all = Vec::new();
    let mut path = "/api/news".to_string();
    loop {
        let (status, page) = d.get(&path, Some(token)).await;
        assert_eq!(status, 200, "{page}");
        all.extend(page["items"].as_array().unwrap().iter().cloned());
        match page["nextCursor"].as_str() {
            Some(c) => path = format!("/api/news?cursor={c}"),
            None => return all,
        }
    }
}

fn published(item: &Value) -> chrono::DateTime<chrono::FixedOffset> {
    chrono::DateTime::parse_from_rfc3339(item["published_date"].as_str().unwrap()).unwrap()
}

#[tokio::test]
async fn demo_data_loads_once_newest_first_and_survives_restart() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let d = demo_daemon(&data);
    let token = d.sign_up(SUBSCRIBER, "secret-password").await;
    let items = whole_feed(&d, &token).await;
    assert!(items.len() >= 60, "only {} demo items", items.len());
    for pair in items.windows(2) {
        assert!(
            published(&pair[0]) >= published(&pair[1]),
            "not newest first: {} then {}",
            pair[0]["id"],
            pair[1]["id"]
        );
    }
    for field in [
        "id",
        "title",
        "summary",
        "short",
        "content",
        "published_date",
    ] {
        assert!(
            items.iter().all(|i| i[field].is_string()),
            "every item has {field}"
        );
    }
    assert!(
        items.iter().any(|i| i["url"].is_null()),
        "one demo item has no url"
    );
    assert!(
        items
            .iter()
            .any(|i| i["source"] == "Theverge" || i["source"].is_string())
    );
    d.stop();

    let d = demo_daemon(&data);
    let token = d.sign_in(SUBSCRIBER, "secret-password").await;
    let again = whole_feed(&d, &token).await;
    assert_eq!(
        ids(&Value::from(again)),
        ids(&Value::from(items)),
        "a restart must not reload or duplicate the demo"
    );
}

#[tokio::test]
async fn anonymous_and_free_callers_get_five_items_and_no_cursor() {
    let dir = tempfile::tempdir().unwrap();
    let d = demo_daemon(&dir.path().join("data"));
    let (status, anon) = d.get("/api/news", None).await;
    assert_eq!(status, 200);
    assert_eq!(anon["items"].as_array().unwrap().len(), FREE_LIMIT);
    assert_eq!(anon["limit"], FREE_LIMIT);
    assert_eq!(anon["hasMore"], true);
    assert!(anon["nextCursor"].is_null());

    let free = d.sign_up("free@example.com", "secret-password").await;
    let (_, page) = d.get("/api/news", Some(&free)).await;
    assert_eq!(ids(&page["items"]), ids(&anon["items"]));
    assert!(page["nextCursor"].is_null());

    // A free caller cannot page on by making up a cursor.
    let sub = d.sign_up(SUBSCRIBER, "secret-password").await;
    let (_, first) = d.get("/api/news", Some(&sub)).await;
    assert_eq!(first["items"].as_array().unwrap().len(), SUBSCRIBER_PAGE);
    let cursor = first["nextCursor"]
        .as_str()
        .expect("subscribers get a cursor");
    let got = d
        .get(&format!("/api/news?cursor={cursor}"), Some(&free))
        .await;
    assert_error(&got, 403);
    let got = d.get(&format!("/api/news?cursor={cursor}"), None).await;
    assert_error(&got, 403);
}

#[tokio::test]
async fn hidden_and_read_items_leave_that_users_feed_only() {
    let dir = tempfile::tempdir().unwrap();
    let d = demo_daemon(&dir.path().join("data"));
    let alice = d.sign_up("alice@example.com", "secret-password").await;
    let bob = d.sign_up("bob@example.com", "secret-password").await;
    let (_, before) = d.get("/api/news", Some(&alice)).await;
    let before = ids(&before["items"]);
    let (hide, read) = (&before[0], &before[1]);
    assert_eq!(
        d.call("POST", &format!("/api/hidden/{hide}"), Some(&alice), None)
            .await
            .0,
        200
    );
    assert_eq!(
        d.call("POST", &format!("/api/read/{read}"), Some(&alice), None)
            .await
            .0,
        200
    );

    let (_, after) = d.get("/api/news", Some(&alice)).await;
    let after = ids(&after["items"]);
    assert_eq!(
        after.len(),
        FREE_LIMIT,
        "the cap still fills with older items"
    );
    assert!(!after.contains(hide) && !after.contains(read));
    assert_eq!(after[..FREE_LIMIT - 2], before[2..]);

    let (_, bobs) = d.get("/api/news", Some(&bob)).await;
    assert_eq!(
        ids(&bobs["items"]),
        before,
        "another user's marks do not change my feed"
    );
    let (_, bobs_trash) = d.get("/api/hidden", Some(&bob)).await;
    assert_eq!(bobs_trash, json!([]));
}

#[tokio::test]
async fn favourite_hidden_and_read_exclude_each_other_over_http() {
    let dir = tempfile::tempdir().unwrap();
    let d = demo_daemon(&dir.path().join("data"));
    let t = d.sign_up("carol@example.com", "secret-password").await;
    let (_, page) = d.get("/api/news", Some(&t)).await;
    let id = ids(&page["items"])[0].clone();
    let lists = || async {
        let mut out = Vec::new();
        for list in ["favorites", "hidden", "read"] {
            let (status, items) = d.get(&format!("/api/{list}"), Some(&t)).await;
            assert_eq!(status, 200);
            out.push(ids(&items).contains(&id));
        }
        out
    };
    for (list, want) in [
        ("favorites", [true, false, false]),
        ("read", [false, false, true]),
        ("hidden", [false, true, false]),
        ("favorites", [true, false, false]),
    ] {
        let (status, body) = d
            .call("POST", &format!("/api/{list}/{id}"), Some(&t), None)
            .await;
        let [favorite, hidden, read] = want;
        assert_eq!(
            (status, body),
            (
                200,
                json!({"success": true, "clientSideOnly": false,
                       "marks": {"favorite": favorite, "hidden": hidden, "read": read}})
            ),
            "the answer carries the item's marks now"
        );
        assert_eq!(lists().await, want, "after marking {list}");
    }
    let (status, _) = d
        .call("DELETE", &format!("/api/favorites/{id}"), Some(&t), None)
        .await;
    assert_eq!(status, 200);
    assert_eq!(lists().await, [false, false, false]);
    assert_error(
        &d.call("POST", "/api/favorites/no-such-item", Some(&t), None)
            .await,
        404,
    );
    assert_error(
        &d.call("POST", &format!("/api/favorites/{id}"), None, None)
            .await,
        401,
    );
}

#[tokio::test]
async fn acknowledged_writes_survive_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let d = demo_daemon(&data);
    let t = d.sign_up("dave@example.com", "secret-password").await;
    let (_, page) = d.get("/api/news", Some(&t)).await;
    let page = ids(&page["items"]);
    for id in &page[..3] {
        assert_eq!(
            d.call("POST", &format!("/api/favorites/{id}"), Some(&t), None)
                .await
                .0,
            200
        );
    }
    assert_eq!(
        d.call("POST", &format!("/api/read/{}", page[3]), Some(&t), None)
            .await
            .0,
        200
    );
    d.crash();

    let d = demo_daemon(&data);
    let t = &d.sign_in("dave@example.com", "secret-password").await;
    let (_, favs) = d.get("/api/favorites", Some(t)).await;
    let mut favs = ids(&favs);
    favs.sort();
    let mut want = page[..3].to_vec();
    want.sort();
    assert_eq!(favs, want);
    let (_, check) = d
        .get(&format!("/api/read/check/{}", page[3]), Some(t))
        .await;
    assert_eq!(check, json!({"read": true}));
}

#[tokio::test]
async fn bad_requests_get_json_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));
    let (_, empty) = d.get("/api/news", None).await;
    assert_eq!(
        empty,
        json!({"items": [], "nextCursor": null, "hasMore": false, "limit": FREE_LIMIT,
               "total": 0, "subscriber": false})
    );

    assert_eq!(
        assert_error(&d.get("/api/news?limit=abc&bogus=1", None).await, 400),
        "invalid_query"
    );
    assert_eq!(
        assert_error(&d.get("/api/nope", None).await, 404),
        "not_found"
    );
    assert_eq!(
        assert_error(&d.call("DELETE", "/api/news", None, None).await, 405),
        "method_not_allowed"
    );
    assert_eq!(
        assert_error(&d.get("/api/favorites", Some("not-a-jwt")).await, 401),
        "unauthorized"
    );

    let t = d.sign_up("erin@example.com", "secret-password").await;
    let res = d
        .http
        .post(d.url("/api/shared/x"))
        .bearer_auth(&t)
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    let got = crate::util::answer(res).await;
    assert_eq!(assert_error(&got, 400), "invalid_body");
    // Regression: well-formed JSON of the wrong shape answered 422, not 400.
    let got = d
        .call(
            "POST",
            "/api/shared/x",
            Some(&t),
            Some(json!({"platform": 5})),
        )
        .await;
    assert_eq!(assert_error(&got, 400), "invalid_body");
}

/// Regression: the signal handlers were installed after the address line was printed, so
/// a SIGTERM sent right after it killed the daemon instead of stopping it.
#[tokio::test]
async fn sigterm_right_after_start_stops_cleanly() {
    for _ in 0..3 {
        let dir = tempfile::tempdir().unwrap();
        Daemon::start(&dir.path().join("data")).stop();
    }
}
