//! The reading loop's contract: the server alone decides what a reader sees. Every feed
//! answer is refilled to the caller's allowance after marks, says how to go on (cursor,
//! paywall, total) and whether the caller is a subscriber, decided on every request.

use serde_json::{Value, json};

use crate::util::{Daemon, assert_error, ids, radar};
use radar_store::{FREE_LIMIT, SUBSCRIBER_PAGE};

fn demo_daemon(data: &std::path::Path) -> Daemon {
    Daemon::start_with(data, &[], &[])
}

async fn mark(d: &Daemon, t: &str, list: &str, id: &str) -> Value {
    let (status, body) = d
        .call("POST", &format!("/api/{list}/{id}"), Some(t), None)
        .await;
    assert_eq!(status, 200, "{list} {id}: {body}");
    body
}

/// Grants or revokes with the admin command, against the running daemon.
fn subscribers(d: &Daemon, verb: &str, email: &str) {
    let out = radar(&d.data)
        .args(["subscribers", verb, email])
        .output()
        .unwrap();
    assert!(out.status.success(), "{verb}: {out:?}");
}

#[tokio::test]
async fn a_free_readers_feed_refills_to_five_after_marks() {
    let dir = tempfile::tempdir().unwrap();
    let d = demo_daemon(&dir.path().join("data"));
    let t = d.sign_up("free@example.com", "secret-password").await;
    let (_, first) = d.get("/api/news", Some(&t)).await;
    let first_ids = ids(&first["items"]);
    assert_eq!(first_ids.len(), FREE_LIMIT);
    assert_eq!(
        (&first["total"], &first["subscriber"], &first["nextCursor"]),
        (&json!(FREE_LIMIT), &json!(false), &Value::Null)
    );
    for id in &first_ids[..3] {
        mark(&d, &t, "read", id).await;
    }
    for id in &first_ids[3..] {
        mark(&d, &t, "hidden", id).await;
    }
    let (_, after) = d.get("/api/news", Some(&t)).await;
    let after_ids = ids(&after["items"]);
    assert_eq!(
        after_ids.len(),
        FREE_LIMIT,
        "the allowance is refilled: {after}"
    );
    assert!(after_ids.iter().all(|id| !first_ids.contains(id)));
    assert_eq!(
        after["hasMore"], true,
        "more exist: the client offers Subscribe Now"
    );
    assert_eq!(after["nextCursor"], Value::Null);
    assert_eq!(after["total"], FREE_LIMIT);
}

#[tokio::test]
async fn a_subscriber_who_reads_a_whole_page_gets_the_next_twenty() {
    let dir = tempfile::tempdir().unwrap();
    let d = demo_daemon(&dir.path().join("data"));
    let t = d.sign_up("sub@example.com", "secret-password").await;
    subscribers(&d, "grant", "sub@example.com");
    let (_, first) = d.get("/api/news", Some(&t)).await;
    assert_eq!(first["subscriber"], true);
    assert_eq!(first["total"], 64, "every demo item is reachable");
    let page = ids(&first["items"]);
    assert_eq!(page.len(), SUBSCRIBER_PAGE);
    for id in &page {
        mark(&d, &t, "read", id).await;
    }
    let (_, again) = d.get("/api/news", Some(&t)).await;
    let next = ids(&again["items"]);
    assert_eq!(next.len(), 20, "twenty unread items show");
    assert!(next.iter().all(|id| !page.contains(id)));
    assert_eq!(again["total"], 44);
    // Read More still works from the refilled page, to the very last item.
    let mut seen = next.clone();
    let mut cursor = again["nextCursor"].as_str().map(str::to_string);
    while let Some(c) = cursor {
        let (status, more) = d.get(&format!("/api/news?cursor={c}"), Some(&t)).await;
        assert_eq!(status, 200);
        seen.extend(ids(&more["items"]));
        cursor = more["nextCursor"].as_str().map(str::to_string);
    }
    assert_eq!(seen.len(), 44, "paging on reaches every unread item once");
    // Unreading one brings it back and the total follows.
    let (status, body) = d
        .call("DELETE", &format!("/api/read/{}", page[0]), Some(&t), None)
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        body["marks"],
        json!({"favorite": false, "hidden": false, "read": false})
    );
    let (_, back) = d.get("/api/news", Some(&t)).await;
    assert_eq!(back["total"], 45);
    assert_eq!(ids(&back["items"])[0], page[0]);
}

