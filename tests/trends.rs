//! Trends (issue 28): `GET /api/trends` and `GET /api/v1/trends` against the real daemon,
//! on items dated relative to now (the clock is the test's): a term that rose from 0 to
//! 12 items this week ranks above one steady at 40 a week, no stop word is ever a term,
//! an update does not count twice and a removal takes back, the counts are the same
//! after a restart (rebuilt from the date index), free readers see the first few, and
//! the public endpoint's key, quota and validation are the news endpoint's.

use chrono::{Duration, Utc};
use serde_json::{Value, json};

use crate::admin::{cli, cli_with};
use crate::util::{Daemon, answer, assert_error};

const SUBSCRIBER: &str = "sub@example.com";

/// `n` items mentioning `name`, published `days_ago` days (and an hour) before now, as
/// JSON Lines; each summary also holds words that are capitalised mid-sentence but are
/// stop words ("The", "This", a weekday, a month).
pub(crate) fn items(name: &str, n: usize, days_ago: i64, tag: &str) -> String {
    let at = Utc::now() - Duration::days(days_ago) - Duration::hours(1);
    (0..n)
        .map(|i| {
            let slug = name.to_lowercase().replace(' ', "-");
            format!(
                "{}\n",
                json!({
                    "id": format!("{slug}-{days_ago}-{i}"),
                    "title": format!("Story {i} about {name}"),
                    "summary": format!("Analysts said The outcome of This deal with {name} matters on Monday in March. {tag}"),
                    "url": format!("https://{slug}.example/{days_ago}/{i}"),
                    "published_date": at.to_rfc3339(),
                })
            )
        })
        .collect()
}

fn terms(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|t| t["term"].as_str().unwrap().to_string())
        .collect()
}

/// The trends a signed-in reader gets.
async fn trends(d: &Daemon, token: &str) -> Value {
    let (status, page) = d.get("/api/trends", Some(token)).await;
    assert_eq!(status, 200, "{page}");
    page
}

async fn public(d: &Daemon, key: Option<&str>, query: &str) -> (u16, Value) {
    let mut req = d.http.get(d.url(&format!("/api/v1/trends{query}")));
    if let Some(k) = key {
        req = req.header("X-API-Key", k);
    }
    answer(req.send().await.unwrap()).await
}

/// Every term of both lists, and that none is or holds a stop word.
fn assert_no_stop_words(page: &Value) {
    for t in terms(&page["rising"])
        .iter()
        .chain(&terms(&page["falling"]))
    {
        for w in t.split(' ') {
            assert!(
                !["the", "this", "monday", "march", "analysts"]
                    .contains(&w.to_lowercase().as_str()),
                "{t:?} is not a trend: {page}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rise_from_nothing_outranks_a_steady_forty() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let args = [
        "--no-demo",
        "--complimentary",
        SUBSCRIBER,
        "--api-free-quota",
        "3",
    ];
    let d = Daemon::start_with(&data, &args, &[]);
    let mut all = String::new();
    for week in 0..5 {
        all += &items("Acme Robotics", 40, week * 7 + 1, "");
    }
    all += &items("Zephyr Labs", 12, 2, "");
    // Falling: 10 a week before, 1 this week.
    for week in 1..5 {
        all += &items("Borealis Systems", 10, week * 7 + 2, "");
    }
    all += &items("Borealis Systems", 1, 3, "");
    // Small risers, to fill a free reader's list.
    for (name, n) in [("Cobalt Nine", 4), ("Delta Quill", 5), ("Ember Vale", 6)] {
        all += &items(name, n, 1, "");
    }
    let import = cli_with(&data, &["items", "import", "-", "--json"], &all, &[]).await;
    assert_eq!(import.ok_json()["added"], 200 + 12 + 41 + 15);

    assert_error(&d.get("/api/trends", None).await, 401);
    let sub = d.sign_up(SUBSCRIBER, "secret-password").await;
    let free = d.sign_up("free@example.com", "secret-password").await;

    let page = trends(&d, &sub).await;
    assert_eq!(page["subscriber"], true);
    assert_eq!(page["limit"], radar_store::SUBSCRIBER_TRENDS);
    let rising = terms(&page["rising"]);
    assert_eq!(rising[0], "Zephyr Labs", "{page}");
    if let Some(steady) = rising.iter().position(|t| t == "Acme Robotics") {
        assert!(steady > 0);
    }
    let z = &page["rising"][0];
    assert_eq!(z["kind"], "name");
    assert_eq!(z["weeks"], json!([0, 0, 0, 0, 0, 0, 0, 12]));
    assert_eq!(z["thisWeek"], 12);
    assert_eq!(z["change"], 13.0);
    let stories = z["stories"].as_array().unwrap();
    assert_eq!(stories.len(), radar_store::STORIES);
    for s in stories {
        assert!(s["title"].as_str().unwrap().ends_with("about Zephyr Labs"));
        assert!(
            s["url"]
                .as_str()
                .unwrap()
                .starts_with("https://zephyr-labs.example/2/")
        );
    }
    assert_eq!(terms(&page["falling"])[0], "Borealis Systems", "{page}");
    assert_eq!(
        page["falling"][0]["weeks"],
        json!([0, 0, 0, 10, 10, 10, 10, 1])
    );
    assert_no_stop_words(&page);

    // Free readers: the first few of the same ranking.
    let few = trends(&d, &free).await;
    assert_eq!(few["limit"], radar_store::FREE_TRENDS);
    assert_eq!(
        terms(&few["rising"]),
        rising[..radar_store::FREE_TRENDS].to_vec()
    );

    // Writing the same items again counts nothing twice; a removal takes one back.
    let again = cli_with(
        &data,
        &["items", "import", "-", "--json"],
        &items("Zephyr Labs", 12, 2, "Updated."),
        &[],
    )
    .await;
    assert_eq!(again.ok_json()["updated"], 12, "{}", again.stdout);
    assert_eq!(
        cli(&data, &["items", "remove", "zephyr-labs-2-0"])
            .await
            .code,
        0
    );
    let page = trends(&d, &sub).await;
    assert_eq!(page["rising"][0]["term"], "Zephyr Labs");
    assert_eq!(page["rising"][0]["thisWeek"], 11);

    // The public endpoint: the key, the quota and the parameters of the news endpoint's.
    assert_error(&public(&d, None, "").await, 401);
    let key = d.get("/api/key", Some(&free)).await.1["apiKey"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, body) = public(&d, Some(&key), "").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        terms(&body["rising"]),
        rising[..radar_store::FREE_TRENDS].to_vec()
    );
    assert_eq!(
        assert_error(&public(&d, Some(&key), "?at=2026-01-01").await, 400),
        "invalid_parameter"
    );
    // The quota (3 here) counts every answer after the key check, a 400 too.
    assert_eq!(public(&d, Some(&key), "").await.0, 200);
    assert_eq!(
        assert_error(&public(&d, Some(&key), "").await, 429),
        "rate_limited"
    );

    // After a restart the counts are rebuilt from the items of the last weeks.
    d.stop();
    let d = Daemon::start_with(&data, &args, &[]);
    let sub = d.sign_in(SUBSCRIBER, "secret-password").await;
    let after = trends(&d, &sub).await;
    assert_eq!(after["rising"], page["rising"]);
    assert_eq!(after["falling"], page["falling"]);
}
