//! Tests of the PostgreSQL backend that are about PostgreSQL: the schema's constraints,
//! migrations, locks under concurrency, the change log's order, byte-for-byte JSON and
//! the indexes every listing walks. The behaviour every backend shares is the contract
//! suite's.

use std::sync::Arc;

use chrono::{DateTime, Duration, TimeZone, Utc};

use super::testing::{self, TestBackend};
use super::{PostgresBackend, schema};
use crate::backend::*;
use crate::catalogue::{SortBy, SortOrder};
use crate::secrets::{SecretRecord, SecretUse};
use crate::sessions::{RefreshOutcome, RefreshPlan, RefreshRecord, Session};
use crate::{Error, Feed, ItemMarks, Mark, NewsItem, User, WeeklySummary};

fn at(secs: i64) -> DateTime<Utc> {
    Utc.timestamp_opt(1_780_000_000 + secs, 0).unwrap()
}

fn item(id: &str, secs: i64, url: Option<&str>) -> NewsItem {
    NewsItem {
        id: id.into(),
        title: format!("Title of {id}"),
        summary: "A summary.".into(),
        short: String::new(),
        content: String::new(),
        url: url.map(Into::into),
        published_date: at(secs),
        source: None,
        story: None,
    }
}

fn user(id: &str, email: &str) -> User {
    serde_json::from_value(serde_json::json!({
        "id": id,
        "email": email,
        "password_hash": "",
        "created_at": at(0),
        "updated_at": at(0),
    }))
    .unwrap()
}

async fn with_users(b: &PostgresBackend, ids: &[&str]) {
    for id in ids {
        b.insert_user(&user(id, &format!("{id}@example.com")))
            .await
            .unwrap();
    }
}

async fn put(b: &PostgresBackend, items: &[NewsItem]) -> Vec<ItemWritten> {
    let stored: Vec<StoredItem> = items.iter().cloned().map(StoredItem::new).collect();
    b.put_items(&stored).await.unwrap()
}

fn ids_of(page: &[Json]) -> Vec<String> {
    page.iter()
        .map(|j| serde_json::from_slice::<NewsItem>(j).unwrap().id)
        .collect()
}

async fn backend() -> Option<TestBackend> {
    testing::backend().await
}

#[tokio::test]
async fn item_json_is_served_byte_for_byte() {
    let Some(b) = backend().await else { return };
    let it = item("a", 1, None);
    // Keys out of serde's order, odd spacing, an escaped NUL and a non-ASCII title:
    // json (unlike jsonb) keeps the text as it was written.
    let text = format!(
        "{{ \"title\":\"Zürich \\u0000 ok\",  \"id\":\"a\",\"summary\":\"s\", \
         \"published_date\":\"{}\" }}",
        it.published_date.to_rfc3339()
    );
    let stored = StoredItem {
        item: it,
        json: Json::from(text.clone().into_bytes()),
    };
    b.put_items(&[stored]).await.unwrap();
    assert_eq!(b.item("a").await.unwrap().unwrap(), text.as_bytes());
    let page = b
        .newest(NewestQuery {
            reader: None,
            leave_out: &[],
            after: None,
            since_ms: None,
            limit: 5,
            leads_only: false,
        })
        .await
        .unwrap();
    assert_eq!(page.items[0], text.as_bytes());
}

#[tokio::test]
async fn a_batch_counts_creations_numbers_changes_and_moves_urls() {
    let Some(b) = backend().await else { return };
    let w = put(&b, &[item("a", 1, Some("https://u/1")), item("b", 2, None)]).await;
    assert_eq!(
        w,
        vec![
            ItemWritten {
                created: true,
                change: 1
            },
            ItemWritten {
                created: true,
                change: 2
            }
        ]
    );
    // `c` takes a's URL, `a` is written twice (created by neither write), `b` swaps to
    // a URL a later entry takes again.
    let w = put(
        &b,
        &[
            item("c", 3, Some("https://u/1")),
            item("a", 1, Some("https://u/2")),
            item("a", 1, Some("https://u/3")),
            item("b", 2, Some("https://u/2")),
        ],
    )
    .await;
    assert_eq!(
        w.iter().map(|w| (w.created, w.change)).collect::<Vec<_>>(),
        vec![(true, 3), (false, 4), (false, 5), (false, 6)]
    );
    assert_eq!(b.item_count().await.unwrap(), 3);
    assert_eq!(b.items_version().await.unwrap(), 6);
    for (url, id) in [
        ("https://u/1", Some("c")),
        ("https://u/2", Some("b")),
        ("https://u/3", Some("a")),
    ] {
        assert_eq!(b.item_id_by_url(url).await.unwrap().as_deref(), id, "{url}");
    }
    // Two items swap their URLs in one batch.
    put(
        &b,
        &[
            item("a", 1, Some("https://u/2")),
            item("b", 2, Some("https://u/3")),
        ],
    )
    .await;
    assert_eq!(
        b.item_id_by_url("https://u/2").await.unwrap().as_deref(),
        Some("a")
    );
    assert_eq!(
        b.item_id_by_url("https://u/3").await.unwrap().as_deref(),
        Some("b")
    );
    let log = b.item_changes(0, 100).await.unwrap();
    assert_eq!(
        log.iter()
            .map(|c| (c.seq, c.id.as_str()))
            .collect::<Vec<_>>(),
        vec![
            (1, "a"),
            (2, "b"),
            (3, "c"),
            (4, "a"),
            (5, "a"),
            (6, "b"),
            (7, "a"),
            (8, "b")
        ]
    );
}

