//! A move from sled to PostgreSQL and back carries every kind of record as it was.

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use serde_json::json;

use super::{Record, Sink, copy, count, holds_data, open, walk};
use crate::backend::{Backend, FeedPosition, MarkChange, NewestQuery, Share, StoredItem};
use crate::secrets::SecretRecord;
use crate::sessions::{RefreshPlan, RefreshRecord, Session};
use crate::{ItemMarks, Mark, NewsItem, Options};

/// Collects what a walk reads, in a form two engines can be compared by.
struct Collect(Vec<String>);

#[async_trait::async_trait]
impl Sink for Collect {
    async fn put(&mut self, records: Vec<Record>) -> crate::Result<()> {
        for mut r in records {
            // A secret's body is the rules' JSON, which sled keeps parsed: compared as
            // JSON, not bytes.
            if let Record::Secret(s) = &mut r {
                let v: serde_json::Value = serde_json::from_slice(&s.body).unwrap();
                s.body = serde_json::to_vec(&v).unwrap();
            }
            self.0.push(format!("{r:?}"));
        }
        Ok(())
    }
}

async fn records(b: &dyn Backend, now: DateTime<Utc>) -> Vec<String> {
    let mut c = Collect(Vec::new());
    walk(b, now, &mut c).await.unwrap();
    c.0
}

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

/// An item whose JSON is not what serialising it gives (spacing, key order): moved byte
/// for byte.
fn item(id: &str, published: &str) -> StoredItem {
    let text = format!(
        r#"{{"title": "Story {id}", "id": "{id}", "summary": "s", "url": "https://example.com/{id}", "published_date": "{published}"}}"#
    );
    let item: NewsItem = serde_json::from_str(&text).unwrap();
    StoredItem {
        item,
        json: text.into_bytes().into(),
    }
}

fn parse<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> T {
    serde_json::from_value(v).unwrap()
}

/// One of every kind of record, owned by the account `u1`.
async fn fill(b: &dyn Backend) {
    let items = [
        item("i1", "2026-03-01T10:00:00Z"),
        item("i2", "2026-03-02T10:00:00Z"),
        item("i3", "2026-03-02T10:00:00Z"),
    ];
    b.put_items(&items).await.unwrap();
    for member in ["i2", "i1"] {
        b.place_in_story(member, "i2", &[]).await.unwrap();
    }
    b.insert_feed(&parse(
        json!({"id": "f1", "url": "https://example.com/feed",
        "added_at": "2026-01-01T00:00:00Z", "next_due": "2026-03-03T00:00:00Z"}),
    ))
    .await
    .unwrap();
    b.put_entry_item("f1", "guid-1", "i1").await.unwrap();
    b.insert_user(&parse(json!({"id": "u1", "email": "ada@example.com",
        "password_hash": "$argon2id$x", "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-02T00:00:00Z"})))
        .await
        .unwrap();
    fill_account(b).await;
    b.insert_checkout(&parse(
        json!({"id": "c1", "user_id": "u1", "provider": "stripe",
        "status": "created", "created_at": "2026-03-01T00:00:00Z"}),
    ))
    .await
    .unwrap();
    b.put_summary(&parse(
        json!({"id": "2026-W09", "summary": "S", "content": ["P."],
        "start_date": "2026-02-23T00:00:00Z", "end_date": "2026-03-01T23:59:59Z",
        "generated_date": "2026-03-02T00:00:00Z", "article_count": 3}),
    ))
    .await
    .unwrap();
    b.put_mail(&parse(
        json!({"id": "m1", "to": "ada@example.com", "subject": "Hi",
        "text": "A link.", "kind": "recovery", "created_at": "2026-03-01T00:00:00Z"}),
    ))
    .await
    .unwrap();
    b.set_flag("demo_loaded").await.unwrap();
    b.set_flag("summary_scheduled:2026-W09").await.unwrap();
    b.shared_secret("jwt_secret", &|| b"the signing key".to_vec())
        .await
        .unwrap();
}

