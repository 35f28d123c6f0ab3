//! Weekly summaries (issue 7) on the demo data: the previous week's summary has that
//! week's dates and item count and content drawn from that week only (issues 15 and 28: a
//! title naming its lead story, no story told twice, no catch-all section, every story
//! linked with its publication's name); an empty
//! week is reported; the LLM path against a local stub (success, failure, timeout, each failure
//! falling back to the local summariser); the daemon's summary schedule.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use chrono::{DateTime, Datelike, NaiveDate, Utc, Weekday};
use radar_daemon::ingest::clean::sentences;
use radar_store::display::strip_citations;
use serde_json::{Value, json};

use crate::admin::{cli, cli_with};
use crate::util::Daemon;

/// The previous full ISO week: label, Monday 00:00 UTC and the next Monday.
fn previous_week() -> (String, DateTime<Utc>, DateTime<Utc>) {
    let day = (Utc::now() - chrono::Duration::days(7)).date_naive();
    let iso = day.iso_week();
    let monday = NaiveDate::from_isoywd_opt(iso.year(), iso.week(), Weekday::Mon).unwrap();
    let start = monday.and_hms_opt(0, 0, 0).unwrap().and_utc();
    (
        format!("{}-W{:02}", iso.year(), iso.week()),
        start,
        start + chrono::Duration::days(7),
    )
}

/// A data directory holding the demo data (loaded by a daemon that then stopped).
async fn demo_dir(tmp: &tempfile::TempDir) -> std::path::PathBuf {
    let dir = tmp.path().join("data");
    let d = Daemon::start_with(&dir, &["--no-feed-polling"], &[]);
    // One answered request: the daemon is past start-up and handles SIGTERM.
    assert_eq!(d.get("/api/news", None).await.0, 200);
    d.stop();
    dir
}