#[tokio::test]
async fn concurrent_writers_never_leave_a_gap_a_log_reader_could_skip() {
    let Some(b) = backend().await else { return };
    let b = Arc::new(b);
    let writers: Vec<_> = (0..8)
        .map(|w| {
            let b = b.clone();
            tokio::spawn(async move {
                let mut mine = Vec::new();
                for n in 0..10 {
                    let id = format!("w{w}-{n}");
                    let written = put(&b, &[item(&id, n, None)]).await;
                    mine.push(written[0].change);
                }
                mine
            })
        })
        .collect();
    // A reader follows the log while they write: whatever it has seen, it has seen
    // every smaller number too.
    let reader = {
        let b = b.clone();
        tokio::spawn(async move {
            let mut seen = 0u64;
            while seen < 80 {
                for c in b.item_changes(seen, 7).await.unwrap() {
                    assert_eq!(c.seq, seen + 1, "the log skipped from {seen} to {}", c.seq);
                    seen = c.seq;
                }
                tokio::task::yield_now().await;
            }
        })
    };
    let mut all = Vec::new();
    for w in writers {
        all.extend(w.await.unwrap());
    }
    reader.await.unwrap();
    all.sort_unstable();
    assert_eq!(all, (1..=80).collect::<Vec<u64>>());
    assert_eq!(b.items_version().await.unwrap(), 80);
    assert_eq!(b.item_count().await.unwrap(), 80);
}

#[tokio::test]
async fn newest_pages_leave_out_marked_items_and_say_what_follows() {
    let Some(b) = backend().await else { return };
    with_users(&b, &["r"]).await;
    // Two items share a publication time: ids break the tie, descending.
    put(
        &b,
        &[
            item("a", 1, None),
            item("b", 2, None),
            item("c", 2, None),
            item("d", 3, None),
        ],
    )
    .await;
    let change = |set| MarkChange {
        clear: ItemMarks::default(),
        set: Some(set),
    };
    b.change_marks("r", "c", change(Mark::Hidden), at(9))
        .await
        .unwrap();
    b.change_marks("r", "d", change(Mark::Favorite), at(9))
        .await
        .unwrap();
    let leave = [Mark::Hidden, Mark::Read];
    let page = |after: Option<FeedPosition>, reader: Option<&'static str>| {
        let b = &b;
        async move {
            b.newest(NewestQuery {
                reader,
                leave_out: &leave,
                after: after.as_ref(),
                since_ms: None,
                limit: 2,
                leads_only: false,
            })
            .await
            .unwrap()
        }
    };
    let first = page(None, None).await;
    assert_eq!(ids_of(&first.items), ["d", "c"]);
    assert!(first.has_more);
    let second = page(first.last.clone(), None).await;
    assert_eq!(ids_of(&second.items), ["b", "a"]);
    assert!(!second.has_more);
    assert_eq!(
        second.last,
        Some(FeedPosition {
            published_ms: at(1).timestamp_millis(),
            id: "a".into()
        })
    );
    let first = page(None, Some("r")).await;
    assert_eq!(ids_of(&first.items), ["d", "b"]);
    assert!(first.has_more);
    let second = page(first.last.clone(), Some("r")).await;
    assert_eq!(ids_of(&second.items), ["a"]);
    assert!(!second.has_more);
}

#[tokio::test]
async fn concurrent_placements_and_merges_keep_one_lead_per_story() {
    let Some(b) = backend().await else { return };
    let b = Arc::new(b);
    let items: Vec<NewsItem> = (0..8)
        .flat_map(|w| (0..5).map(move |n| item(&format!("w{w}-{n}"), w * 5 + n, None)))
        .collect();
    put(&b, &items).await;
    let before = b.items_version().await.unwrap();
    // Each writer founds a story, and its third item merges the next writer's story
    // into its own: in a ring, so merges cross each other while they run.
    let writers: Vec<_> = (0..8)
        .map(|w| {
            let b = b.clone();
            tokio::spawn(async move {
                let founder = format!("w{w}-0");
                for n in 0..5 {
                    let merged = if n == 2 {
                        vec![format!("w{}-0", (w + 1) % 8)]
                    } else {
                        Vec::new()
                    };
                    b.place_in_story(&format!("w{w}-{n}"), &founder, &merged)
                        .await
                        .unwrap();
                }
            })
        })
        .collect();
    for w in writers {
        w.await.unwrap();
    }
    let client = b.client().await.unwrap();
    let one = |sql: &'static str| {
        let client = &client;
        async move { client.query_one(sql, &[]).await.unwrap() }
    };
    // Every story has one lead, its first member, and the counter counts the rest.
    let row = one(
        "SELECT count(DISTINCT story), count(*) FILTER (WHERE NOT covered), \
         count(*) FILTER (WHERE covered) FROM story_members",
    )
    .await;
    let (stories, leads, covered): (i64, i64, i64) = (row.get(0), row.get(1), row.get(2));
    assert_eq!(
        (stories, leads, covered),
        (1, 1, 39),
        "the ring joins every story"
    );
    let row = one(
        "SELECT count(*) FROM story_members AS s WHERE NOT covered AND joined <> \
         (SELECT min(joined) FROM story_members WHERE story = s.story)",
    )
    .await;
    assert_eq!(
        row.get::<_, i64>(0),
        0,
        "a lead is its story's first member"
    );
    assert_eq!(b.covered_count().await.unwrap(), 39);
    // Merged ids lead to the surviving story in one step.
    let row = one("SELECT count(*) FROM story_merges AS m \
         WHERE EXISTS (SELECT 1 FROM story_merges WHERE story = m.into_story) \
         OR NOT EXISTS (SELECT 1 FROM story_members WHERE story = m.into_story)")
    .await;
    assert_eq!(row.get::<_, i64>(0), 0);
    let story = b.story_of("w3-4").await.unwrap().unwrap();
    for w in 0..8 {
        let members = b.story_members(&format!("w{w}-0")).await.unwrap();
        assert_eq!(members.len(), 40);
        assert_eq!(
            b.story_of(&format!("w{w}-0")).await.unwrap().as_ref(),
            Some(&story)
        );
    }
    // Each placement logged one change: the version is still the log's last number.
    let after = b.items_version().await.unwrap();
    assert_eq!(after, before + 40);
    let log = b.item_changes(before, 100).await.unwrap();
    assert_eq!(
        log.iter().map(|c| c.seq).collect::<Vec<_>>(),
        (before + 1..=after).collect::<Vec<_>>()
    );
    // Placing again changes nothing, and leaves the version where it is.
    b.place_in_story("w0-1", "w5-0", &[]).await.unwrap();
    assert_eq!(b.items_version().await.unwrap(), after);
    // The lead leaves: the next member leads, one fewer is covered.
    let lead = b.story_members(&story).await.unwrap()[0].clone();
    let next = b.story_members(&story).await.unwrap()[1].clone();
    b.remove_item(&lead).await.unwrap();
    b.leave_story(&lead).await.unwrap();
    assert_eq!(b.story_members(&story).await.unwrap()[0], next);
    assert_eq!(b.covered_count().await.unwrap(), 38);
    assert_eq!(b.items_version().await.unwrap(), after + 2);
    b.leave_story(&lead).await.unwrap();
    assert_eq!(
        b.items_version().await.unwrap(),
        after + 2,
        "no story: nothing moves"
    );
}