/// What the account `u1` owns: a session with a rotated token, a secret, marks, a
/// share, an API key with today's requests, a profile, a waitlist entry.
async fn fill_account(b: &dyn Backend) {
    let session: Session = parse(json!({"id": "s1", "user_id": "u1",
        "created_at": "2026-03-01T00:00:00Z", "method": "password"}));
    let first: RefreshRecord = parse(json!({"session_id": "s1",
        "created_at": "2026-03-01T00:00:00Z", "used_at": "2026-03-01T01:00:00Z"}));
    b.start_session(&session, &[1; 32], &first, &mut |_| Ok(()))
        .await
        .unwrap();
    let second: RefreshRecord =
        parse(json!({"session_id": "s1", "created_at": "2026-03-01T01:00:00Z"}));
    b.refresh(&[1; 32], &mut |_| RefreshPlan {
        put: vec![([2; 32], second.clone())],
        ..RefreshPlan::default()
    })
    .await
    .unwrap();
    let secret = SecretRecord {
        hash: [3; 32],
        owner: "u1".into(),
        purpose: "recovery".into(),
        body: br#"{"sent_at": "2026-03-01T00:00:00Z"}"#.to_vec(),
    };
    b.put_secret(&secret, None).await.unwrap();
    let set = |m| MarkChange {
        clear: ItemMarks::default(),
        set: Some(m),
    };
    let t = at("2026-03-05T08:00:00.123Z");
    b.change_marks("u1", "i1", set(Mark::Favorite), t)
        .await
        .unwrap();
    b.change_marks("u1", "i2", set(Mark::Hidden), t + Duration::seconds(1))
        .await
        .unwrap();
    b.change_marks("u1", "i3", set(Mark::Read), t + Duration::seconds(2))
        .await
        .unwrap();
    let share = Share {
        at: t,
        platform: "linkedin".into(),
    };
    b.share("u1", "i1", &share).await.unwrap();
    let key = "rk_live_abc";
    b.put_api_key("u1", key, &crate::api_keys::key_hash(key), false)
        .await
        .unwrap();
    for _ in 0..3 {
        b.consume_quota("u1", 100, Utc::now()).await.unwrap();
    }
    b.put_profile(
        "u1",
        &parse(json!({"resume": "Engineer", "mark_on_open": true})),
    )
    .await
    .unwrap();
    b.record_read("u1", "i1", Utc::now()).await.unwrap();
    assert!(
        b.put_doc("alerts", "u1", Some(br#"{"alerts":[],"matches":[]}"#), 0)
            .await
            .unwrap()
    );
    b.join_waitlist(&parse(json!({"user_id": "u1", "email": "ada@example.com",
        "joined_at": "2026-02-01T00:00:00Z", "approved_at": "2026-02-02T00:00:00Z"})))
        .await
        .unwrap();
}

/// Moves `from` into `to` and checks both sides hold the same records and counts.
async fn moved(from: &dyn Backend, to: &dyn Backend) {
    let now = Utc::now();
    assert!(!holds_data(to).await.unwrap());
    copy(from, to, now, &|_| {}).await.unwrap();
    let (source, target) = (
        count(from, now).await.unwrap(),
        count(to, now).await.unwrap(),
    );
    source.check(&target).unwrap();
    // Every kind was filled and found: none is compared as "0 = 0" by mistake.
    assert_eq!(source.0.len(), 22, "{source:?}");
    assert!(source.0.values().all(|n| *n > 0), "{source:?}");
    assert_eq!(records(from, now).await, records(to, now).await);
}

/// What the rules read works on the moved store: the token refreshes, the marks and the
/// feed's order, the key finds its owner.
async fn still_works(b: &dyn Backend) {
    let plan = b
        .refresh(&[2; 32], &mut |view| {
            let view = view.expect("the moved token is live");
            assert_eq!(view.session.id, "s1");
            assert_eq!(view.tokens.len(), 2);
            RefreshPlan::default()
        })
        .await
        .unwrap();
    assert!(plan.put.is_empty());
    assert_eq!(b.marked_ids("u1", Mark::Favorite).await.unwrap(), ["i1"]);
    assert_eq!(b.mark_counts("u1").await.unwrap().0, [1, 1, 1]);
    let key_hash = crate::api_keys::key_hash("rk_live_abc");
    assert_eq!(
        b.api_key_owner(&key_hash).await.unwrap().as_deref(),
        Some("u1")
    );
    assert_eq!(b.quota_used("u1", Utc::now()).await.unwrap(), 3);
    let page = b
        .newest(NewestQuery {
            reader: None,
            leave_out: &[],
            after: None::<&FeedPosition>,
            since_ms: None,
            limit: 10,
            leads_only: false,
        })
        .await
        .unwrap();
    let ids: Vec<String> = page
        .items
        .iter()
        .map(|j| serde_json::from_slice::<NewsItem>(j).unwrap().id)
        .collect();
    assert_eq!(ids, ["i3", "i2", "i1"]);
    assert_eq!(b.story_members("i2").await.unwrap(), ["i2", "i1"]);
    assert_eq!(
        b.covered_count().await.unwrap(),
        1,
        "i1 is covered by its story's lead"
    );
    assert_eq!(
        b.item("i1").await.unwrap().unwrap(),
        item("i1", "2026-03-01T10:00:00Z").json
    );
    assert_eq!(b.item_count().await.unwrap(), 3);
    assert_eq!(b.user_count().await.unwrap(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sled_to_postgres_and_back_carries_every_record() {
    let Some(database) = crate::postgres_testing::database() else {
        return;
    };
    let dirs = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let opts = Options::default();
    let first: Arc<dyn Backend> = open(dirs.0.path().to_str().unwrap(), &opts).await.unwrap();
    fill(&*first).await;
    let pg = open(&database.url, &opts).await.unwrap();
    moved(&*first, &*pg).await;
    still_works(&*pg).await;
    let back_dir = dirs.1.path().join("data");
    let back = open(back_dir.to_str().unwrap(), &opts).await.unwrap();
    moved(&*pg, &*back).await;
    assert!(
        back.item_changes(0, 10).await.unwrap().is_empty(),
        "a moved sled store has no change log for a replica it does not have"
    );
    still_works(&*back).await;
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&back_dir).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700, "a new data directory is private");
    let secret = std::fs::metadata(back_dir.join("jwt_secret")).unwrap();
    assert_eq!(secret.permissions().mode() & 0o777, 0o600);
}

#[tokio::test]
async fn a_difference_names_the_kind_and_both_numbers() {
    let mut a = super::Counts::default();
    a.add("items", 3);
    let mut b = super::Counts::default();
    b.add("items", 2);
    let e = a.check(&b).unwrap_err().to_string();
    assert!(e.contains("3 items") && e.contains("the target 2"), "{e}");
}