#[tokio::test]
async fn subscription_changes_show_in_the_next_answer_without_a_new_token() {
    let dir = tempfile::tempdir().unwrap();
    let d = demo_daemon(&dir.path().join("data"));
    let t = d.sign_up("flip@example.com", "secret-password").await;
    let (_, before) = d.get("/api/news", Some(&t)).await;
    assert_eq!(
        (before["subscriber"].clone(), before["limit"].clone()),
        (json!(false), json!(FREE_LIMIT))
    );
    subscribers(&d, "grant", "flip@example.com");
    let (_, granted) = d.get("/api/news", Some(&t)).await;
    assert_eq!(granted["subscriber"], true, "same token, new answer");
    assert_eq!(ids(&granted["items"]).len(), SUBSCRIBER_PAGE);
    let item = ids(&granted["items"])[0].clone();
    let (status, _) = d
        .get(&format!("/api/news/{item}/takeaways"), Some(&t))
        .await;
    assert_eq!(status, 200);
    let (_, meta) = d.get("/api/user/metadata", Some(&t)).await;
    assert_eq!(meta["subscription"]["isActive"], true);

    subscribers(&d, "revoke", "flip@example.com");
    let (_, revoked) = d.get("/api/news", Some(&t)).await;
    assert_eq!(revoked["subscriber"], false);
    assert_eq!(ids(&revoked["items"]).len(), FREE_LIMIT);
    let cursor = granted["nextCursor"].as_str().unwrap();
    let code = assert_error(
        &d.get(&format!("/api/news?cursor={cursor}"), Some(&t)).await,
        403,
    );
    assert_eq!(
        code, "subscription_required",
        "the client re-reads the account"
    );
    let code = assert_error(
        &d.get(&format!("/api/news/{item}/takeaways"), Some(&t))
            .await,
        403,
    );
    assert_eq!(code, "subscription_required");
    let (_, meta) = d.get("/api/user/metadata", Some(&t)).await;
    assert_eq!(meta["subscription"]["isActive"], false);
}

#[tokio::test]
async fn one_item_for_the_reader_within_the_callers_allowance() {
    let dir = tempfile::tempdir().unwrap();
    let d = demo_daemon(&dir.path().join("data"));
    let t = d.sign_up("deep@example.com", "secret-password").await;
    let (_, anon) = d.get("/api/news", None).await;
    let first = ids(&anon["items"])[0].clone();
    let (status, item) = d.get(&format!("/api/news/{first}"), None).await;
    assert_eq!(status, 200);
    assert!(
        !item["content"].as_str().unwrap().is_empty(),
        "the reader has content"
    );
    assert!(item["source"].is_string());

    // The 30th item is past a free caller's allowance, until it is in one of their lists.
    let sub = d.sign_up("all@example.com", "secret-password").await;
    subscribers(&d, "grant", "all@example.com");
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(c) => format!("/api/news?cursor={c}"),
            None => "/api/news".to_string(),
        };
        let (_, page) = d.get(&path, Some(&sub)).await;
        all.extend(ids(&page["items"]));
        match page["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    let far = &all[29];
    assert_eq!(
        assert_error(&d.get(&format!("/api/news/{far}"), None).await, 403),
        "subscription_required"
    );
    assert_eq!(
        assert_error(&d.get(&format!("/api/news/{far}"), Some(&t)).await, 403),
        "subscription_required"
    );
    assert_eq!(d.get(&format!("/api/news/{far}"), Some(&sub)).await.0, 200);
    mark(&d, &t, "favorites", far).await;
    assert_eq!(d.get(&format!("/api/news/{far}"), Some(&t)).await.0, 200);
    assert_eq!(
        assert_error(&d.get("/api/news/no-such-item", Some(&sub)).await, 404),
        "not_found"
    );
}