#[tokio::test]
async fn the_catalogue_reads_far_pages_from_the_other_end() {
    let Some(b) = backend().await else { return };
    let mut items: Vec<NewsItem> = (0..9).map(|n| item(&format!("i{n}"), n, None)).collect();
    items[3].title = "apple".into();
    items[5].title = "Banana".into();
    items[7].title = "banana".into();
    put(&b, &items).await;
    for offset in 0..10u64 {
        let got = ids_of(
            &b.catalogue(SortBy::PublishedDate, SortOrder::Desc, offset, 4)
                .await
                .unwrap(),
        );
        let want: Vec<String> = (0..9)
            .rev()
            .skip(usize::try_from(offset).unwrap())
            .take(4)
            .map(|n| format!("i{n}"))
            .collect();
        assert_eq!(got, want, "offset {offset}");
    }
    let by_title = ids_of(
        &b.catalogue(SortBy::Title, SortOrder::Asc, 0, 4)
            .await
            .unwrap(),
    );
    assert_eq!(by_title, ["i3", "i5", "i7", "i0"]);
    let by_id = ids_of(
        &b.catalogue(SortBy::Id, SortOrder::Desc, 7, 4)
            .await
            .unwrap(),
    );
    assert_eq!(by_id, ["i1", "i0"]);
    assert_eq!(
        ids_of(&b.published_between(at(2), at(4)).await.unwrap()),
        ["i2", "i3"]
    );
    assert_eq!(
        ids_of(&b.items_after(Some("i6"), 5).await.unwrap()),
        ["i7", "i8"]
    );
}

#[tokio::test]
async fn marks_keep_counts_and_go_with_their_item() {
    let Some(b) = backend().await else { return };
    with_users(&b, &["r", "s"]).await;
    put(&b, &[item("a", 1, None), item("b", 2, None)]).await;
    let set = |m| MarkChange {
        clear: ItemMarks::default(),
        set: Some(m),
    };
    let v0 = b.reader_version("r").await.unwrap();
    let marks = b
        .change_marks("r", "a", set(Mark::Read), at(1))
        .await
        .unwrap();
    assert!(marks.read);
    // The rules' change: favourite clears read.
    let marks = b
        .change_marks(
            "r",
            "a",
            MarkChange {
                clear: ItemMarks {
                    read: true,
                    hidden: true,
                    favorite: false,
                },
                set: Some(Mark::Favorite),
            },
            at(2),
        )
        .await
        .unwrap();
    assert_eq!(
        marks,
        ItemMarks {
            favorite: true,
            hidden: false,
            read: false
        }
    );
    b.change_marks("r", "b", set(Mark::Favorite), at(3))
        .await
        .unwrap();
    b.change_marks("s", "a", set(Mark::Hidden), at(3))
        .await
        .unwrap();
    assert!(b.reader_version("r").await.unwrap() > v0);
    assert_eq!(b.mark_counts("r").await.unwrap().of(Mark::Favorite), 2);
    assert_eq!(b.mark_counts("r").await.unwrap().of(Mark::Read), 0);
    assert_eq!(b.marked_ids("r", Mark::Favorite).await.unwrap(), ["b", "a"]);

    let (removed, seq) = b.remove_item("a").await.unwrap().unwrap();
    assert_eq!(removed.id, "a");
    assert_eq!(seq, b.items_version().await.unwrap());
    assert_eq!(b.mark_counts("r").await.unwrap().of(Mark::Favorite), 1);
    assert_eq!(b.mark_counts("s").await.unwrap().of(Mark::Hidden), 0);
    assert_eq!(b.marked_ids("r", Mark::Favorite).await.unwrap(), ["b"]);
    assert!(matches!(
        b.change_marks("r", "a", set(Mark::Read), at(4)).await,
        Err(Error::NotFound("item"))
    ));
    assert!(b.remove_item("a").await.unwrap().is_none());
}