/// The demo items published in [start, end).
async fn items_between(
    dir: &std::path::Path,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> Vec<Value> {
    let all = cli(dir, &["items", "list", "--limit", "10000", "--json"])
        .await
        .ok_json();
    all.as_array()
        .unwrap()
        .iter()
        .filter(|i| {
            let t: DateTime<Utc> = i["published_date"].as_str().unwrap().parse().unwrap();
            t >= start && t < end
        })
        .cloned()
        .collect()
}

#[tokio::test]
async fn the_previous_week_is_summarised_from_its_own_items() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = demo_dir(&tmp).await;
    let (label, start, end) = previous_week();
    let week_items = items_between(&dir, start, end).await;
    assert!(week_items.len() >= 3, "the demo data has items last week");

    let g = cli(&dir, &["summaries", "generate", "--json"])
        .await
        .ok_json();
    assert_eq!(g["method"], "local");
    let s = &g["summary"];
    assert_eq!(s["id"], label.as_str());
    // Issues 15 and 28: the title says what the week was about: its lead story's headline.
    let title = s["title"].as_str().unwrap();
    let lead_story = cited_stories(s["summary"].as_str().unwrap());
    let (_, lead_url) = lead_story[0]
        .1
        .as_ref()
        .expect("the lead is cited with its link");
    let lead_item = week_items
        .iter()
        .find(|i| i["url"] == lead_url.as_str())
        .unwrap();
    assert_eq!(
        title,
        lead_item["title"].as_str().unwrap().trim_end_matches('.'),
        "{s}"
    );
    assert_eq!(
        s["start_date"]
            .as_str()
            .unwrap()
            .parse::<DateTime<Utc>>()
            .unwrap(),
        start
    );
    assert_eq!(
        s["end_date"]
            .as_str()
            .unwrap()
            .parse::<DateTime<Utc>>()
            .unwrap(),
        end - chrono::Duration::seconds(1)
    );
    assert_eq!(s["article_count"], week_items.len());
    assert!(
        s["summary"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{} stories this week", week_items.len())),
        "{s}"
    );

    // Every sentence of the content comes from an item of that week, and each story is
    // followed by its source's link (issue 15), the link of the item it comes from.
    let own_text = |i: &Value| {
        strip_citations(&format!(
            "{}. {} {}",
            i["title"].as_str().unwrap(),
            i["summary"].as_str().unwrap(),
            i["content"].as_str().unwrap()
        ))
    };
    let content = s["content"].as_array().unwrap();
    assert!(content.len() >= 2, "{s}");
    // Issue 15: the lead story is not repeated word for word below.
    let lead = s["summary"].as_str().unwrap().split_once(". ").unwrap().1;
    let mut linked = 0;
    for p in content {
        let p = p.as_str().unwrap();
        assert!(!p.contains("[1]"), "citation markers are stripped: {p}");
        assert!(!p.contains(lead), "the lead {lead:?} again in {p:?}");
        let body = p.split_once(": ").map_or(p, |(_, b)| b);
        for (story, cite) in cited_stories(body) {
            let Some((_, url)) = cite else {
                // The end of a paragraph: only stories without a link of their own.
                for sentence in sentences(&story) {
                    assert!(
                        week_items.iter().any(|i| i["url"].is_null()
                            && own_text(i).contains(sentence.trim_end_matches('.'))),
                        "{sentence:?} has no link in {p:?}"
                    );
                }
                continue;
            };
            let item = week_items
                .iter()
                .find(|i| i["url"] == url.as_str())
                .unwrap_or_else(|| panic!("{url} is no item of the week"));
            for sentence in sentences(&story) {
                let sentence = sentence.trim_end_matches('.');
                // A story without a link of its own may come before a cited one.
                let unlinked = week_items
                    .iter()
                    .any(|i| i["url"].is_null() && own_text(i).contains(sentence));
                assert!(
                    own_text(item).contains(sentence) || unlinked,
                    "{sentence:?} is not from {url}"
                );
            }
            linked += 1;
        }
    }
    assert!(linked >= 3, "{s}");

    // Issue 28: no story twice (no item's link, no lead sentence), no catch-all section,
    // and every story with its publication's name as the reader shows it.
    let mut cited: Vec<(String, String)> = Vec::new();
    let texts = std::iter::once(s["summary"].as_str().unwrap().to_string()).chain(
        content
            .iter()
            .map(|p| p.as_str().unwrap().split_once(": ").unwrap().1.to_string()),
    );
    for text in texts {
        cited.extend(
            cited_stories(&text)
                .into_iter()
                .filter_map(|(_, cite)| cite),
        );
    }
    for (source, url) in &cited {
        assert_eq!(
            cited.iter().filter(|c| &c.1 == url).count(),
            1,
            "{url} twice: {s}"
        );
        let item = week_items
            .iter()
            .find(|i| i["url"] == url.as_str())
            .unwrap();
        assert_eq!(item["source"], source.as_str(), "{url}");
    }
    for p in content {
        let (section, _) = p.as_str().unwrap().split_once(": ").unwrap();
        assert_ne!(section, "Also this week", "{s}");
    }

    // The same week again from the same items: the same text (deterministic).
    let again = cli(&dir, &["summaries", "generate", "--force", "--json"])
        .await
        .ok_json();
    assert_eq!(again["summary"]["content"], s["content"]);
    assert_eq!(again["summary"]["summary"], s["summary"]);

    // The reader API serves it.
    let d = Daemon::start_with(&dir, &["--no-feed-polling"], &[]);
    let token = d.sign_up("reader@example.com", "secret-1").await;
    let (status, archive) = d.get("/api/weekly-summary/archive", Some(&token)).await;
    assert_eq!(status, 200, "{archive}");
    assert!(archive.to_string().contains(&label), "{archive}");
}

#[tokio::test]
async fn a_week_without_items_is_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = demo_dir(&tmp).await;
    let out = cli(&dir, &["summaries", "generate", "--week", "2020-W10"]).await;
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr
            .contains("no items were published in 2020-W10 (2020-03-02 to 2020-03-08)"),
        "{out:?}"
    );
    assert_eq!(
        cli(&dir, &["summaries", "list", "--json"]).await.ok_json(),
        json!([])
    );
    let bad = cli(&dir, &["summaries", "generate", "--week", "last-week"]).await;
    assert_eq!(bad.code, 2, "a malformed week is a usage error: {bad:?}");
    assert!(bad.stderr.contains("YYYY-Www"), "{bad:?}");
}