#[tokio::test]
async fn takeaways_come_from_the_server_ranked_by_the_resume() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));
    let out = radar(&d.data)
        .args([
            "items",
            "add",
            "--title",
            "A.I. agents reach the enterprise",
            "--summary",
            "Product teams and businesses adopt machine learning.",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let t = d.sign_up("reader@example.com", "secret-password").await;
    let (_, page) = d.get("/api/news", Some(&t)).await;
    let id = ids(&page["items"])[0].clone();
    let path = format!("/api/news/{id}/takeaways");
    assert_eq!(
        assert_error(&d.get(&path, Some(&t)).await, 403),
        "subscription_required"
    );
    assert_eq!(assert_error(&d.get(&path, None).await, 401), "unauthorized");
    subscribers(&d, "grant", "reader@example.com");
    let (status, plain) = d.get(&path, Some(&t)).await;
    assert_eq!(status, 200, "{plain}");
    let titles = |v: &Value| -> Vec<String> {
        v["cards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["title"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        titles(&plain),
        [
            "AI Adoption",
            "Machine Learning in Practice",
            "Product Development"
        ],
        "\"A.I.\" counts as AI"
    );
    assert_eq!(plain["personalized"], false);
    let (status, _) = d
        .call(
            "PATCH",
            "/api/user/profile",
            Some(&t),
            Some(json!({"resume": "Head of enterprise sales; business development."})),
        )
        .await;
    assert_eq!(status, 200);
    let (_, mine) = d.get(&path, Some(&t)).await;
    assert_eq!(titles(&mine)[0], "Business Impact", "{mine}");
    assert_eq!(mine["personalized"], true);
}

#[tokio::test]
async fn removing_an_item_takes_it_out_of_every_list_and_count() {
    let dir = tempfile::tempdir().unwrap();
    let d = demo_daemon(&dir.path().join("data"));
    let t = d.sign_up("counts@example.com", "secret-password").await;
    subscribers(&d, "grant", "counts@example.com");
    let (_, page) = d.get("/api/news", Some(&t)).await;
    let page = ids(&page["items"]);
    mark(&d, &t, "read", &page[0]).await;
    mark(&d, &t, "hidden", &page[1]).await;
    let (_, before) = d.get("/api/news", Some(&t)).await;
    assert_eq!(before["total"], 62);
    let out = radar(&d.data)
        .args(["items", "remove", &page[0]])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let (_, read) = d.get("/api/read", Some(&t)).await;
    assert_eq!(read, json!([]));
    let (_, after) = d.get("/api/news", Some(&t)).await;
    assert_eq!(after["total"], 62, "63 items, one of them hidden");
}

#[tokio::test]
async fn opening_from_the_feed_reads_the_item_and_the_unread_count_follows() {
    let dir = tempfile::tempdir().unwrap();
    let d = demo_daemon(&dir.path().join("data"));
    let t = d.sign_up("reader@example.com", "secret-password").await;
    subscribers(&d, "grant", "reader@example.com");
    let unread = async || {
        d.get("/api/unread", Some(&t)).await.1["unread"]
            .as_u64()
            .unwrap()
    };
    let (_, first) = d.get("/api/news", Some(&t)).await;
    let before = unread().await;
    assert_eq!(
        json!(before),
        first["total"],
        "the count is the feed's total"
    );
    let items = ids(&first["items"]);
    let open = async |id: &str, from: &str| {
        d.call(
            "POST",
            &format!("/api/news/{id}/open"),
            Some(&t),
            Some(json!({ "from": from })),
        )
        .await
    };

    let (status, opened) = open(&items[0], "feed").await;
    assert_eq!(status, 200, "{opened}");
    assert_eq!(opened["markedRead"], true);
    assert_eq!(opened["marks"]["read"], true);
    assert_eq!(unread().await, before - 1);
    let (_, check) = d
        .get(&format!("/api/read/check/{}", items[0]), Some(&t))
        .await;
    assert_eq!(check["read"], true);
    let (_, after) = d.get("/api/news", Some(&t)).await;
    assert!(
        !ids(&after["items"]).contains(&items[0]),
        "out of the feed on reload"
    );

    // A favourite opened from the feed stays a favourite, and nothing is counted.
    mark(&d, &t, "favorites", &items[1]).await;
    let (_, opened) = open(&items[1], "feed").await;
    assert_eq!(opened["markedRead"], false);
    assert_eq!(opened["marks"]["favorite"], true);
    // Opening from the reader's own lists changes nothing.
    let (_, opened) = open(&items[2], "shared").await;
    assert_eq!(
        (&opened["markedRead"], &opened["marks"]["read"]),
        (&json!(false), &json!(false))
    );
    assert_eq!(unread().await, before - 1);

    // With the setting off, opening leaves the item unread.
    d.call(
        "PATCH",
        "/api/user/profile",
        Some(&t),
        Some(json!({"markOnOpen": false})),
    )
    .await;
    let (_, opened) = open(&items[3], "drops").await;
    assert_eq!(opened["markedRead"], false);
    assert_eq!(unread().await, before - 1);

    // Mistakes get a clear answer.
    assert_eq!(
        assert_error(&open(&items[3], "inbox").await, 400),
        "invalid_body"
    );
    assert_eq!(
        assert_error(&open("no-such-item", "feed").await, 404),
        "not_found"
    );
}

#[tokio::test]
async fn a_free_readers_unread_count_is_what_they_may_still_read() {
    let dir = tempfile::tempdir().unwrap();
    let d = demo_daemon(&dir.path().join("data"));
    let t = d.sign_up("free@example.com", "secret-password").await;
    assert_eq!(
        d.get("/api/unread", Some(&t)).await,
        (200, json!({"unread": FREE_LIMIT}))
    );
}

#[tokio::test]
async fn mark_all_read_is_one_cut_off_that_an_undo_puts_back() {
    let dir = tempfile::tempdir().unwrap();
    let d = demo_daemon(&dir.path().join("data"));
    let t = d.sign_up("triage@example.com", "secret-password").await;
    subscribers(&d, "grant", "triage@example.com");
    let (_, before) = d.get("/api/news", Some(&t)).await;
    let total = before["total"].as_u64().unwrap();
    assert!(total > 20, "{before}");
    let favourite = ids(&before["items"]).swap_remove(0);
    mark(&d, &t, "favorites", &favourite).await;

    let (status, all) = d
        .call(
            "POST",
            "/api/read-before",
            Some(&t),
            Some(json!({"olderThan": "all"})),
        )
        .await;
    assert_eq!(status, 200, "{all}");
    assert_eq!(
        (&all["previous"], &all["unread"]),
        (&Value::Null, &json!(0))
    );
    let (_, after) = d.get("/api/news", Some(&t)).await;
    assert_eq!(
        (after["items"].as_array().unwrap().len(), &after["total"]),
        (0, &json!(0))
    );
    assert_eq!(d.get("/api/unread", Some(&t)).await.1["unread"], 0);
    // Marks are left as they were: the favourite is still one, nothing was read one by one.
    let (_, favs) = d.get("/api/favorites", Some(&t)).await;
    assert_eq!(ids(&favs), std::slice::from_ref(&favourite));
    assert_eq!(d.get("/api/read", Some(&t)).await.1, json!([]));

    // The undo puts the previous cut-off (none) back.
    let (status, undone) = d
        .call(
            "PUT",
            "/api/read-before",
            Some(&t),
            Some(json!({"readBefore": all["previous"]})),
        )
        .await;
    assert_eq!(status, 200, "{undone}");
    assert_eq!(undone["unread"], total);
    assert_eq!(d.get("/api/news", Some(&t)).await.1["total"], total);

    // Older than a week reaches only what is that old; the demo's items are recent.
    let (_, week) = d
        .call(
            "POST",
            "/api/read-before",
            Some(&t),
            Some(json!({"olderThan": "week"})),
        )
        .await;
    let cut = chrono::DateTime::parse_from_rfc3339(week["readBefore"].as_str().unwrap()).unwrap();
    let expected = chrono::Utc::now() - chrono::Duration::days(7);
    assert!(
        (cut.timestamp() - expected.timestamp()).abs() < 60,
        "{week}"
    );

    for bad in [
        json!({"olderThan": "month"}),
        json!({}),
        json!({"readBefore": "yesterday"}),
    ] {
        let got = d
            .call("POST", "/api/read-before", Some(&t), Some(bad.clone()))
            .await;
        assert_eq!(assert_error(&got, 400), "invalid_body", "{bad}");
    }
    let got = d
        .call(
            "PUT",
            "/api/read-before",
            Some(&t),
            Some(json!({"readBefore": 5})),
        )
        .await;
    assert_eq!(assert_error(&got, 400), "invalid_body");
}