#[tokio::test]
async fn concurrent_mark_changes_and_a_removal_keep_counts_exact() {
    let Some(b) = backend().await else { return };
    let b = Arc::new(b);
    with_users(&b, &["r"]).await;
    let items: Vec<NewsItem> = (0..20).map(|n| item(&format!("i{n}"), n, None)).collect();
    put(&b, &items).await;
    let mut tasks = Vec::new();
    for n in 0..20 {
        for mark in [Mark::Favorite, Mark::Read] {
            let b = b.clone();
            tasks.push(tokio::spawn(async move {
                let change = MarkChange {
                    clear: ItemMarks {
                        favorite: true,
                        hidden: true,
                        read: true,
                    },
                    set: Some(mark),
                };
                b.change_marks("r", &format!("i{n}"), change, at(n)).await
            }));
        }
    }
    let remover = {
        let b = b.clone();
        tokio::spawn(async move { b.remove_item("i7").await })
    };
    for t in tasks {
        match t.await.unwrap() {
            Ok(_) | Err(Error::NotFound("item")) => {}
            Err(e) => panic!("{e}"),
        }
    }
    assert!(remover.await.unwrap().unwrap().is_some());
    let counts = b.mark_counts("r").await.unwrap();
    let fav = b.marked_ids("r", Mark::Favorite).await.unwrap();
    let read = b.marked_ids("r", Mark::Read).await.unwrap();
    assert_eq!(counts.of(Mark::Favorite), fav.len() as u64);
    assert_eq!(counts.of(Mark::Read), read.len() as u64);
    assert_eq!(fav.len() + read.len(), 19, "one mark on each item left");
    assert!(!fav.contains(&"i7".to_string()) && !read.contains(&"i7".to_string()));
}

#[tokio::test]
async fn accounts_keep_emails_and_customers_unique() {
    let Some(b) = backend().await else { return };
    with_users(&b, &["u1", "u2"]).await;
    assert!(matches!(
        b.insert_user(&user("u3", "u1@example.com")).await,
        Err(Error::Conflict(m)) if m == "User already registered"
    ));
    assert!(matches!(
        b.update_user("u2", &mut |u: &mut User| {
            u.email = "u1@example.com".into();
            Ok(())
        })
        .await,
        Err(Error::Conflict(_))
    ));
    b.update_user("u1", &mut |u: &mut User| {
        u.subscription.customer_id = Some("cus_1".into());
        Ok(())
    })
    .await
    .unwrap();
    assert!(matches!(
        b.update_user("u2", &mut |u: &mut User| {
            u.subscription.customer_id = Some("cus_1".into());
            Ok(())
        })
        .await,
        Err(Error::Conflict(_))
    ));
    // The customer lookup follows the record.
    b.update_user("u1", &mut |u: &mut User| {
        u.subscription.customer_id = Some("cus_2".into());
        Ok(())
    })
    .await
    .unwrap();
    assert!(b.user_by_customer("cus_1").await.unwrap().is_none());
    assert_eq!(b.user_by_customer("cus_2").await.unwrap().unwrap().id, "u1");
    // A rule's refusal changes nothing.
    assert!(matches!(
        b.update_user("u1", &mut |u: &mut User| {
            u.email = "changed@example.com".into();
            Err(Error::Invalid("no".into()))
        })
        .await,
        Err(Error::Invalid(_))
    ));
    assert_eq!(b.user("u1").await.unwrap().unwrap().email, "u1@example.com");
    assert_eq!(b.user_count().await.unwrap(), 2);
    let listed: Vec<String> = b
        .users_after(Some("u1@example.com"), 10)
        .await
        .unwrap()
        .into_iter()
        .map(|u| u.id)
        .collect();
    assert_eq!(listed, ["u2"]);
}

#[tokio::test]
async fn deleting_an_account_takes_everything_it_owns() {
    let Some(b) = backend().await else { return };
    with_users(&b, &["u", "v"]).await;
    put(&b, &[item("a", 1, None)]).await;
    let set = MarkChange {
        clear: ItemMarks::default(),
        set: Some(Mark::Favorite),
    };
    for who in ["u", "v"] {
        b.change_marks(who, "a", set, at(1)).await.unwrap();
        b.share(
            who,
            "a",
            &Share {
                at: at(1),
                platform: "linkedin".into(),
            },
        )
        .await
        .unwrap();
        b.put_api_key(who, &format!("key-{who}"), &[who.as_bytes()[0]; 32], false)
            .await
            .unwrap();
        b.consume_quota(who, 10, at(1)).await.unwrap();
    }
    let session = Session {
        id: "s1".into(),
        user_id: "u".into(),
        created_at: at(1),
        method: "password".into(),
        refreshed_at: None,
    };
    let token = [7u8; 32];
    let record = RefreshRecord {
        session_id: "s1".into(),
        created_at: at(1),
        used_at: None,
        child: None,
    };
    b.start_session(&session, &token, &record, &mut |_| Ok(()))
        .await
        .unwrap();
    b.put_secret(
        &SecretRecord {
            hash: [9; 32],
            owner: "u".into(),
            purpose: "recovery".into(),
            body: b"{}".to_vec(),
        },
        None,
    )
    .await
    .unwrap();

    let gone = b.delete_user("u").await.unwrap().unwrap();
    assert_eq!(gone.id, "u");
    assert!(b.delete_user("u").await.unwrap().is_none());
    assert_eq!(b.user_count().await.unwrap(), 1);
    assert!(b.session("s1").await.unwrap().is_none());
    assert_eq!(b.mark_counts("u").await.unwrap(), MarkCounts::default());
    assert!(b.marked_ids("u", Mark::Favorite).await.unwrap().is_empty());
    assert!(!b.has_shared("u", "a").await.unwrap());
    assert!(b.api_key("u").await.unwrap().is_none());
    assert_eq!(b.quota_used("u", at(1)).await.unwrap(), 0);
    let spent = b
        .use_secret(SecretLookup::Hash(&[9; 32]), &mut |s, _| {
            assert!(s.is_none());
            SecretUse::Keep
        })
        .await
        .unwrap();
    assert!(spent.is_none());
    // The other account keeps what is its own.
    assert_eq!(b.marked_ids("v", Mark::Favorite).await.unwrap(), ["a"]);
    assert!(b.has_shared("v", "a").await.unwrap());
    assert_eq!(b.quota_used("v", at(1)).await.unwrap(), 1);
}