/// The stories of a summary paragraph: each one's text and the publication and link
/// cited after it, as in "A sentence. (Source: https://...) Another. (Other: https://...)".
fn cited_stories(body: &str) -> Vec<(String, Option<(String, String)>)> {
    let mut out = Vec::new();
    let mut rest = body;
    while !rest.trim().is_empty() {
        let cite = rest.find(" (").filter(|&at| {
            let inner = &rest[at + 2..];
            inner
                .find(')')
                .is_some_and(|end| inner[..end].contains(": http"))
        });
        let Some(at) = cite else {
            out.push((rest.trim().to_string(), None));
            break;
        };
        let inner = &rest[at + 2..];
        let end = inner.find(')').unwrap();
        let (source, url) = inner[..end].split_once(": ").unwrap();
        out.push((
            rest[..at].trim().to_string(),
            Some((source.to_string(), url.to_string())),
        ));
        rest = &inner[end + 1..];
    }
    out
}

/// What the LLM stub does and saw.
#[derive(Default)]
struct Stub {
    /// `ok`, `fail` or `slow`.
    mode: Mutex<&'static str>,
    /// Authorization headers and bodies received.
    calls: Mutex<Vec<(String, Value)>>,
}

async fn chat(
    State(stub): State<Arc<Stub>>,
    headers: HeaderMap,
    body: axum::Json<Value>,
) -> Response {
    let auth = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let key_points = body.0["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .contains("All You Need to Know");
    stub.calls.lock().unwrap().push((auth, body.0));
    let mode = *stub.mode.lock().unwrap();
    let reply = |content: &str| {
        axum::Json(json!({
            "id": "chatcmpl-1",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]
        }))
        .into_response()
    };
    match mode {
        "ok" | "points_bad" if key_points => {
            if mode == "ok" {
                reply(
                    "Here you are:\n1. Point one.\n2. Point two.\n3. Point three.\n4. Point four.\n5. Point five.",
                )
            } else {
                reply("1. Point one.\nI could not do the others.")
            }
        }
        "fail" => (StatusCode::INTERNAL_SERVER_ERROR, "model overloaded").into_response(),
        "slow" => {
            tokio::time::sleep(Duration::from_secs(5)).await;
            axum::Json(json!({})).into_response()
        }
        _ => reply(
            "Title: Agents and chips lead the week\nThe gist of the week.\n\nModels paragraph.\n\nChips paragraph.",
        ),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_llm_summariser_and_its_fallback() {
    let stub = Arc::new(Stub {
        mode: Mutex::new("ok"),
        ..Default::default()
    });
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .with_state(stub.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let env = [
        ("RADAR_LLM_URL", url.as_str()),
        ("RADAR_LLM_MODEL", "test-model"),
        ("RADAR_LLM_KEY", "sk-test"),
        ("RADAR_LLM_TIMEOUT", "1"),
    ];

    let tmp = tempfile::tempdir().unwrap();
    let dir = demo_dir(&tmp).await;
    let (label, start, end) = previous_week();
    let week_items = items_between(&dir, start, end).await;

    let ok = cli_with(&dir, &["summaries", "generate", "--json"], "", &env)
        .await
        .ok_json();
    assert_eq!(ok["method"], "llm");
    assert_eq!(ok["summary"]["title"], "Agents and chips lead the week");
    assert_eq!(ok["summary"]["summary"], "The gist of the week.");
    let content = ok["summary"]["content"].as_array().unwrap();
    assert_eq!(
        content[..2],
        [json!("Models paragraph."), json!("Chips paragraph.")]
    );
    // Issue 15: whatever the model wrote, the content links the week's stories.
    let sources = content[2].as_str().unwrap();
    assert!(sources.starts_with("Sources: "), "{sources}");
    for i in week_items.iter().filter(|i| i["url"].is_string()) {
        assert!(
            sources.contains(&format!(
                "{} ({})",
                i["title"].as_str().unwrap(),
                i["url"].as_str().unwrap()
            )),
            "{sources}"
        );
    }
    assert_eq!(ok["summary"]["article_count"], week_items.len());
    assert_eq!(ok["summary"]["id"], label.as_str());
    // The model told the five biggest stories in its own sentences; their sources stay
    // those of the ranking.
    let points = ok["summary"]["key_points"].as_array().unwrap();
    assert_eq!(points.len(), 5, "{ok}");
    for (point, n) in points.iter().zip(["one", "two", "three", "four", "five"]) {
        assert_eq!(point["text"], format!("Point {n}."));
        assert!(!point["sources"].as_array().unwrap().is_empty(), "{point}");
    }
    assert!(ok["warning"].is_null(), "{ok}");
    {
        let calls = stub.calls.lock().unwrap();
        let [(auth, body), (points_auth, points_body)] = &calls[calls.len() - 2..] else {
            unreachable!()
        };
        assert_eq!(points_auth, "Bearer sk-test");
        let asked = points_body["messages"][1]["content"].as_str().unwrap();
        for point in points {
            let source = point["sources"][0]["url"].as_str().unwrap();
            let item = week_items.iter().find(|i| i["url"] == source).unwrap();
            assert!(
                asked.contains(item["title"].as_str().unwrap()),
                "the key points' prompt gives each story's reports: {asked}"
            );
        }
        assert_eq!(auth, "Bearer sk-test");
        assert_eq!(body["model"], "test-model");
        let prompt = body["messages"][1]["content"].as_str().unwrap();
        assert!(
            prompt.contains(week_items[0]["title"].as_str().unwrap()),
            "the prompt lists the week's items"
        );
        assert!(
            week_items
                .iter()
                .filter_map(|i| i["url"].as_str())
                .all(|url| prompt.contains(url)),
            "and their links"
        );
    }

    // The same week again, replacing the summary, with the stand-in doing as told.
    let regenerate = || {
        cli_with(
            &dir,
            &["summaries", "generate", "--force", "--json"],
            "",
            &env,
        )
    };

    // The model writes the summary but not the key points: the extracted sentences stay,
    // with a warning.
    *stub.mode.lock().unwrap() = "points_bad";
    let half = regenerate().await.ok_json();
    assert_eq!(half["method"], "llm");
    assert!(
        half["warning"]
            .as_str()
            .unwrap()
            .contains("kept the key points extracted"),
        "{half}"
    );
    let kept = half["summary"]["key_points"].as_array().unwrap();
    assert_eq!(kept.len(), 5);
    assert!(
        kept.iter()
            .all(|p| !p["text"].as_str().unwrap().starts_with("Point ")),
        "{half}"
    );

    // The endpoint fails: the local summariser stands in, with a warning; still success.
    *stub.mode.lock().unwrap() = "fail";
    let failed = regenerate().await;
    let v = failed.ok_json();
    assert_eq!(v["method"], "local");
    assert!(v["warning"].as_str().unwrap().contains("500"), "{v}");
    assert!(
        failed.stderr.contains("warning:") && failed.stderr.contains("local summariser"),
        "{failed:?}"
    );
    assert!(!v["summary"]["content"].as_array().unwrap().is_empty());
    let title = v["summary"]["title"].as_str().unwrap();
    assert!(
        week_items
            .iter()
            .any(|i| i["title"].as_str().unwrap().trim_end_matches('.') == title),
        "the local summariser titles the week by its lead story: {v}"
    );

    // The endpoint hangs: the timeout ends the wait, and the local one stands in.
    *stub.mode.lock().unwrap() = "slow";
    let started = std::time::Instant::now();
    let slow = regenerate().await;
    let v = slow.ok_json();
    assert_eq!(v["method"], "local");
    assert!(
        v["warning"]
            .as_str()
            .unwrap()
            .contains("did not answer within 1 s"),
        "{v}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "the timeout was honoured"
    );

    // Unreachable: same fallback.
    let gone = [
        ("RADAR_LLM_URL", "http://127.0.0.1:9/v1"),
        ("RADAR_LLM_MODEL", "m"),
        ("RADAR_LLM_KEY", "k"),
    ];
    let v = cli_with(
        &dir,
        &["summaries", "generate", "--force", "--json"],
        "",
        &gone,
    )
    .await
    .ok_json();
    assert_eq!(v["method"], "local");

    // The daemon uses the LLM from its own environment.
    *stub.mode.lock().unwrap() = "ok";
    let d = Daemon::start_with(&dir, &["--no-feed-polling"], &env);
    let live = cli(&dir, &["summaries", "generate", "--force", "--json"])
        .await
        .ok_json();
    assert_eq!(live["method"], "llm");
    drop(d);
}

#[tokio::test]
async fn the_daemon_writes_last_weeks_summary_on_schedule() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let (label, _, _) = previous_week();
    let d = Daemon::start_with(&dir, &["--no-feed-polling", "--summary-schedule"], &[]);
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let list = cli(&dir, &["summaries", "list", "--json"]).await.ok_json();
        if let Some(first) = list.as_array().unwrap().first() {
            assert_eq!(first["id"], label.as_str());
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no summary was written on schedule"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    // Removed by hand, it stays removed, even across a restart.
    assert_eq!(cli(&dir, &["summaries", "remove", &label]).await.code, 0);
    d.stop();
    let d = Daemon::start_with(&dir, &["--no-feed-polling", "--summary-schedule"], &[]);
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(
        cli(&dir, &["summaries", "list", "--json"]).await.ok_json(),
        serde_json::json!([])
    );
    drop(d);
}

/// The weekly summary by e-mail: once to each subscriber who asked, never to a free reader
/// who asked nor to a subscriber who did not, with its key points, a link to read it and
/// a link that stops it signed out.
#[tokio::test]
async fn the_weekly_summary_is_mailed_once_to_subscribers_who_asked() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = demo_dir(&tmp).await;
    let (label, _, _) = previous_week();
    let generated = cli(&dir, &["summaries", "generate"]).await;
    assert_eq!(generated.code, 0, "{generated:?}");
    let (d, mut mails) = crate::auth::mailing_daemon(tmp.path(), &["--mail-every", "1"]).await;
    let mut tokens = Vec::new();
    for who in ["ada", "bob", "cy"] {
        tokens.push(
            d.sign_up(&format!("{who}@example.com"), "correct horse battery")
                .await,
        );
    }
    for who in ["ada", "cy"] {
        let out = cli(
            &dir,
            &["subscribers", "grant", &format!("{who}@example.com")],
        )
        .await;
        assert_eq!(out.code, 0, "{out:?}");
    }
    // ada (subscriber) and bob (free) ask; cy (subscriber) does not.
    for token in &tokens[..2] {
        let (status, body) = d
            .call(
                "PATCH",
                "/api/user/profile",
                Some(token),
                Some(serde_json::json!({"weeklyEmail": true})),
            )
            .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["weeklyEmail"], true);
    }
    let mail = crate::auth::next_mail(&mut mails).await;
    assert_eq!(mail.to, "ada@example.com");
    assert!(mail.body.contains("All You Need to Know"), "{}", mail.body);
    assert!(
        mail.body.contains(&format!("/weekly-summary/{label}")),
        "{}",
        mail.body
    );
    assert!(
        mail.headers
            .contains("List-Unsubscribe-Post: List-Unsubscribe=One-Click")
    );
    assert!(
        tokio::time::timeout(Duration::from_secs(4), mails.recv())
            .await
            .is_err(),
        "one mail a week, to ada alone"
    );
    let link = mail
        .body
        .lines()
        .find(|l| l.contains("/unsubscribe?token="))
        .expect("an unsubscribe link")
        .trim()
        .to_string();
    let token = link.split("token=").nth(1).unwrap();
    let (status, done) = d
        .call(
            "POST",
            &format!("/api/unsubscribe?token={token}"),
            None,
            None,
        )
        .await;
    assert_eq!(status, 200, "{done}");
    assert_eq!(done["stopped"], "the weekly summary");
    assert_eq!(
        d.get("/api/user/profile", Some(&tokens[0])).await.1["weeklyEmail"],
        false
    );
}
