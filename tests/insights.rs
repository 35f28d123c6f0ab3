//! The Insights tab (docs/product.md §15) through the real binary: items dated from the
//! test's clock (now), readers reading them, the totals job counting every second. The
//! comparison with all readers is hidden at 19 readers and shown at 20; the stories
//! missed leave out what the reader read; a free reader gets 403; one reader's history is
//! never in another's answer.

use std::time::Duration;

use chrono::Utc;
use serde_json::{Value, json};

use crate::admin::cli_with;
use crate::util::{Daemon, assert_error};

const PASSWORD: &str = "secret-password";

/// Items published hours ago: two outlets' reports of one chips story, a robotics story
/// and a policy story. Answers their ids by title.
async fn items(dir: &std::path::Path) -> Vec<(String, String)> {
    let hours_ago = |h: i64| (Utc::now() - chrono::Duration::hours(h)).to_rfc3339();
    let lines: Vec<Value> = vec![
        json!({"title": "Nvidia unveils new GPU chips for datacenters", "summary": "Nvidia unveils new GPU chips for datacenters, doubling inference throughput for large clusters.", "url": "https://chips.example/nvidia", "published_date": hours_ago(5)}),
        json!({"title": "Nvidia GPU chips for datacenters unveiled", "summary": "Nvidia unveils new GPU chips for datacenters, doubling inference throughput for large clusters, the company said.", "url": "https://other.example/nvidia-gpu", "published_date": hours_ago(4)}),
        json!({"title": "Warehouse robots learn to fold laundry", "summary": "A robotics lab trained warehouse robots to fold laundry from a few demonstrations.", "url": "https://robots.example/laundry", "published_date": hours_ago(3)}),
        json!({"title": "Regulators publish regulation for chatbots", "summary": "New regulation sets rules for chatbots sold to consumers across the union.", "url": "https://policy.example/chatbots", "published_date": hours_ago(2)}),
    ];
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let out = cli_with(dir, &["items", "import", "-", "--json"], &input, &[]).await;
    assert_eq!(out.ok_json()["added"], 4);
    let listed = crate::admin::cli(dir, &["items", "list", "--limit", "100", "--json"])
        .await
        .ok_json();
    listed
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["title"].as_str().unwrap().to_string(),
                i["id"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn id_of(items: &[(String, String)], title_start: &str) -> String {
    items
        .iter()
        .find(|(t, _)| t.starts_with(title_start))
        .unwrap_or_else(|| panic!("no item {title_start}"))
        .1
        .clone()
}

/// Polls the caller's insights until `done` holds (the totals job counts every second).
async fn insights_when(d: &Daemon, token: &str, done: impl Fn(&Value) -> bool) -> Value {
    let mut last = Value::Null;
    for _ in 0..100 {
        let (status, body) = d.get("/api/insights", Some(token)).await;
        assert_eq!(status, 200, "{body}");
        if done(&body) {
            return body;
        }
        last = body;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the insights never became as expected: {last}");
}

#[tokio::test]
async fn insights_compare_from_twenty_readers_and_keep_each_readers_history_their_own() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let d = Daemon::start_with(
        &dir,
        &[
            "--no-demo",
            "--no-feed-polling",
            "--reading-totals-every",
            "1s",
            // 23 accounts signed up from one address.
            "--sign-in-rate",
            "100",
            "--complimentary",
            "me@example.com,other@example.com",
        ],
        &[],
    );
    let items = items(&dir).await;
    let chips = id_of(&items, "Nvidia unveils");
    let chips_again = id_of(&items, "Nvidia GPU");
    let robots = id_of(&items, "Warehouse");
    let policy = id_of(&items, "Regulators");

    // Signed out: 401; a free reader: 403 with the premium wording.
    assert_error(&d.get("/api/insights", None).await, 401);
    let free = d.sign_up("free@example.com", PASSWORD).await;
    let refused = d.get("/api/insights", Some(&free)).await;
    assert_eq!(assert_error(&refused, 403), "subscription_required");
    assert!(
        refused.1["message"]
            .as_str()
            .unwrap()
            .contains("Insights are for subscribers"),
        "{refused:?}"
    );

    let me = d.sign_up("me@example.com", PASSWORD).await;
    let other = d.sign_up("other@example.com", PASSWORD).await;
    let (status, _) = d
        .call(
            "PATCH",
            "/api/user/profile",
            Some(&me),
            Some(json!({"resume": "Product lead for robotics and GPU infrastructure."})),
        )
        .await;
    assert_eq!(status, 200);
    // I open the robotics story (marked read on open) and mark the policy story read.
    let (status, opened) = d
        .call(
            "POST",
            &format!("/api/news/{robots}/open"),
            Some(&me),
            Some(json!({"from": "feed"})),
        )
        .await;
    assert_eq!(
        (status, opened["markedRead"].clone()),
        (200, json!(true)),
        "{opened}"
    );
    assert_eq!(
        d.call("POST", &format!("/api/read/{policy}"), Some(&me), None)
            .await
            .0,
        200
    );
    // 18 more readers read the chips story: 19 readers with me.
    let mut readers = Vec::new();
    for n in 0..19 {
        readers.push(d.sign_up(&format!("reader{n}@example.com"), PASSWORD).await);
    }
    for token in &readers[..18] {
        assert_eq!(
            d.call("POST", &format!("/api/read/{chips}"), Some(token), None)
                .await
                .0,
            200
        );
    }
    let hidden = insights_when(&d, &me, |b| b["comparison"]["readers"] == 19).await;
    assert_eq!(hidden["comparison"]["shown"], false, "{hidden}");
    assert_eq!(hidden["comparison"]["minReaders"], 20);
    assert_eq!(hidden["comparison"]["topics"], json!([]));
    assert!(
        hidden["comparison"]["hiddenReason"]
            .as_str()
            .unwrap()
            .contains("20 readers"),
        "{hidden}"
    );
    // My week: two reads, by topic and source.
    assert_eq!(hidden["reads"], 2, "{hidden}");
    let topics: Vec<&str> = hidden["topics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["topic"].as_str().unwrap())
        .collect();
    assert!(
        topics.contains(&"Robotics") && topics.contains(&"Policy"),
        "{hidden}"
    );
    assert_eq!(hidden["sources"].as_array().unwrap().len(), 2, "{hidden}");
    // Missed: the chips story (two outlets, 18 readers) first; nothing I read.
    let missed: Vec<&str> = hidden["missed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert!(
        missed.first() == Some(&chips.as_str()) || missed.first() == Some(&chips_again.as_str()),
        "{hidden}"
    );
    assert_eq!(hidden["missed"][0]["outlets"], 2, "{hidden}");
    assert_eq!(
        hidden["missed"][0]["readers"],
        Value::Null,
        "no count below 20 readers: {hidden}"
    );
    assert!(
        !missed.contains(&robots.as_str()) && !missed.contains(&policy.as_str()),
        "{hidden}"
    );
    // The resume's terms the week named.
    let terms: Vec<&str> = hidden["resumeTerms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["term"].as_str().unwrap())
        .collect();
    assert!(
        terms.contains(&"gpu") && terms.contains(&"robotics"),
        "{hidden}"
    );

    // Another subscriber, who read nothing, sees none of my reads.
    let theirs = d.get("/api/insights", Some(&other)).await.1;
    assert_eq!(theirs["reads"], 0, "{theirs}");
    assert_eq!(theirs["topics"], json!([]), "{theirs}");
    assert_eq!(theirs["sources"], json!([]), "{theirs}");
    assert_eq!(theirs["resumeTerms"], json!([]), "{theirs}");

    // The 20th reader: the comparison shows, shares of reads per topic.
    assert_eq!(
        d.call(
            "POST",
            &format!("/api/read/{chips}"),
            Some(&readers[18]),
            None
        )
        .await
        .0,
        200
    );
    let shown = insights_when(&d, &me, |b| b["comparison"]["readers"] == 20).await;
    assert_eq!(shown["comparison"]["shown"], true, "{shown}");
    assert!(shown["comparison"]["hiddenReason"].is_null(), "{shown}");
    assert_eq!(shown["missed"][0]["readers"], 19, "{shown}");
    let share = |topic: &str, who: &str| {
        shown["comparison"]["topics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["topic"] == topic)
            .unwrap_or_else(|| panic!("{topic}: {shown}"))[who]
            .as_f64()
            .unwrap()
    };
    // 21 reads: 19 of chips, mine of robotics and policy.
    assert!(
        (share("Chips & compute", "everyone") - 19.0 / 21.0).abs() < 1e-9,
        "{shown}"
    );
    assert!((share("Robotics", "yours") - 0.5).abs() < 1e-9, "{shown}");
    assert!(share("Chips & compute", "yours").abs() < 1e-9, "{shown}");

    // Deleting my account takes my history with it: the next count has 19 readers.
    let deleted = crate::admin::cli(&dir, &["users", "delete", "me@example.com"]).await;
    assert_eq!(deleted.code, 0, "{deleted:?}");
    insights_when(&d, &other, |b| b["comparison"]["readers"] == 19).await;
}
