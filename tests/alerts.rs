//! Custom news alerts end to end: saving a search, the free reader's one alert, matching
//! only new items that match, one mail per interval through a stand-in SMTP server with
//! its unsubscribe header and a link that works signed out, the in-app list and badge,
//! and one reader never reaching another's alerts.

use std::time::Duration;

use chrono::Utc;
use serde_json::json;

use crate::admin::cli;
use crate::auth::{mailing_daemon, next_mail};
use crate::util::assert_error;

async fn add_item(data: &std::path::Path, title: &str, url: &str, published: Option<&str>) {
    let mut args = vec![
        "items",
        "add",
        "--title",
        title,
        "--summary",
        "A report.",
        "--url",
        url,
    ];
    if let Some(p) = published {
        args.extend(["--published", p]);
    }
    let out = cli(data, &args).await;
    assert_eq!(out.code, 0, "{out:?}");
}

#[tokio::test]
async fn an_alert_announces_new_matching_items_and_mails_once_per_interval() {
    let tmp = tempfile::tempdir().unwrap();
    let (d, mut mails) = mailing_daemon(tmp.path(), &["--mail-every", "1"]).await;
    let data = tmp.path().join("data");
    let ada = d.sign_up("ada@example.com", "correct horse battery").await;

    let bad = d
        .call(
            "POST",
            "/api/alerts",
            Some(&ada),
            Some(json!({"query": "\"open weights"})),
        )
        .await;
    assert_error(&bad, 400);
    assert!(
        bad.1["message"].as_str().unwrap().contains("quote"),
        "{}",
        bad.1
    );
    let (status, alert) = d
        .call(
            "POST",
            "/api/alerts",
            Some(&ada),
            Some(json!({"query": "\"open weights\"", "interval": "hourly"})),
        )
        .await;
    assert_eq!(status, 201, "{alert}");
    let id = alert["id"].as_str().unwrap().to_string();
    let second = d
        .call(
            "POST",
            "/api/alerts",
            Some(&ada),
            Some(json!({"query": "gemini"})),
        )
        .await;
    assert_error(&second, 403);
    assert!(
        second.1["message"]
            .as_str()
            .unwrap()
            .contains("Free readers can keep 1 alert"),
        "the answer says why: {}",
        second.1
    );

    let yesterday = (Utc::now() - chrono::Duration::days(1))
        .format("%Y-%m-%d")
        .to_string();
    add_item(
        &data,
        "Open weights, from before the alert",
        "https://a.example/0",
        Some(&yesterday),
    )
    .await;
    add_item(&data, "A closed model ships", "https://a.example/1", None).await;
    add_item(&data, "Open weights model one", "https://a.example/2", None).await;
    add_item(&data, "Open weights model two", "https://a.example/3", None).await;

    let mail = next_mail(&mut mails).await;
    assert_eq!(mail.to, "ada@example.com");
    for title in ["Open weights model one", "Open weights model two"] {
        assert!(mail.body.contains(title), "{title} in {}", mail.body);
    }
    for title in ["from before the alert", "A closed model"] {
        assert!(!mail.body.contains(title), "{title} not in {}", mail.body);
    }
    let unsubscribe_header = mail
        .headers
        .lines()
        .find(|l| l.to_ascii_lowercase().starts_with("list-unsubscribe:"))
        .unwrap_or_else(|| panic!("a List-Unsubscribe header in {}", mail.headers));
    assert!(
        unsubscribe_header.contains("/api/unsubscribe?token="),
        "{unsubscribe_header}"
    );
    assert!(
        mail.headers
            .contains("List-Unsubscribe-Post: List-Unsubscribe=One-Click")
    );

    // A third match within the hour waits for the next interval: no second mail.
    add_item(
        &data,
        "Open weights model three",
        "https://a.example/4",
        None,
    )
    .await;
    assert!(
        tokio::time::timeout(Duration::from_secs(4), mails.recv())
            .await
            .is_err(),
        "a second mail within the alert's interval"
    );

    // In the app: the badge counts the three, the list shows them newest first, once.
    let (_, list) = d.get("/api/alerts", Some(&ada)).await;
    assert_eq!(list["unseen"], 3, "{list}");
    assert_eq!(list["limit"], 1);
    let (status, hits) = d.get("/api/alerts/matches", Some(&ada)).await;
    assert_eq!(status, 200, "{hits}");
    let titles: Vec<&str> = hits["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["item"]["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles.len(), 3, "{titles:?}");
    assert_eq!(titles[0], "Open weights model three");
    assert_eq!(
        d.get("/api/alerts", Some(&ada)).await.1["unseen"],
        0,
        "seen once listed"
    );

    // Another reader neither sees nor changes ada's alert.
    let bob = d.sign_up("bob@example.com", "correct horse battery").await;
    assert_eq!(
        d.get("/api/alerts", Some(&bob)).await.1["alerts"],
        json!([])
    );
    let path = format!("/api/alerts/{id}");
    assert_error(&d.call("DELETE", &path, Some(&bob), None).await, 404);
    assert_error(
        &d.call("PATCH", &path, Some(&bob), Some(json!({"email": false})))
            .await,
        404,
    );

    // The mail's link works signed out, and a damaged one says what to do.
    let start = mail.body.find("http").unwrap();
    let link: String = mail.body[start..]
        .lines()
        .find(|l| l.contains("/unsubscribe?token="))
        .or_else(|| {
            mail.body
                .lines()
                .find(|l| l.contains("/unsubscribe?token="))
        })
        .unwrap()
        .trim()
        .to_string();
    let token = link.split("token=").nth(1).unwrap().to_string();
    let (status, done) = d
        .call(
            "POST",
            &format!("/api/unsubscribe?token={token}"),
            None,
            None,
        )
        .await;
    assert_eq!(status, 200, "{done}");
    assert_eq!(done["stopped"], "the alert “\"open weights\"”");
    assert_eq!(
        d.get("/api/alerts", Some(&ada)).await.1["alerts"][0]["email"],
        false
    );
    let damaged = d
        .call("POST", "/api/unsubscribe?token=x.y.z", None, None)
        .await;
    assert_error(&damaged, 400);
    // An access token is not an unsubscribe link.
    let access = d
        .call("POST", &format!("/api/unsubscribe?token={ada}"), None, None)
        .await;
    assert_error(&access, 400);

    // Deleted, the alert makes room for another.
    assert_eq!(d.call("DELETE", &path, Some(&ada), None).await.0, 204);
    let (status, _) = d
        .call(
            "POST",
            "/api/alerts",
            Some(&ada),
            Some(json!({"query": "gemini"})),
        )
        .await;
    assert_eq!(status, 201);
}