#[tokio::test]
async fn a_refresh_applies_the_rules_plan_under_the_session_lock() {
    let Some(b) = backend().await else { return };
    with_users(&b, &["u"]).await;
    let session = Session {
        id: "s1".into(),
        user_id: "u".into(),
        created_at: at(1),
        method: "password".into(),
        refreshed_at: None,
    };
    let first = RefreshRecord {
        session_id: "s1".into(),
        created_at: at(1),
        used_at: None,
        child: None,
    };
    let stamped = b
        .start_session(&session, &[1; 32], &first, &mut |u: &mut User| {
            u.last_sign_in_at = Some(at(1));
            Ok(())
        })
        .await
        .unwrap();
    assert_eq!(stamped.last_sign_in_at, Some(at(1)));
    // Rotate: spend the first token, add the second, stamp the session.
    let plan = b
        .refresh(&[1; 32], &mut |view| {
            let view = view.expect("a live token");
            assert_eq!(view.tokens.len(), 1);
            assert_eq!(view.user.id, "u");
            let mut spent = view.presented.clone();
            spent.used_at = Some(at(2));
            let mut session = view.session.clone();
            session.refreshed_at = Some(at(2));
            RefreshPlan {
                outcome: RefreshOutcome::Rotated(Box::new((
                    session.clone(),
                    view.user.clone(),
                    "next".into(),
                ))),
                put: vec![
                    ([1; 32], spent),
                    (
                        [2; 32],
                        RefreshRecord {
                            session_id: "s1".into(),
                            created_at: at(2),
                            used_at: None,
                            child: None,
                        },
                    ),
                ],
                remove: vec![],
                session: Some(session),
                end_session: false,
            }
        })
        .await
        .unwrap();
    assert!(matches!(plan.outcome, RefreshOutcome::Rotated(_)));
    assert_eq!(
        b.session("s1").await.unwrap().unwrap().refreshed_at,
        Some(at(2))
    );
    // Reuse ends the session with all its tokens.
    b.refresh(&[1; 32], &mut |view| {
        assert_eq!(view.unwrap().tokens.len(), 2);
        RefreshPlan {
            outcome: RefreshOutcome::AlreadyUsed,
            end_session: true,
            ..RefreshPlan::default()
        }
    })
    .await
    .unwrap();
    assert!(b.session("s1").await.unwrap().is_none());
    b.refresh(&[2; 32], &mut |view| {
        assert!(view.is_none(), "a token of an ended session is unknown");
        RefreshPlan::default()
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn secrets_hold_one_per_owner_and_purpose() {
    let Some(b) = backend().await else { return };
    with_users(&b, &["u"]).await;
    let secret = |hash: u8, purpose: &str| SecretRecord {
        hash: [hash; 32],
        owner: "u".into(),
        purpose: purpose.into(),
        body: format!("{{\"n\":{hash}}}").into_bytes(),
    };
    b.put_secret(&secret(1, "recovery"), None).await.unwrap();
    // A new link of the same purpose spends the old one.
    b.put_secret(
        &secret(2, "recovery"),
        Some(&mut |u: &mut User| {
            u.recovery_sent_at = Some(at(5));
            Ok(())
        }),
    )
    .await
    .unwrap();
    assert_eq!(
        b.user("u").await.unwrap().unwrap().recovery_sent_at,
        Some(at(5))
    );
    b.put_secret(&secret(3, "confirmation"), None)
        .await
        .unwrap();
    let old = b
        .use_secret(SecretLookup::Hash(&[1; 32]), &mut |s, _| {
            assert!(s.is_none());
            SecretUse::Keep
        })
        .await
        .unwrap();
    assert!(old.is_none());
    let used = b
        .use_secret(
            SecretLookup::Slot {
                owner: "u",
                purpose: "recovery",
            },
            &mut |s, purposes| {
                assert_eq!(s.unwrap().hash, [2; 32]);
                assert_eq!(purposes, ["confirmation", "recovery"]);
                SecretUse::Update(b"{\"tries\":1}".to_vec())
            },
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(used.body, b"{\"n\":2}");
    b.use_secret(SecretLookup::Hash(&[2; 32]), &mut |s, _| {
        assert_eq!(s.unwrap().body, b"{\"tries\":1}");
        SecretUse::Spend
    })
    .await
    .unwrap();
    b.use_secret(SecretLookup::Hash(&[2; 32]), &mut |s, _| {
        assert!(s.is_none());
        SecretUse::Keep
    })
    .await
    .unwrap();
    assert!(matches!(
        b.put_secret(
            &SecretRecord {
                owner: "nobody".into(),
                ..secret(4, "recovery")
            },
            None
        )
        .await,
        Err(Error::NotFound("user"))
    ));
}

#[tokio::test]
async fn a_quota_is_exact_under_concurrent_requests() {
    let Some(b) = backend().await else { return };
    let b = Arc::new(b);
    let now = at(100);
    let tasks: Vec<_> = (0..150)
        .map(|_| {
            let b = b.clone();
            tokio::spawn(async move { b.consume_quota("owner", 100, now).await.unwrap() })
        })
        .collect();
    let mut allowed = 0;
    for t in tasks {
        let used = t.await.unwrap();
        if used.allowed {
            allowed += 1;
        } else {
            assert_eq!(used.remaining, 0);
        }
    }
    assert_eq!(allowed, 100);
    assert_eq!(b.quota_used("owner", now).await.unwrap(), 100);
    // The next UTC day starts over.
    let tomorrow = now + Duration::days(1);
    let q = b.consume_quota("owner", 100, tomorrow).await.unwrap();
    assert!(q.allowed);
    assert_eq!(q.remaining, 99);
    assert!(q.reset_at > tomorrow && q.reset_at <= tomorrow + Duration::days(1));
}

#[tokio::test]
async fn api_keys_are_one_per_user_and_found_by_hash() {
    let Some(b) = backend().await else { return };
    with_users(&b, &["u"]).await;
    let b = Arc::new(b);
    // Two first requests at once agree on one key.
    let (k1, k2) = tokio::join!(
        b.put_api_key("u", "key-1", &[1; 32], false),
        b.put_api_key("u", "key-2", &[2; 32], false)
    );
    let (k1, k2) = (k1.unwrap(), k2.unwrap());
    assert_eq!(k1, k2);
    let replaced = b.put_api_key("u", "key-3", &[3; 32], true).await.unwrap();
    assert_eq!(replaced, "key-3");
    assert!(b.api_key_owner(&[1; 32]).await.unwrap().is_none());
    assert!(b.api_key_owner(&[2; 32]).await.unwrap().is_none());
    assert_eq!(
        b.api_key_owner(&[3; 32]).await.unwrap().as_deref(),
        Some("u")
    );
}

#[tokio::test]
async fn due_feeds_are_leased_to_one_fetcher_each() {
    let Some(b) = backend().await else { return };
    let b = Arc::new(b);
    for n in 0..10 {
        let feed: Feed = serde_json::from_value(serde_json::json!({
            "id": format!("f{n}"),
            "url": format!("https://feeds.example/{n}"),
            "added_at": at(n),
            "next_due": if n == 9 { Some(at(1000)) } else { None },
        }))
        .unwrap();
        b.insert_feed(&feed).await.unwrap();
    }
    let now = at(10);
    let until = at(70);
    let leasers: Vec<_> = (0..4)
        .map(|_| {
            let b = b.clone();
            tokio::spawn(async move { b.lease_due_feeds(now, until, 3).await.unwrap() })
        })
        .collect();
    let mut got: Vec<String> = Vec::new();
    for l in leasers {
        got.extend(l.await.unwrap().into_iter().map(|f| f.id));
    }
    got.sort();
    assert_eq!(got, (0..9).map(|n| format!("f{n}")).collect::<Vec<_>>());
    assert!(b.lease_due_feeds(now, until, 10).await.unwrap().is_empty());
    // A new due time ends the lease; so does the lease's end.
    b.update_feed("f0", &mut |f: &mut Feed| f.next_due = Some(at(5)))
        .await
        .unwrap();
    let ids = |fs: Vec<Feed>| fs.into_iter().map(|f| f.id).collect::<Vec<_>>();
    assert_eq!(
        ids(b.lease_due_feeds(now, until, 10).await.unwrap()),
        ["f0"]
    );
    assert_eq!(
        ids(b.lease_due_feeds(at(70), at(130), 3).await.unwrap()),
        ["f1", "f2", "f3"]
    );
    assert!(matches!(
        b.insert_feed(&b.feed("f1").await.unwrap().unwrap()).await,
        Err(Error::Conflict(_))
    ));
    b.put_entry_item("f1", "guid-1", "item-1").await.unwrap();
    assert_eq!(
        b.entry_item("f1", "guid-1").await.unwrap().as_deref(),
        Some("item-1")
    );
    b.remove_feed("f1").await.unwrap().unwrap();
    assert!(b.entry_item("f1", "guid-1").await.unwrap().is_none());
}

#[tokio::test]
async fn coordination_is_shared_by_every_handle() {
    let Some(a) = backend().await else { return };
    // A second handle on the same database: another node.
    let other = PostgresBackend::open(&a.database.url).await.unwrap();
    assert!(a.set_flag("demo_loaded").await.unwrap());
    assert!(!other.set_flag("demo_loaded").await.unwrap());
    assert!(other.flag("demo_loaded").await.unwrap());

    let soon = Utc::now() + Duration::seconds(30);
    assert!(a.lease("summary", "node-a", soon).await.unwrap());
    assert!(!other.lease("summary", "node-b", soon).await.unwrap());
    assert!(
        a.lease("summary", "node-a", soon).await.unwrap(),
        "a renewal"
    );
    let past = Utc::now() - Duration::seconds(1);
    assert!(a.lease("job", "node-a", past).await.unwrap());
    assert!(
        other.lease("job", "node-b", soon).await.unwrap(),
        "a lapsed lease"
    );

    let s1 = a.shared_secret("jwt", &|| b"first".to_vec()).await.unwrap();
    let s2 = other
        .shared_secret("jwt", &|| b"second".to_vec())
        .await
        .unwrap();
    assert_eq!(
        (s1.as_slice(), s2.as_slice()),
        (&b"first"[..], &b"first"[..])
    );

    let minute = std::time::Duration::from_secs(60);
    let key = [5u8; 32];
    assert_eq!(a.rate(&key, minute / 3, 3, at(0)).await.unwrap(), None);
    assert_eq!(other.rate(&key, minute / 3, 3, at(0)).await.unwrap(), None);
    assert_eq!(a.rate(&key, minute / 3, 3, at(0)).await.unwrap(), None);
    assert_eq!(
        other.rate(&key, minute / 3, 3, at(0)).await.unwrap(),
        Some(std::time::Duration::from_secs(20))
    );
    assert_eq!(a.rate(&key, minute / 3, 3, at(20)).await.unwrap(), None);
}

#[tokio::test]
async fn a_week_has_one_summary() {
    let Some(b) = backend().await else { return };
    let summary = |id: &str| WeeklySummary {
        id: id.into(),
        title: "Weekly AI News Summary".into(),
        summary: "s".into(),
        content: vec!["c".into()],
        start_date: at(0),
        end_date: at(6 * 86_400),
        generated_date: at(7 * 86_400),
        article_count: 3,
        key_points: Vec::new(),
    };
    let b = Arc::new(b);
    let (x, y) = (summary("x"), summary("y"));
    let (x, y) = tokio::join!(b.put_summary_once(&x), b.put_summary_once(&y));
    assert!(x.unwrap() ^ y.unwrap(), "exactly one is written");
    assert!(b.summary_of_week(at(0)).await.unwrap().is_some());
    assert_eq!(b.summaries().await.unwrap().len(), 1);
}

#[tokio::test]
async fn nodes_starting_together_migrate_once() {
    let Some(db) = testing::database() else {
        return;
    };
    // An empty database (the template's schema dropped), opened by five nodes at once.
    let admin = PostgresBackend::open(&db.url).await.unwrap();
    admin
        .client()
        .await
        .unwrap()
        .batch_execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
        .await
        .unwrap();
    let opens: Vec<_> = (0..5)
        .map(|_| {
            let url = db.url.clone();
            tokio::spawn(async move { PostgresBackend::open(&url).await })
        })
        .collect();
    for o in opens {
        o.await.unwrap().unwrap();
    }
    let versions = admin
        .rows("SELECT version FROM schema_version ORDER BY version", &[])
        .await
        .unwrap();
    assert_eq!(versions.len(), schema::LATEST as usize);
    // A schema newer than this binary knows is refused, saying so.
    admin
        .exec(
            "INSERT INTO schema_version (version) VALUES ($1)",
            &[&(schema::LATEST + 1)],
        )
        .await
        .unwrap();
    let Err(Error::Open(message)) = PostgresBackend::open(&db.url).await else {
        panic!("a newer schema was accepted")
    };
    assert!(message.contains("newer than this Radar knows"), "{message}");
}

#[tokio::test]
async fn an_unreachable_database_is_unavailable_and_its_password_unseen() {
    // A socket directory with no server in it.
    let dir = tempfile::tempdir().unwrap();
    let url = format!(
        "postgres://radar:hunter2@/radar?host={}&connect_timeout=1",
        dir.path().display()
    );
    // Unreachable (worth waiting for: a daemon starting beside its database does), not a
    // mistake in the configuration.
    let Err(Error::Unreachable(message)) = PostgresBackend::open(&url).await else {
        panic!("opened a database that is not there")
    };
    assert!(!message.contains("hunter2"), "{message}");
    assert!(message.contains("radar:***@"), "{message}");
}

#[tokio::test]
async fn lost_connections_are_replaced_without_a_restart() {
    let Some(b) = backend().await else { return };
    let b = Arc::new(b);
    let pid = |b: Arc<TestBackend>| async move {
        let c = b.client().await?;
        let row = c
            .query_one("SELECT pg_backend_pid()", &[])
            .await
            .map_err(super::db_error)?;
        super::get::<i32>(&row, 0)
    };
    // Hold several connections at once, so the pool keeps more than one.
    let busy: Vec<_> = (0..4).map(|_| tokio::spawn(pid(b.clone()))).collect();
    let mut before = Vec::new();
    for t in busy {
        before.push(t.await.unwrap().unwrap());
    }
    b.database.cut_connections();
    // A call on a connection cut before the pool noticed is answered as unavailable
    // (503, try again), never as another error; the pool replaces the connection.
    let mut unavailable = 0;
    for _ in 0..8 {
        match b.item_count().await {
            Ok(n) => assert_eq!(n, 0),
            Err(Error::Unreachable(_)) => unavailable += 1,
            Err(e) => panic!("{e}"),
        }
    }
    assert!(unavailable < 8, "the backend never came back");
    let after = pid(b.clone()).await.unwrap();
    assert!(
        !before.contains(&after),
        "served by a connection that was cut"
    );
    put(&b, &[item("a", 1, None)]).await;
    assert_eq!(b.item_count().await.unwrap(), 1);
}

#[tokio::test]
async fn the_url_is_shown_without_its_password() {
    let Some(db) = testing::database() else {
        return;
    };
    // The test server trusts its socket: the password is never asked for.
    let url = db
        .url
        .replacen("postgres:///", "postgres://radar:hunter2@/", 1)
        + "&pool_size=3";
    let b = PostgresBackend::open(&url).await.unwrap();
    b.ping().await.unwrap();
    assert_eq!(b.pool_size(), 3);
    assert!(b.url().starts_with("postgres://radar:***@/"), "{}", b.url());
    assert!(!format!("{b:?}").contains("hunter2"), "{b:?}");
    assert_eq!(b.engine(), "postgres");
}

#[tokio::test]
async fn every_listing_walks_an_index() {
    let Some(b) = backend().await else { return };
    let client = b.client().await.unwrap();
    // With sequential scans priced out, a statement that has no index to walk still
    // shows one in its plan.
    client
        .batch_execute("SET enable_seqscan = off")
        .await
        .unwrap();
    for sql in [
        "SELECT body FROM items ORDER BY published_ms DESC, id DESC LIMIT 20",
        "SELECT body FROM items WHERE (published_ms, id) < (5, 'x') \
         ORDER BY published_ms DESC, id DESC LIMIT 20",
        "SELECT i.body FROM items AS i WHERE NOT EXISTS (SELECT 1 FROM marks AS m \
         WHERE m.reader = 'r' AND m.item = i.id AND m.hidden_at IS NOT NULL) \
         ORDER BY i.published_ms DESC, i.id DESC LIMIT 20",
        "SELECT id FROM items ORDER BY title_key DESC, id DESC OFFSET 10 LIMIT 10",
        "SELECT id FROM items WHERE url = 'u'",
        "SELECT item FROM marks WHERE reader = 'r' AND read_at IS NOT NULL \
         ORDER BY read_at DESC, item DESC",
        "SELECT seq FROM item_changes WHERE seq > 5 ORDER BY seq LIMIT 100",
        "SELECT record FROM users WHERE email > 'a' ORDER BY email LIMIT 10",
        "SELECT record FROM users WHERE customer_id = 'c'",
        "SELECT id FROM sessions WHERE user_id = 'u'",
        "SELECT record FROM waitlist ORDER BY joined_at, user_id",
        "SELECT count(*) FROM checkouts WHERE user_id = 'u' AND created_at >= now()",
        "SELECT item, record FROM shares WHERE reader = 'r' ORDER BY at DESC, item DESC",
        "SELECT record FROM mails ORDER BY created_at DESC, id DESC",
        "DELETE FROM mails WHERE to_key = 'x'",
        "DELETE FROM quotas WHERE day < now()::date",
        "DELETE FROM rate_limits WHERE tat < now()",
        "SELECT id FROM feeds WHERE next_due IS NULL OR next_due <= now() \
         ORDER BY next_due NULLS FIRST, id LIMIT 5",
        "SELECT 1 FROM marks WHERE item = 'i'",
        "SELECT 1 FROM refresh_tokens WHERE session_id = 's'",
        "SELECT i.body FROM items AS i WHERE NOT EXISTS (SELECT 1 FROM story_members AS s \
         WHERE s.item = i.id AND s.covered) ORDER BY i.published_ms DESC, i.id DESC LIMIT 20",
        "SELECT count(*) FROM items AS i WHERE i.published_ms >= 5 AND NOT EXISTS \
         (SELECT 1 FROM story_members AS s WHERE s.item = i.id AND s.covered)",
        "SELECT item FROM story_members WHERE story = \
         coalesce((SELECT into_story FROM story_merges WHERE story = 's'), 's') ORDER BY joined",
        "SELECT coalesce(max(joined), 0) FROM story_members WHERE story = 's'",
        "SELECT item FROM story_members WHERE story = ANY('{a,b}'::text[])",
        "UPDATE story_merges SET into_story = 'a' WHERE into_story = ANY('{b,c}'::text[])",
    ]
    .into_iter()
    .map(String::from)
    .chain([super::stories::COVERED_OUT_OF_FEED.replace("$1", "'r'")])
    {
        let plan: Vec<String> = client
            .query(&format!("EXPLAIN {sql}"), &[])
            .await
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        let plan = plan.join("\n");
        assert!(!plan.contains("Seq Scan"), "{sql}\n{plan}");
    }
}

/// The backend contract, the behaviour every backend shares, on PostgreSQL: each test on
/// a database of its own.
mod contract {
    crate::backend::contract::contract_tests!({
        let Some(test) = super::testing::backend().await else {
            return;
        };
        let (database, backend) = test.into_parts();
        (
            database,
            std::sync::Arc::new(backend) as std::sync::Arc<dyn crate::backend::Backend>,
        )
    });
}

#[tokio::test]
async fn the_change_log_is_pruned_as_a_prefix_and_says_how_far() {
    let Some(b) = backend().await else { return };
    put(&b, &[item("a", 1, None), item("b", 2, None)]).await;
    put(&b, &[item("c", 3, None)]).await;
    // The first batch's entries are past the log's retention, the second's are not.
    b.client()
        .await
        .unwrap()
        .execute(
            "UPDATE item_changes SET at = now() - interval '8 days' WHERE seq <= 2",
            &[],
        )
        .await
        .unwrap();
    let before = Utc::now() - super::CHANGE_LOG_KEEPS;
    assert_eq!(b.prune_change_log(before).await.unwrap(), 1);
    assert_eq!(b.change_log_pruned_through().await.unwrap(), 2);
    let left: Vec<u64> = b
        .item_changes(0, 10)
        .await
        .unwrap()
        .iter()
        .map(|c| c.seq)
        .collect();
    assert_eq!(left, vec![3]);
    // Nothing more is old enough: the mark stays where it is.
    assert_eq!(b.prune_change_log(before).await.unwrap(), 0);
    assert_eq!(b.change_log_pruned_through().await.unwrap(), 2);
    assert_eq!(b.items_version().await.unwrap(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_the_log_was_pruned_past_is_rebuilt() {
    use crate::search::tests::{item, subscriber, titles};
    let Some(db) = testing::database() else {
        return;
    };
    let dirs = tempfile::tempdir().unwrap();
    let opts = crate::Options::default;
    // An admin command's store writes (it keeps no replica); a daemon's follows.
    let writer = crate::Store::open_shared(&db.url, None, opts())
        .await
        .unwrap();
    let follower = crate::Store::open_shared(&db.url, Some(dirs.path()), opts())
        .await
        .unwrap();
    let log = PostgresBackend::open(&db.url).await.unwrap();
    let v = subscriber("u");
    let write = |n: u32| {
        writer.upsert_item(item(
            &format!("Zeppelin {n}"),
            "An airship.",
            &format!("https://z.example/{n}"),
            "2026-01-01T00:00:00Z",
        ))
    };

    // A replica still running that missed every entry the log kept: rebuilt when asked.
    write(1).await.unwrap();
    log.prune_change_log(Utc::now()).await.unwrap();
    assert_eq!(titles(&follower, &v, "zeppelin").await, ["Zeppelin 1"]);

    // A replica stopped while the log moved on and was pruned: rebuilt when it opens.
    drop(follower);
    write(2).await.unwrap();
    log.prune_change_log(Utc::now()).await.unwrap();
    let follower = crate::Store::open_shared(&db.url, Some(dirs.path()), opts())
        .await
        .unwrap();
    let mut found = titles(&follower, &v, "zeppelin").await;
    found.sort();
    assert_eq!(found, ["Zeppelin 1", "Zeppelin 2"]);

    // Following again, from the log, past the rebuild.
    write(3).await.unwrap();
    follower.upkeep().await.unwrap();
    assert_eq!(titles(&follower, &v, "zeppelin").await.len(), 3);
}
