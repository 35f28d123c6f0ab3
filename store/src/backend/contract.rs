//! The contract of the backend interface, as tests any backend can run.
//!
//! Each function here checks what the docs of [`crate::backend`] promise of one part of
//! the interface, on a new, empty backend it is handed (as `Arc<dyn Backend>`, so that
//! the concurrency checks can share it between tasks): the orders, filters and lookups,
//! the cascades, the constraints a backend enforces (unique e-mails and URLs, counters
//! that never pass their limit, one holder per lease), and that a rule handed to a
//! backend runs in one atomic step with the writes of its answer. The functions assert
//! only what the docs say; where a backend may choose (how long it keeps the change log,
//! the order of ties the docs leave open), they do not look.
//!
//! A backend runs the whole suite with one line in its tests, [`contract_tests!`], given
//! an expression (evaluated in an async test, so it may `.await`) that makes a new empty
//! backend for each test: an `Arc` of the backend, or a pair of something to keep alive
//! for the test (a temporary directory, a database guard) and the backend:
//!
//! ```ignore
//! crate::backend::contract::contract_tests!(std::sync::Arc::new(MemoryBackend::new()));
//! crate::backend::contract::contract_tests!({
//!     let dir = tempfile::tempdir().unwrap();
//!     let backend = SledBackend::open(dir.path()).unwrap();
//!     (dir, std::sync::Arc::new(backend))
//! });
//! ```
//!
//! Tests run on a multi-threaded runtime so that the concurrency checks race for real.

use std::collections::HashSet;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::json;
use tokio::sync::Barrier;

use crate::backend::{
    Backend, FeedPosition, Json, MarkChange, MarkCounts, NewestQuery, ReadEvent, SecretLookup,
    Share, StoredItem, UserChange,
};
use crate::catalogue::{SortBy, SortOrder};
use crate::rate::Gcra;
use crate::secrets::{SecretRecord, SecretUse, secret_hash};
use crate::sessions::{RefreshOutcome, RefreshPlan, RefreshRecord, RefreshView, Session};
use crate::{
    CheckoutSession, CheckoutStatus, Error, Feed, ItemMarks, Mail, Mark, NewsItem, Profile, Result,
    User, WaitlistEntry, WeeklySummary,
};

/// What a backend's test hands the suite: the backend, and whatever must live as long
/// as the test does.
pub(crate) trait Subject {
    /// The keep-alive part and the backend.
    fn into_parts(self) -> (Box<dyn Send>, Arc<dyn Backend>);
}

impl<B: Backend> Subject for Arc<B> {
    fn into_parts(self) -> (Box<dyn Send>, Arc<dyn Backend>) {
        (Box::new(()), self)
    }
}

impl Subject for Arc<dyn Backend> {
    fn into_parts(self) -> (Box<dyn Send>, Arc<dyn Backend>) {
        (Box::new(()), self)
    }
}

impl<K: Send + 'static> Subject for (K, Arc<dyn Backend>) {
    fn into_parts(self) -> (Box<dyn Send>, Arc<dyn Backend>) {
        (Box::new(self.0), self.1)
    }
}

impl<K: Send + 'static, B: Backend> Subject for (K, Arc<B>) {
    fn into_parts(self) -> (Box<dyn Send>, Arc<dyn Backend>) {
        (Box::new(self.0), self.1)
    }
}

/// One `#[tokio::test]` per function of the contract, each on a backend made by the
/// expression given (see the module doc).
macro_rules! contract_tests {
    ($make:expr) => {
        $crate::backend::contract::contract_tests!(@each $make;
            items_are_stored_counted_and_served_as_written,
            a_url_belongs_to_the_last_item_written_with_it,
            the_items_version_moves_with_every_write,
            the_change_log_numbers_every_write_in_order,
            removing_an_item_removes_every_readers_marks,
            newest_pages_by_date_then_id,
            newest_leaves_out_the_readers_marked_items,
            newest_stops_at_the_cut_off_and_counts_what_it_lists,
            a_story_lists_its_lead_and_covers_the_rest,
            merged_stories_keep_the_surviving_id_and_every_member,
            a_removed_lead_hands_the_story_to_the_next_member,
            covered_out_of_feed_counts_only_covered_marks,
            the_catalogue_lists_every_order_both_ways,
            published_between_is_half_open_and_oldest_first,
            items_after_walks_every_item_in_id_order,
            change_marks_clears_then_sets_and_keeps_counts,
            a_mark_set_beside_another_is_reported_and_taken_back,
            a_change_of_marks_in_session_needs_the_readers_session,
            marked_ids_lists_the_most_recently_marked_first,
            shares_keep_the_latest_per_item,
            a_mark_is_never_left_on_an_item_removed_meanwhile,
            concurrent_mark_changes_keep_counts_in_step,
            accounts_are_found_by_id_email_and_customer,
            update_user_keeps_emails_unique_and_lookups_in_step,
            delete_user_removes_everything_the_user_owns,
            reading_history_is_per_reader_by_time_and_goes_with_the_account,
            sessions_start_with_a_stamp_and_end_with_their_tokens,
            refresh_hands_the_rule_its_view_and_applies_the_plan,
            refresh_is_one_step_under_concurrency,
            update_user_ending_sessions_keeps_only_the_kept_session,
            secrets_replace_per_purpose_and_rules_decide_their_use,
            put_secrets_writes_and_clears_in_one_step,
            a_secret_is_spent_once_under_concurrency,
            api_keys_are_one_per_user,
            two_first_api_keys_agree,
            quotas_count_per_utc_day_up_to_the_limit,
            consume_quota_never_passes_the_limit_under_concurrency,
            checkouts_are_inserted_once_and_changed_by_rules,
            the_waitlist_keeps_the_first_join,
            feeds_are_unique_by_url_and_forget_their_entries,
            due_feeds_are_leased_until_their_lease_ends,
            concurrent_leases_never_share_a_feed,
            summaries_are_kept_by_id_and_once_per_week,
            the_outbox_lists_newest_first_and_forgets_by_address,
            profiles_are_kept_per_user,
            documents_change_only_from_the_version_read,
            a_flag_is_set_once,
            a_job_lease_has_one_holder_at_a_time,
            the_shared_secret_is_made_once,
            rate_follows_gcra_per_key,
            the_backend_names_its_engine_and_flushes,
        );
    };
    (@each $make:expr; $($name:ident),+ $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $name() {
                let (_keep, backend) = $crate::backend::contract::Subject::into_parts($make);
                $crate::backend::contract::$name(backend).await;
            }
        )+
    };
}
pub(crate) use contract_tests;

// ----- helpers -----

/// An instant from RFC 3339.
fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s)
        .expect("a valid instant")
        .with_timezone(&Utc)
}

/// An item to store. Records are built from JSON so that fields added later (with serde
/// defaults) need no change here.
fn news(id: &str, title: &str, url: Option<&str>, published: &str) -> StoredItem {
    let item: NewsItem = serde_json::from_value(json!({
        "id": id,
        "title": title,
        "summary": format!("About {title}"),
        "url": url,
        "published_date": published,
    }))
    .expect("an item");
    StoredItem::new(item)
}

/// Stores items with these ids, all published at one time, without URLs.
async fn put_plain(b: &dyn Backend, ids: &[&str]) {
    let items: Vec<StoredItem> = ids
        .iter()
        .map(|id| news(id, &id.to_uppercase(), None, "2026-01-01T00:00:00Z"))
        .collect();
    b.put_items(&items).await.unwrap();
}

/// The ids of items' JSON, as a backend serves them.
fn ids(items: &[Json]) -> Vec<String> {
    items
        .iter()
        .map(|j| {
            serde_json::from_slice::<NewsItem>(j)
                .expect("an item's JSON")
                .id
        })
        .collect()
}

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(std::string::ToString::to_string).collect()
}

fn user(id: &str, email: &str) -> User {
    serde_json::from_value(json!({
        "id": id,
        "email": email,
        "password_hash": "hash",
        "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z",
    }))
    .expect("a user")
}

fn session(id: &str, user_id: &str) -> Session {
    serde_json::from_value(json!({
        "id": id,
        "user_id": user_id,
        "created_at": "2026-01-01T00:00:00Z",
    }))
    .expect("a session")
}

fn refresh_record(session_id: &str) -> RefreshRecord {
    serde_json::from_value(json!({
        "session_id": session_id,
        "created_at": "2026-01-01T00:00:00Z",
    }))
    .expect("a refresh record")
}

fn secret(owner: &str, purpose: &str, secret: &str) -> SecretRecord {
    SecretRecord {
        hash: secret_hash(secret),
        owner: owner.into(),
        purpose: purpose.into(),
        body: b"{}".to_vec(),
    }
}

fn feed(id: &str, url: &str, added: &str, next_due: Option<&str>) -> Feed {
    serde_json::from_value(json!({
        "id": id,
        "url": url,
        "added_at": added,
        "next_due": next_due,
    }))
    .expect("a feed")
}

fn checkout(id: &str, user_id: &str, created: &str) -> CheckoutSession {
    serde_json::from_value(json!({
        "id": id,
        "user_id": user_id,
        "provider": "stripe",
        "status": "created",
        "created_at": created,
    }))
    .expect("a checkout")
}

fn waitlist_entry(user_id: &str, joined: &str) -> WaitlistEntry {
    serde_json::from_value(json!({
        "user_id": user_id,
        "email": format!("{user_id}@example.com"),
        "joined_at": joined,
    }))
    .expect("a waitlist entry")
}

fn summary(id: &str, start: &str) -> WeeklySummary {
    serde_json::from_value(json!({
        "id": id,
        "summary": format!("Summary {id}"),
        "content": ["One paragraph."],
        "start_date": start,
        "end_date": start,
        "generated_date": start,
        "article_count": 3,
    }))
    .expect("a summary")
}

fn mail(id: &str, to: &str, created: &str) -> Mail {
    serde_json::from_value(json!({
        "id": id,
        "to": to,
        "subject": "Reset your password",
        "text": "A link.",
        "kind": "recovery",
        "created_at": created,
    }))
    .expect("a mail")
}

fn set(mark: Mark) -> MarkChange {
    MarkChange {
        clear: ItemMarks::default(),
        set: Some(mark),
    }
}

fn marks_of(list: &[Mark]) -> ItemMarks {
    let mut marks = ItemMarks::default();
    for m in list {
        marks.set(*m);
    }
    marks
}

fn clear(list: &[Mark]) -> MarkChange {
    MarkChange {
        clear: marks_of(list),
        set: None,
    }
}

fn counts(favorite: u64, hidden: u64, read: u64) -> MarkCounts {
    MarkCounts([favorite, hidden, read])
}

const LEAVE_FEED: &[Mark] = &[Mark::Hidden, Mark::Read];

/// A page of the newest-first listing: ids, the last position, and whether more follow.
async fn newest(
    b: &dyn Backend,
    reader: Option<&str>,
    leave_out: &[Mark],
    after: Option<&FeedPosition>,
    limit: usize,
) -> (Vec<String>, Option<FeedPosition>, bool) {
    let page = b
        .newest(NewestQuery {
            reader,
            leave_out,
            after,
            since_ms: None,
            limit,
            leads_only: false,
        })
        .await
        .unwrap();
    (ids(&page.items), page.last, page.has_more)
}

/// Runs `n` tasks at once (released together by a barrier) and collects their answers.
async fn race<T, F, Fut>(n: usize, task: F) -> Vec<T>
where
    T: Send + 'static,
    F: Fn(usize) -> Fut,
    Fut: Future<Output = T> + Send + 'static,
{
    let start = Arc::new(Barrier::new(n));
    let mut set = tokio::task::JoinSet::new();
    for i in 0..n {
        let start = start.clone();
        let run = task(i);
        set.spawn(async move {
            start.wait().await;
            run.await
        });
    }
    let mut out = Vec::with_capacity(n);
    while let Some(done) = set.join_next().await {
        out.push(done.expect("a task of the race panicked"));
    }
    out
}

/// What `refresh` shows a rule for this token (none: unknown or ended), changing
/// nothing.
async fn refresh_view(b: &dyn Backend, token: &[u8; 32]) -> Option<RefreshView> {
    let mut seen = None;
    b.refresh(token, &mut |view: Option<RefreshView>| {
        seen = view;
        RefreshPlan::default()
    })
    .await
    .unwrap();
    seen
}

/// What `use_secret` shows a rule (the secret, and its owner's purposes in order),
/// changing nothing.
async fn present(b: &dyn Backend, by: SecretLookup<'_>) -> (Option<SecretRecord>, Vec<String>) {
    let mut seen = None;
    b.use_secret(by, &mut |record: Option<&SecretRecord>,
                           purposes: &[String]| {
        let mut purposes = purposes.to_vec();
        purposes.sort();
        seen = Some((record.cloned(), purposes));
        SecretUse::Keep
    })
    .await
    .unwrap();
    seen.expect("the rule ran")
}

/// Whether the secret is live.
async fn live(b: &dyn Backend, secret: &str) -> bool {
    present(b, SecretLookup::Hash(&secret_hash(secret)))
        .await
        .0
        .is_some()
}

/// The reader's version now, which must differ from `before`.
async fn version_moved(b: &dyn Backend, reader: &str, before: u64) -> u64 {
    let now = b.reader_version(reader).await.unwrap();
    assert_ne!(now, before, "the reader's version moves with their marks");
    now
}

/// A rule that changes nothing.
#[allow(clippy::unnecessary_wraps, reason = "a rule's signature")]
fn no_change(_: &mut User) -> Result<()> {
    Ok(())
}

// ----- items -----

/// `put_items` stores by id, answers `created` and a change number per item (numbers
/// never go back; one call's items may share one), counts,
/// and every read serves the JSON it was given, byte for byte.
pub(crate) async fn items_are_stored_counted_and_served_as_written(b: Arc<dyn Backend>) {
    assert_eq!(b.item_count().await.unwrap(), 0);
    assert!(b.put_items(&[]).await.unwrap().is_empty());
    let a = news(
        "a",
        "Alpha",
        Some("https://n.example/a"),
        "2026-01-01T10:00:00Z",
    );
    let bb = news("b", "Beta", None, "2026-01-01T11:00:00Z");
    let written = b.put_items(&[a.clone(), bb.clone()]).await.unwrap();
    assert_eq!(written.len(), 2);
    assert!(written[0].created && written[1].created);
    assert!(written[0].change <= written[1].change, "{written:?}");
    assert_eq!(b.item_count().await.unwrap(), 2);
    assert_eq!(b.item("a").await.unwrap(), Some(a.json.clone()));
    assert_eq!(b.item("zz").await.unwrap(), None);
    assert_eq!(
        b.items(&strings(&["b", "zz", "a"])).await.unwrap(),
        vec![Some(bb.json.clone()), None, Some(a.json.clone())]
    );
    assert!(b.item_exists("a").await.unwrap());
    assert!(!b.item_exists("zz").await.unwrap());

    let a2 = news(
        "a",
        "Alpha, again",
        Some("https://n.example/a"),
        "2026-01-01T10:00:00Z",
    );
    let again = b.put_items(std::slice::from_ref(&a2)).await.unwrap();
    assert!(!again[0].created);
    assert!(again[0].change > written[1].change);
    assert_eq!(
        b.item_count().await.unwrap(),
        2,
        "a replaced item is not counted twice"
    );
    assert_eq!(b.item("a").await.unwrap(), Some(a2.json));

    // Two writes of one id in a batch apply in order.
    let c1 = news("c", "Gamma", None, "2026-01-02T00:00:00Z");
    let c2 = news("c", "Gamma, corrected", None, "2026-01-02T00:00:00Z");
    let both = b.put_items(&[c1, c2.clone()]).await.unwrap();
    assert_eq!(
        both.iter().map(|w| w.created).collect::<Vec<_>>(),
        [true, false]
    );
    assert!(both[0].change <= both[1].change);
    assert_eq!(b.item("c").await.unwrap(), Some(c2.json));
    assert_eq!(b.item_count().await.unwrap(), 3);
}

/// A URL belongs to the last item written with it; an item moved to a new URL, or
/// removed, releases its old one, but never a URL another item has taken over since.
#[allow(
    clippy::many_single_char_names,
    reason = "three URLs and two items, named by letter"
)]
pub(crate) async fn a_url_belongs_to_the_last_item_written_with_it(b: Arc<dyn Backend>) {
    let (u, v, w) = (
        "https://n.example/u",
        "https://n.example/v",
        "https://n.example/w",
    );
    let t = "2026-01-01T00:00:00Z";
    let by_url = |url: &'static str| {
        let b = b.clone();
        async move { b.item_id_by_url(url).await.unwrap() }
    };
    b.put_items(&[news("a", "A", Some(u), t)]).await.unwrap();
    assert_eq!(by_url(u).await.as_deref(), Some("a"));
    b.put_items(&[news("b", "B", Some(u), t)]).await.unwrap();
    assert_eq!(by_url(u).await.as_deref(), Some("b"), "taken over");
    b.put_items(&[news("a", "A", Some(v), t)]).await.unwrap();
    assert_eq!(by_url(v).await.as_deref(), Some("a"));
    assert_eq!(
        by_url(u).await.as_deref(),
        Some("b"),
        "moving a off u must not release u, which b holds"
    );
    b.put_items(&[news("b", "B", Some(w), t)]).await.unwrap();
    assert_eq!(by_url(u).await, None, "b moved to w and released u");
    assert_eq!(by_url(w).await.as_deref(), Some("b"));
    b.put_items(&[news("b", "B", None, t)]).await.unwrap();
    assert_eq!(
        by_url(w).await,
        None,
        "an item without a URL releases its old one"
    );

    b.remove_item("a").await.unwrap();
    assert_eq!(by_url(v).await, None, "a removed item releases its URL");
    b.put_items(&[news("c", "C", Some(w), t), news("d", "D", Some(w), t)])
        .await
        .unwrap();
    b.remove_item("c").await.unwrap();
    assert_eq!(
        by_url(w).await.as_deref(),
        Some("d"),
        "removing c must not release w, which d holds"
    );
}

/// `items_version` moves on with every write and removal, never back to a value it had.
pub(crate) async fn the_items_version_moves_with_every_write(b: Arc<dyn Backend>) {
    let mut seen = vec![b.items_version().await.unwrap()];
    b.item("a").await.unwrap();
    b.item_count().await.unwrap();
    assert_eq!(
        b.items_version().await.unwrap(),
        seen[0],
        "reads change nothing"
    );
    let t = "2026-01-01T00:00:00Z";
    b.put_items(&[news("a", "A", None, t)]).await.unwrap();
    seen.push(b.items_version().await.unwrap());
    b.put_items(&[news("a", "A, edited", None, t)])
        .await
        .unwrap();
    seen.push(b.items_version().await.unwrap());
    b.put_items(&[news("b", "B", None, t)]).await.unwrap();
    seen.push(b.items_version().await.unwrap());
    b.remove_item("a").await.unwrap();
    seen.push(b.items_version().await.unwrap());
    let distinct: HashSet<u64> = seen.iter().copied().collect();
    assert_eq!(distinct.len(), seen.len(), "versions {seen:?}");
}

/// The change log has one entry per write and removal, numbered in the order they
/// happened with the numbers the writes answered (the items of one call may share a
/// number, and come together); `after` is exclusive; forgetting some entries keeps the
/// others.
pub(crate) async fn the_change_log_numbers_every_write_in_order(b: Arc<dyn Backend>) {
    let t = "2026-01-01T00:00:00Z";
    let w1 = b
        .put_items(&[news("a", "A", None, t), news("b", "B", None, t)])
        .await
        .unwrap();
    let w2 = b.put_items(&[news("a", "A2", None, t)]).await.unwrap();
    let (_, removed) = b.remove_item("b").await.unwrap().expect("b existed");
    let expected = [w1[0].change, w1[1].change, w2[0].change, removed];
    let log = b.item_changes(0, 100).await.unwrap();
    assert_eq!(
        log.iter()
            .map(|c| (c.seq, c.id.as_str()))
            .collect::<Vec<_>>(),
        [
            (expected[0], "a"),
            (expected[1], "b"),
            (expected[2], "a"),
            (expected[3], "b")
        ]
    );
    // The items of one call may share a number; later calls' numbers are greater.
    assert!(
        expected[0] <= expected[1] && expected[1] < expected[2] && expected[2] < expected[3],
        "{expected:?}"
    );
    let seqs =
        |log: Vec<crate::backend::ItemChange>| log.into_iter().map(|c| c.seq).collect::<Vec<_>>();
    assert_eq!(seqs(b.item_changes(0, 2).await.unwrap()), expected[..2]);
    assert_eq!(
        seqs(b.item_changes(expected[1], 100).await.unwrap()),
        expected[2..]
    );
    assert!(b.item_changes(expected[3], 100).await.unwrap().is_empty());

    b.forget_item_changes(&expected[..2]).await.unwrap();
    assert_eq!(
        seqs(b.item_changes(expected[1], 100).await.unwrap()),
        expected[2..],
        "entries not forgotten stay"
    );
    let later = b.put_items(&[news("c", "C", None, t)]).await.unwrap();
    assert!(later[0].change > expected[3], "numbers never go back");
    assert_eq!(
        seqs(b.item_changes(expected[3], 100).await.unwrap()),
        [later[0].change]
    );
}

/// `remove_item` answers the item and takes every reader's marks of it with it, counts
/// and versions included; removing it again answers none.
pub(crate) async fn removing_an_item_removes_every_readers_marks(b: Arc<dyn Backend>) {
    let t = at("2026-02-01T00:00:00Z");
    b.put_items(&[
        news("x", "X", None, "2026-01-01T00:00:00Z"),
        news("y", "Y", None, "2026-01-02T00:00:00Z"),
    ])
    .await
    .unwrap();
    b.change_marks("r1", "x", set(Mark::Favorite), t)
        .await
        .unwrap();
    b.change_marks("r2", "x", set(Mark::Hidden), t)
        .await
        .unwrap();
    b.change_marks("r1", "y", set(Mark::Read), t).await.unwrap();
    let v1 = b.reader_version("r1").await.unwrap();
    let v2 = b.reader_version("r2").await.unwrap();

    let (item, _) = b.remove_item("x").await.unwrap().expect("x existed");
    assert_eq!(item.id, "x");
    assert_eq!(item.title, "X");
    assert_eq!(b.item("x").await.unwrap(), None);
    assert_eq!(b.item_count().await.unwrap(), 1);
    for r in ["r1", "r2"] {
        assert_eq!(b.item_marks(r, "x").await.unwrap(), ItemMarks::default());
    }
    assert_eq!(b.mark_counts("r1").await.unwrap(), counts(0, 0, 1));
    assert_eq!(b.mark_counts("r2").await.unwrap(), counts(0, 0, 0));
    assert!(b.marked_ids("r1", Mark::Favorite).await.unwrap().is_empty());
    assert!(b.marked_ids("r2", Mark::Hidden).await.unwrap().is_empty());
    assert_eq!(b.marked_ids("r1", Mark::Read).await.unwrap(), ["y"]);
    assert_ne!(b.reader_version("r1").await.unwrap(), v1);
    assert_ne!(b.reader_version("r2").await.unwrap(), v2);
    // A reader's first page's versions and cut-off in one call, as they are one by one.
    let cut = at("2026-01-01T12:00:00Z");
    let profile = Profile {
        read_before: Some(cut),
        ..Profile::default()
    };
    b.put_profile("r1", &profile).await.unwrap();
    for (r, read_before) in [("r1", Some(cut)), ("r2", None), ("nobody", None)] {
        let head = b.feed_head(r).await.unwrap();
        assert_eq!(head.items_version, b.items_version().await.unwrap(), "{r}");
        assert_eq!(
            head.reader_version,
            b.reader_version(r).await.unwrap(),
            "{r}"
        );
        assert_eq!(head.read_before, read_before, "{r}");
    }

    assert!(b.remove_item("x").await.unwrap().is_none());
    assert!(matches!(
        b.change_marks("r1", "x", set(Mark::Favorite), t).await,
        Err(Error::NotFound("item"))
    ));
}

/// `newest`: publication time then id, both descending; `after` exclusive; `last` is the
/// last item's position; `has_more` says whether another item follows.
pub(crate) async fn newest_pages_by_date_then_id(b: Arc<dyn Backend>) {
    let (page, last, more) = newest(&*b, None, &[], None, 10).await;
    assert!(
        page.is_empty() && last.is_none() && !more,
        "an empty catalogue"
    );
    b.put_items(&[
        news("a", "A", None, "2026-01-02T00:00:00Z"),
        news("b", "B", None, "2026-01-03T00:00:00Z"),
        news("c", "C", None, "2026-01-03T00:00:00Z"),
        news("d", "D", None, "2026-01-04T00:00:00Z"),
        news("e", "E", None, "1969-07-20T20:17:00Z"),
    ])
    .await
    .unwrap();
    let (page, last, more) = newest(&*b, None, &[], None, 2).await;
    assert_eq!((page, more), (strings(&["d", "c"]), true));
    let last = last.expect("a last position");
    assert_eq!(
        last,
        FeedPosition {
            published_ms: at("2026-01-03T00:00:00Z").timestamp_millis(),
            id: "c".into()
        }
    );
    let (page, last, more) = newest(&*b, None, &[], Some(&last), 2).await;
    assert_eq!((page, more), (strings(&["b", "a"]), true));
    let (page, last, more) = newest(&*b, None, &[], last.as_ref(), 2).await;
    assert_eq!(
        (page, more),
        (strings(&["e"]), false),
        "times before 1970 sort before"
    );
    let last = last.expect("a last position");
    let (page, none, more) = newest(&*b, None, &[], Some(&last), 2).await;
    assert!(page.is_empty() && none.is_none() && !more);
    let (page, _, more) = newest(&*b, None, &[], None, 5).await;
    assert_eq!((page, more), (strings(&["d", "c", "b", "a", "e"]), false));
    // A position between items: the next page starts below it.
    let between = FeedPosition {
        published_ms: at("2026-01-03T00:00:00Z").timestamp_millis(),
        id: "bz".into(),
    };
    let (page, _, _) = newest(&*b, None, &[], Some(&between), 10).await;
    assert_eq!(page, strings(&["b", "a", "e"]));
}

/// Items `i1` to `i6`, published on January 1st to 6th.
async fn put_six_days(b: &dyn Backend) {
    let items: Vec<StoredItem> = (1..=6)
        .map(|i| {
            news(
                &format!("i{i}"),
                "I",
                None,
                &format!("2026-01-0{i}T00:00:00Z"),
            )
        })
        .collect();
    b.put_items(&items).await.unwrap();
}

/// A page of leads only, for the reader `reader`.
async fn leads(b: &dyn Backend, reader: Option<&str>) -> Vec<String> {
    let page = b
        .newest(NewestQuery {
            reader,
            leave_out: LEAVE_FEED,
            after: None,
            since_ms: None,
            limit: 10,
            leads_only: true,
        })
        .await
        .unwrap();
    ids(&page.items)
}

/// A story's first member leads it; the others are covered: left out of a listing of
/// leads (and counted), kept in every other listing. An item placed again keeps its
/// story, and placing moves the items version on.
pub(crate) async fn a_story_lists_its_lead_and_covers_the_rest(b: Arc<dyn Backend>) {
    put_six_days(&*b).await;
    assert_eq!(b.story_of("i2").await.unwrap(), None);
    let before = b.items_version().await.unwrap();
    b.place_in_story("i2", "i2", &[]).await.unwrap();
    assert!(b.items_version().await.unwrap() > before);
    b.place_in_story("i5", "i2", &[]).await.unwrap();
    b.place_in_story("i3", "i2", &[]).await.unwrap();
    b.place_in_story("i3", "i6", &[]).await.unwrap();
    assert_eq!(
        b.story_of("i3").await.unwrap().as_deref(),
        Some("i2"),
        "a story never flips"
    );
    assert_eq!(
        b.story_members("i2").await.unwrap(),
        strings(&["i2", "i5", "i3"])
    );
    assert_eq!(b.story_members("nope").await.unwrap(), Vec::<String>::new());
    assert_eq!(leads(&*b, None).await, strings(&["i6", "i4", "i2", "i1"]));
    assert_eq!(b.covered_count().await.unwrap(), 2);
    assert_eq!(
        b.count_newest(NewestQuery {
            reader: None,
            leave_out: LEAVE_FEED,
            after: None,
            since_ms: Some(at("2026-01-02T00:00:00Z").timestamp_millis()),
            limit: 0,
            leads_only: true,
        })
        .await
        .unwrap(),
        3,
        "i6, i4 and i2 since the 2nd"
    );
    let (all, _, _) = newest(&*b, None, LEAVE_FEED, None, 10).await;
    assert_eq!(
        all.len(),
        6,
        "a listing of every item keeps the covered ones"
    );
}

/// Merging stories moves the merged story's members to the surviving one, after its
/// own, and the merged id leads to the surviving story.
pub(crate) async fn merged_stories_keep_the_surviving_id_and_every_member(b: Arc<dyn Backend>) {
    put_six_days(&*b).await;
    b.place_in_story("i1", "i1", &[]).await.unwrap();
    b.place_in_story("i2", "i1", &[]).await.unwrap();
    b.place_in_story("i3", "i3", &[]).await.unwrap();
    b.place_in_story("i4", "i3", &[]).await.unwrap();
    assert_eq!(leads(&*b, None).await, strings(&["i6", "i5", "i3", "i1"]));
    b.place_in_story("i5", "i1", &["i3".to_string()])
        .await
        .unwrap();
    assert_eq!(
        b.story_members("i1").await.unwrap(),
        strings(&["i1", "i2", "i3", "i4", "i5"])
    );
    assert_eq!(
        b.story_members("i3").await.unwrap(),
        b.story_members("i1").await.unwrap()
    );
    assert_eq!(b.story_of("i4").await.unwrap().as_deref(), Some("i1"));
    assert_eq!(leads(&*b, None).await, strings(&["i6", "i1"]));
    assert_eq!(b.covered_count().await.unwrap(), 4);
    // A merge named again, or a merged id as the story, changes nothing more.
    b.place_in_story("i6", "i3", &["i1".to_string()])
        .await
        .unwrap();
    assert_eq!(b.story_of("i6").await.unwrap().as_deref(), Some("i1"));
    assert_eq!(b.covered_count().await.unwrap(), 5);
}

/// When a story's lead is removed, the next member leads it and is listed again; a
/// removed member no longer counts.
pub(crate) async fn a_removed_lead_hands_the_story_to_the_next_member(b: Arc<dyn Backend>) {
    put_six_days(&*b).await;
    for item in ["i4", "i5", "i6"] {
        b.place_in_story(item, "i4", &[]).await.unwrap();
    }
    assert_eq!(leads(&*b, None).await, strings(&["i4", "i3", "i2", "i1"]));
    b.remove_item("i4").await.unwrap();
    b.leave_story("i4").await.unwrap();
    assert_eq!(b.story_members("i4").await.unwrap(), strings(&["i5", "i6"]));
    assert_eq!(b.story_of("i4").await.unwrap(), None);
    assert_eq!(leads(&*b, None).await, strings(&["i5", "i3", "i2", "i1"]));
    assert_eq!(b.covered_count().await.unwrap(), 1);
    b.leave_story("i1").await.unwrap();
}

/// `covered_out_of_feed` counts the reader's hidden and read items that are covered,
/// and only that reader's.
pub(crate) async fn covered_out_of_feed_counts_only_covered_marks(b: Arc<dyn Backend>) {
    put_six_days(&*b).await;
    for item in ["i1", "i2", "i3"] {
        b.place_in_story(item, "i1", &[]).await.unwrap();
    }
    let t = at("2026-02-01T00:00:00Z");
    for item in ["i1", "i2", "i3"] {
        b.change_marks("r", item, set(Mark::Read), t).await.unwrap();
    }
    b.change_marks("r", "i4", set(Mark::Hidden), t)
        .await
        .unwrap();
    b.change_marks("o", "i2", set(Mark::Favorite), t)
        .await
        .unwrap();
    assert_eq!(b.covered_out_of_feed("r").await.unwrap(), 2);
    assert_eq!(b.covered_out_of_feed("o").await.unwrap(), 0);
    assert_eq!(leads(&*b, Some("r")).await, strings(&["i6", "i5"]));
}

/// A cut-off ends the listing at its time (inclusive), page by page, and `count_newest`
/// counts exactly what the pages list, the reader's marks left out.
pub(crate) async fn newest_stops_at_the_cut_off_and_counts_what_it_lists(b: Arc<dyn Backend>) {
    put_six_days(&*b).await;
    let t = at("2026-02-01T00:00:00Z");
    b.change_marks("r", "i5", set(Mark::Read), t).await.unwrap();
    let since = Some(at("2026-01-03T00:00:00Z").timestamp_millis());
    let query = |after, limit| NewestQuery {
        reader: Some("r"),
        leave_out: LEAVE_FEED,
        after,
        since_ms: since,
        limit,
        leads_only: false,
    };
    let first = b.newest(query(None, 2)).await.unwrap();
    assert_eq!(
        (ids(&first.items), first.has_more),
        (strings(&["i6", "i4"]), true)
    );
    let rest = b.newest(query(first.last.as_ref(), 2)).await.unwrap();
    assert_eq!((ids(&rest.items), rest.has_more), (strings(&["i3"]), false));
    assert_eq!(b.count_newest(query(None, 0)).await.unwrap(), 3);
    let everyone = NewestQuery {
        reader: None,
        ..query(None, 10)
    };
    assert_eq!(ids(&b.newest(everyone).await.unwrap().items).len(), 4);
    let later = NewestQuery {
        since_ms: Some(at("2026-03-01T00:00:00Z").timestamp_millis()),
        ..query(None, 10)
    };
    assert!(b.newest(later).await.unwrap().items.is_empty());
    assert_eq!(b.count_newest(later).await.unwrap(), 0);
}

/// `newest` leaves out the items the reader marked with one of `leave_out`, and only
/// that reader's; `has_more` counts only items that pass the filter.
pub(crate) async fn newest_leaves_out_the_readers_marked_items(b: Arc<dyn Backend>) {
    put_six_days(&*b).await;
    let t = at("2026-02-01T00:00:00Z");
    b.change_marks("r", "i5", set(Mark::Hidden), t)
        .await
        .unwrap();
    b.change_marks("r", "i4", set(Mark::Read), t).await.unwrap();
    b.change_marks("r", "i3", set(Mark::Favorite), t)
        .await
        .unwrap();
    b.change_marks("o", "i6", set(Mark::Hidden), t)
        .await
        .unwrap();

    let (page, last, more) = newest(&*b, Some("r"), LEAVE_FEED, None, 2).await;
    assert_eq!((page, more), (strings(&["i6", "i3"]), true));
    let (page, _, more) = newest(&*b, Some("r"), LEAVE_FEED, last.as_ref(), 2).await;
    assert_eq!((page, more), (strings(&["i2", "i1"]), false));
    let (page, _, _) = newest(&*b, Some("r"), &[], None, 10).await;
    assert_eq!(
        page.len(),
        6,
        "nothing is left out without marks to leave out"
    );
    let (page, _, _) = newest(&*b, Some("r"), &[Mark::Favorite], None, 10).await;
    assert_eq!(page, strings(&["i6", "i5", "i4", "i2", "i1"]));
    let (page, _, _) = newest(&*b, Some("o"), LEAVE_FEED, None, 10).await;
    assert_eq!(page, strings(&["i5", "i4", "i3", "i2", "i1"]));
    let (page, _, _) = newest(&*b, None, LEAVE_FEED, None, 10).await;
    assert_eq!(page.len(), 6, "no reader, no marks");

    b.change_marks("r", "i1", set(Mark::Hidden), t)
        .await
        .unwrap();
    b.change_marks("r", "i2", set(Mark::Read), t).await.unwrap();
    let (page, _, more) = newest(&*b, Some("r"), LEAVE_FEED, None, 2).await;
    assert_eq!(
        (page, more),
        (strings(&["i6", "i3"]), false),
        "every item after the page is left out: no more"
    );
    b.change_marks("r", "i2", clear(&[Mark::Read]), t)
        .await
        .unwrap();
    let (page, _, _) = newest(&*b, Some("r"), LEAVE_FEED, None, 10).await;
    assert_eq!(
        page,
        strings(&["i6", "i3", "i2"]),
        "a cleared mark lets it back"
    );
}

/// `catalogue`: by date (ties by id), by title ignoring case (ties by id) or by id,
/// descending being ascending reversed, from `offset`, at most `limit`.
pub(crate) async fn the_catalogue_lists_every_order_both_ways(b: Arc<dyn Backend>) {
    b.put_items(&[
        news("id-1", "Banana", None, "2026-01-03T00:00:00Z"),
        news("id-2", "Apple", None, "2026-01-01T00:00:00Z"),
        news("id-3", "cherry", None, "2026-01-02T00:00:00Z"),
        news("id-4", "apple", None, "2026-01-01T00:00:00Z"),
    ])
    .await
    .unwrap();
    let list = |sort, order, offset, limit| {
        let b = b.clone();
        async move { ids(&b.catalogue(sort, order, offset, limit).await.unwrap()) }
    };
    let by_date = ["id-2", "id-4", "id-3", "id-1"];
    let by_title = ["id-2", "id-4", "id-1", "id-3"];
    let by_id = ["id-1", "id-2", "id-3", "id-4"];
    for (sort, asc) in [
        (SortBy::PublishedDate, by_date),
        (SortBy::Title, by_title),
        (SortBy::Id, by_id),
    ] {
        assert_eq!(list(sort, SortOrder::Asc, 0, 10).await, asc, "{sort:?}");
        let mut desc = asc;
        desc.reverse();
        assert_eq!(list(sort, SortOrder::Desc, 0, 10).await, desc, "{sort:?}");
    }
    assert_eq!(
        list(SortBy::Title, SortOrder::Asc, 1, 2).await,
        ["id-4", "id-1"]
    );
    assert_eq!(
        list(SortBy::PublishedDate, SortOrder::Desc, 3, 10).await,
        ["id-2"]
    );
    assert!(list(SortBy::Id, SortOrder::Asc, 4, 10).await.is_empty());
    assert!(list(SortBy::Id, SortOrder::Asc, 0, 0).await.is_empty());

    // Titles are ordered as they are now, not as they were first written.
    b.put_items(&[news("id-3", "Aardvark", None, "2026-01-02T00:00:00Z")])
        .await
        .unwrap();
    assert_eq!(
        list(SortBy::Title, SortOrder::Asc, 0, 10).await,
        ["id-3", "id-2", "id-4", "id-1"]
    );
}

/// `published_between` answers the items of `[from, to)`, oldest first.
pub(crate) async fn published_between_is_half_open_and_oldest_first(b: Arc<dyn Backend>) {
    b.put_items(&[
        news("before", "B", None, "2026-01-04T23:59:59.999Z"),
        news("second", "S", None, "2026-01-07T00:00:00Z"),
        news("first", "F", None, "2026-01-05T00:00:00Z"),
        news("end", "E", None, "2026-01-12T00:00:00Z"),
    ])
    .await
    .unwrap();
    let week = b
        .published_between(at("2026-01-05T00:00:00Z"), at("2026-01-12T00:00:00Z"))
        .await
        .unwrap();
    assert_eq!(ids(&week), ["first", "second"]);
    let none = b
        .published_between(at("2026-02-01T00:00:00Z"), at("2026-02-08T00:00:00Z"))
        .await
        .unwrap();
    assert!(none.is_empty());
}

/// `items_after` walks every item in id order, `after` exclusive.
pub(crate) async fn items_after_walks_every_item_in_id_order(b: Arc<dyn Backend>) {
    put_plain(&*b, &["c", "a", "d", "b"]).await;
    assert_eq!(ids(&b.items_after(None, 2).await.unwrap()), ["a", "b"]);
    assert_eq!(
        ids(&b.items_after(Some("b"), 10).await.unwrap()),
        ["c", "d"]
    );
    assert_eq!(
        ids(&b.items_after(Some("bb"), 10).await.unwrap()),
        ["c", "d"]
    );
    assert!(b.items_after(Some("d"), 10).await.unwrap().is_empty());
}

// ----- marks -----

/// `change_marks`: marks := (marks - clear) + set, answered; the backend applies no
/// rule of its own (two marks may be set if the rules say so); counts in step; the
/// reader's version moves; an unknown item is `NotFound("item")` and changes nothing.
/// A change that clears nothing sets its mark beside another and says so: the rules'
/// "read unless marked" ([`crate::Store::open_item`]) sees it and takes the mark back.
/// `change_marks_in_session` changes marks only while the session exists and is the
/// reader's; otherwise it is `NotFound("session")` and nothing changes, before the item
/// is even looked at.
pub(crate) async fn a_change_of_marks_in_session_needs_the_readers_session(b: Arc<dyn Backend>) {
    let t = at("2026-02-01T00:00:00Z");
    b.put_items(&[news("i1", "I1", None, "2026-01-01T00:00:00Z")])
        .await
        .unwrap();
    for u in ["u", "v"] {
        b.insert_user(&user(u, &format!("{u}@example.com")))
            .await
            .unwrap();
    }
    b.start_session(
        &session("s1", "u"),
        &secret_hash("t1"),
        &refresh_record("s1"),
        &mut |_| Ok(()),
    )
    .await
    .unwrap();

    let fav = b
        .change_marks_in_session("s1", "u", "i1", set(Mark::Favorite), t)
        .await
        .unwrap();
    assert_eq!(fav, marks_of(&[Mark::Favorite]));
    assert_eq!(b.item_marks("u", "i1").await.unwrap(), fav);
    assert!(matches!(
        b.change_marks_in_session("s1", "u", "nope", set(Mark::Read), t)
            .await,
        Err(Error::NotFound("item"))
    ));

    for (session, reader, item) in [("s1", "v", "i1"), ("s9", "u", "i1"), ("s9", "u", "nope")] {
        assert!(
            matches!(
                b.change_marks_in_session(session, reader, item, set(Mark::Hidden), t)
                    .await,
                Err(Error::NotFound("session"))
            ),
            "{session} for {reader} on {item}"
        );
    }
    assert_eq!(b.item_marks("v", "i1").await.unwrap(), ItemMarks::default());
    let version = b.reader_version("u").await.unwrap();

    assert_eq!(b.end_sessions(&["s1".to_string()]).await.unwrap(), 1);
    assert!(matches!(
        b.change_marks_in_session("s1", "u", "i1", clear(&[Mark::Favorite]), t)
            .await,
        Err(Error::NotFound("session"))
    ));
    assert_eq!(
        b.item_marks("u", "i1").await.unwrap(),
        fav,
        "left as it was"
    );
    assert_eq!(b.mark_counts("u").await.unwrap(), counts(1, 0, 0));
    assert_eq!(b.reader_version("u").await.unwrap(), version);
}

pub(crate) async fn a_mark_set_beside_another_is_reported_and_taken_back(b: Arc<dyn Backend>) {
    let t = at("2026-02-01T00:00:00Z");
    b.put_items(&[news("i1", "I1", None, "2026-01-01T00:00:00Z")])
        .await
        .unwrap();
    b.change_marks("r", "i1", set(Mark::Favorite), t)
        .await
        .unwrap();
    let both = b.change_marks("r", "i1", set(Mark::Read), t).await.unwrap();
    assert_eq!(both, marks_of(&[Mark::Favorite, Mark::Read]));
    assert_eq!(b.mark_counts("r").await.unwrap(), counts(1, 0, 1));
    let back = b
        .change_marks("r", "i1", clear(&[Mark::Read]), t)
        .await
        .unwrap();
    assert_eq!(back, marks_of(&[Mark::Favorite]));
    assert_eq!(b.item_marks("r", "i1").await.unwrap(), back);
    assert_eq!(b.mark_counts("r").await.unwrap(), counts(1, 0, 0));
    assert_eq!(
        b.marked_ids("r", Mark::Read).await.unwrap(),
        Vec::<String>::new()
    );
}

pub(crate) async fn change_marks_clears_then_sets_and_keeps_counts(b: Arc<dyn Backend>) {
    let t = at("2026-02-01T00:00:00Z");
    b.put_items(&[
        news("i1", "I1", None, "2026-01-01T00:00:00Z"),
        news("i2", "I2", None, "2026-01-02T00:00:00Z"),
    ])
    .await
    .unwrap();
    assert_eq!(b.mark_counts("r").await.unwrap(), MarkCounts::default());
    assert_eq!(b.item_marks("r", "i1").await.unwrap(), ItemMarks::default());
    let mut version = b.reader_version("r").await.unwrap();

    let fav = b
        .change_marks("r", "i1", set(Mark::Favorite), t)
        .await
        .unwrap();
    assert_eq!(fav, marks_of(&[Mark::Favorite]));
    assert_eq!(b.mark_counts("r").await.unwrap(), counts(1, 0, 0));
    version = version_moved(&*b, "r", version).await;

    let hide = MarkChange {
        clear: marks_of(&[Mark::Favorite, Mark::Read]),
        set: Some(Mark::Hidden),
    };
    let hidden = b.change_marks("r", "i1", hide, t).await.unwrap();
    assert_eq!(hidden, marks_of(&[Mark::Hidden]));
    assert_eq!(b.item_marks("r", "i1").await.unwrap(), hidden);
    let c = b.mark_counts("r").await.unwrap();
    assert_eq!((c, c.out_of_feed()), (counts(0, 1, 0), 1));
    version = version_moved(&*b, "r", version).await;

    let none = b
        .change_marks("r", "i1", clear(&[Mark::Hidden]), t)
        .await
        .unwrap();
    assert_eq!(none, ItemMarks::default());
    assert_eq!(b.mark_counts("r").await.unwrap(), counts(0, 0, 0));
    version = version_moved(&*b, "r", version).await;

    b.change_marks("r", "i2", set(Mark::Read), t).await.unwrap();
    let again = b.change_marks("r", "i2", set(Mark::Read), t).await.unwrap();
    assert_eq!(again, marks_of(&[Mark::Read]));
    assert_eq!(
        b.mark_counts("r").await.unwrap(),
        counts(0, 0, 1),
        "set twice, counted once"
    );
    let both = b
        .change_marks("r", "i2", set(Mark::Favorite), t)
        .await
        .unwrap();
    assert_eq!(
        both,
        marks_of(&[Mark::Read, Mark::Favorite]),
        "which marks exclude which is the rules' business"
    );
    assert_eq!(b.mark_counts("r").await.unwrap(), counts(1, 0, 1));
    version_moved(&*b, "r", version).await;

    assert!(matches!(
        b.change_marks("r", "nope", set(Mark::Hidden), t).await,
        Err(Error::NotFound("item"))
    ));
    assert_eq!(
        b.item_marks("r", "nope").await.unwrap(),
        ItemMarks::default()
    );
    assert_eq!(b.mark_counts("r").await.unwrap(), counts(1, 0, 1));
    assert_eq!(
        b.mark_counts("someone else").await.unwrap(),
        MarkCounts::default()
    );
    assert_eq!(
        b.item_marks("someone else", "i2").await.unwrap(),
        ItemMarks::default()
    );
}

/// `marked_ids`: the reader's items with one mark, most recently marked first.
pub(crate) async fn marked_ids_lists_the_most_recently_marked_first(b: Arc<dyn Backend>) {
    put_plain(&*b, &["a", "b", "c", "d"]).await;
    for (reader, item, mark, when) in [
        ("r", "a", Mark::Favorite, "2026-02-01T00:00:00Z"),
        ("r", "c", Mark::Favorite, "2026-02-03T00:00:00Z"),
        ("r", "b", Mark::Favorite, "2026-02-02T00:00:00Z"),
        ("r", "d", Mark::Hidden, "2026-02-04T00:00:00Z"),
        ("o", "d", Mark::Favorite, "2026-02-04T00:00:00Z"),
    ] {
        b.change_marks(reader, item, set(mark), at(when))
            .await
            .unwrap();
    }
    assert_eq!(
        b.marked_ids("r", Mark::Favorite).await.unwrap(),
        ["c", "b", "a"]
    );
    assert_eq!(b.marked_ids("r", Mark::Hidden).await.unwrap(), ["d"]);
    assert!(b.marked_ids("r", Mark::Read).await.unwrap().is_empty());
    b.change_marks(
        "r",
        "c",
        clear(&[Mark::Favorite]),
        at("2026-02-05T00:00:00Z"),
    )
    .await
    .unwrap();
    assert_eq!(b.marked_ids("r", Mark::Favorite).await.unwrap(), ["b", "a"]);
    assert!(
        b.marked_ids("nobody", Mark::Favorite)
            .await
            .unwrap()
            .is_empty()
    );
}

/// `share`: an unknown item is `NotFound("item")`; a reader's share of an item replaces
/// their previous one; `shares` lists them newest first.
pub(crate) async fn shares_keep_the_latest_per_item(b: Arc<dyn Backend>) {
    put_plain(&*b, &["a", "b"]).await;
    let share = |when: &str, platform: &str| Share {
        at: at(when),
        platform: platform.into(),
    };
    assert!(matches!(
        b.share("r", "nope", &share("2026-02-01T00:00:00Z", "linkedin"))
            .await,
        Err(Error::NotFound("item"))
    ));
    assert!(b.shares("r").await.unwrap().is_empty());
    b.share("r", "a", &share("2026-02-01T00:00:00Z", "linkedin"))
        .await
        .unwrap();
    b.share("r", "b", &share("2026-02-02T00:00:00Z", "x"))
        .await
        .unwrap();
    assert_eq!(
        b.shares("r").await.unwrap(),
        [
            ("b".to_string(), share("2026-02-02T00:00:00Z", "x")),
            ("a".to_string(), share("2026-02-01T00:00:00Z", "linkedin")),
        ]
    );
    b.share("r", "a", &share("2026-02-03T00:00:00Z", "x"))
        .await
        .unwrap();
    assert_eq!(
        b.shares("r").await.unwrap(),
        [
            ("a".to_string(), share("2026-02-03T00:00:00Z", "x")),
            ("b".to_string(), share("2026-02-02T00:00:00Z", "x")),
        ]
    );
    assert!(b.has_shared("r", "a").await.unwrap());
    assert!(!b.has_shared("o", "a").await.unwrap());
    assert!(!b.has_shared("r", "nope").await.unwrap());
}

/// Marks set while their item is removed never outlive it: afterwards the reader has
/// no marks and no counts, whatever order the steps took.
pub(crate) async fn a_mark_is_never_left_on_an_item_removed_meanwhile(b: Arc<dyn Backend>) {
    let t = at("2026-02-01T00:00:00Z");
    for round in 0..5 {
        let ids: Vec<String> = (0..8).map(|i| format!("r{round}-{i}")).collect();
        let items: Vec<StoredItem> = ids
            .iter()
            .map(|id| news(id, "I", None, "2026-01-01T00:00:00Z"))
            .collect();
        b.put_items(&items).await.unwrap();
        let answers = race(ids.len() * 2, |n| {
            let b = b.clone();
            let id = ids[n / 2].clone();
            async move {
                if n % 2 == 0 {
                    b.remove_item(&id).await.map(|_| ())
                } else {
                    let mark = if n % 4 == 1 {
                        Mark::Hidden
                    } else {
                        Mark::Favorite
                    };
                    b.change_marks("r", &id, set(mark), t).await.map(|_| ())
                }
            }
        })
        .await;
        for answer in answers {
            assert!(
                matches!(answer, Ok(()) | Err(Error::NotFound("item"))),
                "{answer:?}"
            );
        }
        for id in &ids {
            assert_eq!(b.item_marks("r", id).await.unwrap(), ItemMarks::default());
        }
        assert_eq!(b.mark_counts("r").await.unwrap(), MarkCounts::default());
        for mark in Mark::ALL {
            assert!(b.marked_ids("r", mark).await.unwrap().is_empty());
        }
    }
}

/// Many changes of one reader's marks at once, on the same items: each is one step, so
/// the counts end equal to the marks.
pub(crate) async fn concurrent_mark_changes_keep_counts_in_step(b: Arc<dyn Backend>) {
    let t = at("2026-02-01T00:00:00Z");
    let items: Vec<StoredItem> = (0..4)
        .map(|i| news(&format!("i{i}"), "I", None, "2026-01-01T00:00:00Z"))
        .collect();
    b.put_items(&items).await.unwrap();
    race(32, |n| {
        let b = b.clone();
        async move {
            let mark = Mark::ALL[n % 3];
            let change = MarkChange {
                clear: marks_of(&Mark::ALL),
                set: (n % 5 != 0).then_some(mark),
            };
            b.change_marks("r", &format!("i{}", n % 4), change, t)
                .await
                .unwrap();
        }
    })
    .await;
    let mut expected = MarkCounts::default();
    for i in 0..4 {
        let marks = b.item_marks("r", &format!("i{i}")).await.unwrap();
        let set: Vec<Mark> = Mark::ALL.into_iter().filter(|m| marks.has(*m)).collect();
        assert!(
            set.len() <= 1,
            "every change cleared all marks first: {marks:?}"
        );
        for m in set {
            expected.add(m, 1);
        }
    }
    assert_eq!(b.mark_counts("r").await.unwrap(), expected);
    for m in Mark::ALL {
        assert_eq!(
            b.marked_ids("r", m).await.unwrap().len() as u64,
            expected.of(m)
        );
    }
}

// ----- accounts -----

/// Accounts by id, by e-mail and by customer id; an e-mail is registered once; the
/// operators' listing is in e-mail order.
pub(crate) async fn accounts_are_found_by_id_email_and_customer(b: Arc<dyn Backend>) {
    assert_eq!(b.user_count().await.unwrap(), 0);
    let u1 = user("u1", "b@example.com");
    let mut u2 = user("u2", "a@example.com");
    u2.subscription.customer_id = Some("cus_2".into());
    b.insert_user(&u1).await.unwrap();
    b.insert_user(&u2).await.unwrap();
    assert_eq!(b.user("u1").await.unwrap().as_deref(), Some(&u1));
    assert_eq!(b.user("nope").await.unwrap(), None);
    assert_eq!(
        b.user_by_email("a@example.com").await.unwrap().as_deref(),
        Some(&u2)
    );
    assert_eq!(b.user_by_email("c@example.com").await.unwrap(), None);
    assert_eq!(
        b.user_by_customer("cus_2").await.unwrap().as_deref(),
        Some(&u2)
    );
    assert_eq!(b.user_by_customer("cus_1").await.unwrap(), None);
    assert_eq!(b.user_count().await.unwrap(), 2);

    let dup = user("u3", "b@example.com");
    assert!(matches!(b.insert_user(&dup).await, Err(Error::Conflict(_))));
    assert_eq!(b.user("u3").await.unwrap(), None);
    assert_eq!(
        b.user_by_email("b@example.com").await.unwrap().as_deref(),
        Some(&u1)
    );
    assert_eq!(b.user_count().await.unwrap(), 2);

    b.insert_user(&user("u4", "c@example.com")).await.unwrap();
    let emails = |list: Vec<User>| list.into_iter().map(|u| u.email).collect::<Vec<_>>();
    assert_eq!(
        emails(b.users_after(None, 10).await.unwrap()),
        ["a@example.com", "b@example.com", "c@example.com"]
    );
    assert_eq!(
        emails(b.users_after(Some("a@example.com"), 1).await.unwrap()),
        ["b@example.com"]
    );
    assert!(
        b.users_after(Some("c@example.com"), 10)
            .await
            .unwrap()
            .is_empty()
    );

    // Two sign-ups of one address at once: one account.
    let answers = race(8, |n| {
        let b = b.clone();
        async move {
            b.insert_user(&user(&format!("s{n}"), "same@example.com"))
                .await
        }
    })
    .await;
    assert_eq!(answers.iter().filter(|a| a.is_ok()).count(), 1);
    assert!(
        answers
            .iter()
            .all(|a| matches!(a, Ok(()) | Err(Error::Conflict(_))))
    );
    assert_eq!(b.user_count().await.unwrap(), 4);
}

/// `update_user` applies the rule atomically and answers the record; a rule's error, an
/// e-mail another account has, or an unknown id change nothing; the e-mail and customer
/// lookups follow the record.
pub(crate) async fn update_user_keeps_emails_unique_and_lookups_in_step(b: Arc<dyn Backend>) {
    b.insert_user(&user("u1", "a@example.com")).await.unwrap();
    b.insert_user(&user("u2", "b@example.com")).await.unwrap();

    let moved = b
        .update_user("u1", &mut |u: &mut User| -> Result<()> {
            u.email = "c@example.com".into();
            Ok(())
        })
        .await
        .unwrap();
    assert_eq!(moved.email, "c@example.com");
    assert_eq!(b.user("u1").await.unwrap().as_deref(), Some(&moved));
    assert_eq!(b.user_by_email("a@example.com").await.unwrap(), None);
    assert_eq!(
        b.user_by_email("c@example.com")
            .await
            .unwrap()
            .map(|u| u.id.clone()),
        Some("u1".into())
    );
    b.insert_user(&user("u3", "a@example.com"))
        .await
        .expect("the old address is free again");

    let taken = b
        .update_user("u2", &mut |u: &mut User| -> Result<()> {
            u.email = "c@example.com".into();
            u.password_hash = "changed".into();
            Ok(())
        })
        .await;
    assert!(matches!(taken, Err(Error::Conflict(_))), "{taken:?}");
    let u2 = b.user("u2").await.unwrap().expect("u2");
    assert_eq!(
        (u2.email.as_str(), u2.password_hash.as_str()),
        ("b@example.com", "hash")
    );

    let refused = b
        .update_user("u2", &mut |u: &mut User| -> Result<()> {
            u.password_hash = "changed".into();
            Err(Error::Forbidden("no".into()))
        })
        .await;
    assert!(matches!(refused, Err(Error::Forbidden(m)) if m == "no"));
    assert_eq!(
        b.user("u2").await.unwrap().expect("u2").password_hash,
        "hash"
    );

    assert!(matches!(
        b.update_user("nope", &mut no_change).await,
        Err(Error::NotFound("user"))
    ));
    assert_eq!(b.user_count().await.unwrap(), 3);

    let customer = |id: &'static str| {
        move |u: &mut User| -> Result<()> {
            u.subscription.customer_id = Some(id.into());
            Ok(())
        }
    };
    b.update_user("u2", &mut customer("cus_1")).await.unwrap();
    assert_eq!(
        b.user_by_customer("cus_1")
            .await
            .unwrap()
            .map(|u| u.id.clone()),
        Some("u2".into())
    );
    b.update_user("u2", &mut customer("cus_2")).await.unwrap();
    assert_eq!(b.user_by_customer("cus_1").await.unwrap(), None);
    assert_eq!(
        b.user_by_customer("cus_2")
            .await
            .unwrap()
            .map(|u| u.id.clone()),
        Some("u2".into())
    );

    // Concurrent changes of one account: none is lost.
    race(16, |_| {
        let b = b.clone();
        async move {
            b.update_user("u2", &mut |u: &mut User| -> Result<()> {
                let n: u64 = u.password_hash.parse().unwrap_or(0);
                u.password_hash = (n + 1).to_string();
                Ok(())
            })
            .await
            .unwrap();
        }
    })
    .await;
    assert_eq!(b.user("u2").await.unwrap().expect("u2").password_hash, "16");
}

/// Reads are found per reader from a time on and for all readers in a window, oldest
/// first; pruning removes those before a time; deleting an account removes its reads
/// and no one else's; the totals are one replaceable record.
pub(crate) async fn reading_history_is_per_reader_by_time_and_goes_with_the_account(
    b: Arc<dyn Backend>,
) {
    put_plain(&*b, &["i1", "i2", "i3"]).await;
    for id in ["ann", "bob"] {
        b.insert_user(&user(id, &format!("{id}@example.com")))
            .await
            .unwrap();
    }
    let reads = [
        ("ann", "i1", "2026-03-01T10:00:00Z"),
        ("bob", "i1", "2026-03-02T10:00:00Z"),
        ("ann", "i2", "2026-03-03T10:00:00Z"),
        ("ann", "i1", "2026-03-04T10:00:00Z"),
        ("bob", "i3", "2026-03-05T10:00:00Z"),
    ];
    for (reader, item, t) in reads {
        b.record_read(reader, item, at(t)).await.unwrap();
    }
    let ann = b
        .reads_of("ann", at("2026-03-02T00:00:00Z"), 10)
        .await
        .unwrap();
    assert_eq!(
        ann,
        [
            ("i2".to_string(), at("2026-03-03T10:00:00Z")),
            ("i1".to_string(), at("2026-03-04T10:00:00Z")),
        ],
        "one reader's reads from a time on, oldest first, no one else's"
    );
    assert_eq!(
        b.reads_of("ann", at("2026-03-01T00:00:00Z"), 1)
            .await
            .unwrap()
            .len(),
        1,
        "the limit"
    );
    let all = b
        .reads_between(at("2026-03-02T00:00:00Z"), at("2026-03-05T00:00:00Z"), 10)
        .await
        .unwrap();
    assert_eq!(
        all,
        [
            ReadEvent {
                reader: "bob".into(),
                item: "i1".into(),
                at: at("2026-03-02T10:00:00Z"),
            },
            ReadEvent {
                reader: "ann".into(),
                item: "i2".into(),
                at: at("2026-03-03T10:00:00Z"),
            },
            ReadEvent {
                reader: "ann".into(),
                item: "i1".into(),
                at: at("2026-03-04T10:00:00Z"),
            },
        ],
        "every reader's reads of [since, until), oldest first"
    );
    assert_eq!(b.prune_reads(at("2026-03-02T00:00:00Z")).await.unwrap(), 1);
    assert!(
        b.reads_between(at("2026-01-01T00:00:00Z"), at("2026-03-02T00:00:00Z"), 10)
            .await
            .unwrap()
            .is_empty()
    );
    b.delete_user("ann").await.unwrap().expect("ann existed");
    assert!(
        b.reads_of("ann", at("2026-01-01T00:00:00Z"), 10)
            .await
            .unwrap()
            .is_empty(),
        "the deleted account's reads are gone"
    );
    let left = b
        .reads_between(at("2026-01-01T00:00:00Z"), at("2027-01-01T00:00:00Z"), 10)
        .await
        .unwrap();
    assert_eq!(
        left.iter().map(|r| r.reader.as_str()).collect::<Vec<_>>(),
        ["bob", "bob"],
        "another reader's reads stay"
    );
    assert!(b.read_totals().await.unwrap().is_none());
    b.put_read_totals(&Json::from_static(b"{\"readers\":1}"))
        .await
        .unwrap();
    b.put_read_totals(&Json::from_static(b"{\"readers\":2}"))
        .await
        .unwrap();
    assert_eq!(
        b.read_totals().await.unwrap().as_deref(),
        Some(&b"{\"readers\":2}"[..])
    );
}

/// `delete_user` removes the account with everything it owns, and nothing of another
/// account; deleting it again answers none.
pub(crate) async fn delete_user_removes_everything_the_user_owns(b: Arc<dyn Backend>) {
    let now = at("2026-03-01T12:00:00Z");
    b.put_items(&[news("i", "I", None, "2026-01-01T00:00:00Z")])
        .await
        .unwrap();
    for (id, email, customer) in [
        ("gone", "gone@example.com", "cus_g"),
        ("kept", "kept@example.com", "cus_k"),
    ] {
        let mut u = user(id, email);
        u.subscription.customer_id = Some(customer.into());
        b.insert_user(&u).await.unwrap();
        let s = session(&format!("{id}-s"), id);
        let token = secret_hash(&format!("{id}-token"));
        b.start_session(&s, &token, &refresh_record(&s.id), &mut no_change)
            .await
            .unwrap();
        b.put_secret(&secret(id, "recovery", &format!("{id}-link")), None)
            .await
            .unwrap();
        b.change_marks(id, "i", set(Mark::Favorite), now)
            .await
            .unwrap();
        b.share(
            id,
            "i",
            &Share {
                at: now,
                platform: "x".into(),
            },
        )
        .await
        .unwrap();
        b.put_profile(
            id,
            &Profile {
                resume: "CV".into(),
                ..Profile::default()
            },
        )
        .await
        .unwrap();
        b.put_api_key(
            id,
            &format!("{id}-key"),
            &secret_hash(&format!("{id}-key")),
            false,
        )
        .await
        .unwrap();
        b.consume_quota(id, 10, now).await.unwrap();
        b.join_waitlist(&waitlist_entry(id, "2026-02-01T00:00:00Z"))
            .await
            .unwrap();
        b.insert_checkout(&checkout(&format!("{id}-co"), id, "2026-03-01T11:00:00Z"))
            .await
            .unwrap();
    }

    let deleted = b.delete_user("gone").await.unwrap().expect("it existed");
    assert_eq!(deleted.id, "gone");
    assert!(b.delete_user("gone").await.unwrap().is_none());

    for (id, exists) in [("gone", false), ("kept", true)] {
        let email = format!("{id}@example.com");
        assert_eq!(b.user(id).await.unwrap().is_some(), exists, "{id}");
        assert_eq!(
            b.user_by_email(&email).await.unwrap().is_some(),
            exists,
            "{id}"
        );
        assert_eq!(
            b.user_by_customer(&format!("cus_{}", &id[..1]))
                .await
                .unwrap()
                .is_some(),
            exists,
            "{id}"
        );
        assert_eq!(
            b.session(&format!("{id}-s")).await.unwrap().is_some(),
            exists,
            "{id}"
        );
        assert_eq!(
            b.user_sessions(id).await.unwrap().len(),
            usize::from(exists),
            "{id}"
        );
        let token = secret_hash(&format!("{id}-token"));
        assert_eq!(
            refresh_view(&*b, &token).await.is_some(),
            exists,
            "{id}: the token"
        );
        assert_eq!(
            live(&*b, &format!("{id}-link")).await,
            exists,
            "{id}: the secret"
        );
        assert_eq!(
            b.item_marks(id, "i").await.unwrap().favorite,
            exists,
            "{id}"
        );
        assert_eq!(
            b.mark_counts(id).await.unwrap().of(Mark::Favorite),
            u64::from(exists)
        );
        assert_eq!(
            b.marked_ids(id, Mark::Favorite).await.unwrap().len(),
            usize::from(exists)
        );
        assert_eq!(b.has_shared(id, "i").await.unwrap(), exists, "{id}");
        assert_eq!(
            b.shares(id).await.unwrap().len(),
            usize::from(exists),
            "{id}"
        );
        assert_eq!(b.profile(id).await.unwrap().is_some(), exists, "{id}");
        assert_eq!(b.api_key(id).await.unwrap().is_some(), exists, "{id}");
        assert_eq!(
            b.api_key_owner(&secret_hash(&format!("{id}-key")))
                .await
                .unwrap()
                .is_some(),
            exists,
            "{id}"
        );
        assert_eq!(
            b.quota_used(id, now).await.unwrap(),
            u64::from(exists),
            "{id}"
        );
        assert_eq!(
            b.waitlist_entry(id).await.unwrap().is_some(),
            exists,
            "{id}"
        );
        assert_eq!(
            b.checkout(&format!("{id}-co")).await.unwrap().is_some(),
            exists,
            "{id}"
        );
        assert_eq!(
            b.count_checkouts_since(id, at("2026-03-01T00:00:00Z"))
                .await
                .unwrap(),
            usize::from(exists),
            "{id}"
        );
    }
    assert_eq!(b.user_count().await.unwrap(), 1);
    assert_eq!(b.waitlist().await.unwrap().len(), 1);
    assert_eq!(b.item_count().await.unwrap(), 1, "items are not the user's");
    b.insert_user(&user("again", "gone@example.com"))
        .await
        .expect("the address is free again");
}

// ----- sessions -----

/// `start_session` stores the session and its first token and stamps the account in one
/// step (nothing when the account is unknown or the stamp refuses); `end_sessions` ends
/// sessions with their tokens and counts those that existed.
pub(crate) async fn sessions_start_with_a_stamp_and_end_with_their_tokens(b: Arc<dyn Backend>) {
    b.insert_user(&user("u", "u@example.com")).await.unwrap();
    let signed_in = at("2026-03-01T00:00:00Z");
    let mut stamp = |u: &mut User| -> Result<()> {
        u.last_sign_in_at = Some(signed_in);
        Ok(())
    };
    let (s1, s2) = (session("s1", "u"), session("s2", "u"));
    let (t1, t2) = (secret_hash("t1"), secret_hash("t2"));
    let stamped = b
        .start_session(&s1, &t1, &refresh_record("s1"), &mut stamp)
        .await
        .unwrap();
    assert_eq!(stamped.last_sign_in_at, Some(signed_in));
    assert_eq!(
        b.user("u").await.unwrap().expect("u").last_sign_in_at,
        Some(signed_in)
    );
    assert_eq!(b.session("s1").await.unwrap().as_deref(), Some(&s1));
    let (found, owner) = b
        .session_and_user("s1")
        .await
        .unwrap()
        .expect("s1 with its account");
    assert_eq!((&*found, owner.id.as_str()), (&s1, "u"));
    assert_eq!(owner.last_sign_in_at, Some(signed_in));
    assert!(b.session_and_user("s9").await.unwrap().is_none());
    b.start_session(&s2, &t2, &refresh_record("s2"), &mut stamp)
        .await
        .unwrap();
    let mut ids = b.user_sessions("u").await.unwrap();
    ids.sort();
    assert_eq!(ids, ["s1", "s2"]);

    let orphan = session("s3", "nobody");
    assert!(matches!(
        b.start_session(
            &orphan,
            &secret_hash("t3"),
            &refresh_record("s3"),
            &mut stamp
        )
        .await,
        Err(Error::NotFound("user"))
    ));
    assert_eq!(b.session("s3").await.unwrap(), None);
    let refused = b
        .start_session(
            &session("s4", "u"),
            &secret_hash("t4"),
            &refresh_record("s4"),
            &mut |_: &mut User| -> Result<()> { Err(Error::Forbidden("banned".into())) },
        )
        .await;
    assert!(matches!(refused, Err(Error::Forbidden(_))));
    assert_eq!(b.session("s4").await.unwrap(), None);

    assert_eq!(b.end_sessions(&strings(&["s1", "nope"])).await.unwrap(), 1);
    assert_eq!(b.session("s1").await.unwrap(), None);
    assert_eq!(b.user_sessions("u").await.unwrap(), ["s2"]);
    assert!(
        refresh_view(&*b, &t1).await.is_none(),
        "an ended session's token is unknown"
    );
    assert!(refresh_view(&*b, &t2).await.is_some());
    assert_eq!(b.end_sessions(&strings(&["s1"])).await.unwrap(), 0);
}

/// `refresh` hands the rule the presented token, its session with every token of it and
/// the account, then applies the plan (tokens put and removed, the session written back
/// or ended) and answers it; an unknown token gets none.
pub(crate) async fn refresh_hands_the_rule_its_view_and_applies_the_plan(b: Arc<dyn Backend>) {
    b.insert_user(&user("u", "u@example.com")).await.unwrap();
    let (t1, t2, other) = (secret_hash("t1"), secret_hash("t2"), secret_hash("other"));
    let r1 = refresh_record("s1");
    b.start_session(&session("s1", "u"), &t1, &r1, &mut no_change)
        .await
        .unwrap();
    b.start_session(
        &session("s9", "u"),
        &other,
        &refresh_record("s9"),
        &mut no_change,
    )
    .await
    .unwrap();
    let now = at("2026-03-01T00:00:00Z");

    let mut spent = r1.clone();
    spent.used_at = Some(now);
    spent.child = Some("sealed".into());
    let mut fresh = refresh_record("s1");
    fresh.created_at = now;
    let mut seen = None;
    let plan = b
        .refresh(&t1, &mut |view: Option<RefreshView>| {
            let view = view.expect("a live token has a view");
            let mut session = view.session.clone();
            session.refreshed_at = Some(now);
            seen = Some(view);
            RefreshPlan {
                put: vec![(t1, spent.clone()), (t2, fresh.clone())],
                session: Some(session),
                ..RefreshPlan::default()
            }
        })
        .await
        .unwrap();
    assert_eq!(plan.put.len(), 2, "the plan is answered");
    let view = seen.expect("the rule ran");
    assert_eq!(view.presented, r1);
    assert_eq!(view.session.id, "s1");
    assert_eq!(view.user.id, "u");
    assert_eq!(
        view.tokens,
        vec![(t1, r1.clone())],
        "only the session's own tokens"
    );
    assert_eq!(
        b.session("s1").await.unwrap().expect("s1").refreshed_at,
        Some(now)
    );

    let mut seen = None;
    b.refresh(&t2, &mut |view: Option<RefreshView>| {
        seen = view;
        RefreshPlan {
            remove: vec![t1],
            ..RefreshPlan::default()
        }
    })
    .await
    .unwrap();
    let view = seen.expect("the new token is live");
    assert_eq!(view.presented, fresh);
    let mut tokens = view.tokens.clone();
    tokens.sort_by_key(|(h, _)| *h);
    let mut expected = vec![(t1, spent.clone()), (t2, fresh.clone())];
    expected.sort_by_key(|(h, _)| *h);
    assert_eq!(tokens, expected);

    assert!(
        refresh_view(&*b, &t1).await.is_none(),
        "a removed token is unknown"
    );

    b.refresh(&t2, &mut |_: Option<RefreshView>| RefreshPlan {
        outcome: RefreshOutcome::AlreadyUsed,
        end_session: true,
        ..RefreshPlan::default()
    })
    .await
    .unwrap();
    assert_eq!(
        b.session("s1").await.unwrap(),
        None,
        "the plan ended the session"
    );
    assert_eq!(b.user_sessions("u").await.unwrap(), ["s9"]);
    assert!(
        refresh_view(&*b, &t2).await.is_none(),
        "an ended session's tokens are gone"
    );
    assert!(
        b.session("s9").await.unwrap().is_some(),
        "other sessions stay"
    );

    let mut seen = Some(true);
    let answered = b
        .refresh(&secret_hash("never issued"), &mut |view: Option<
            RefreshView,
        >| {
            seen = Some(view.is_some());
            RefreshPlan::default()
        })
        .await
        .unwrap();
    assert_eq!(seen, Some(false));
    assert!(matches!(answered.outcome, RefreshOutcome::NotFound));
}

/// A token presented many times at once is read and spent in one step each time: one
/// presentation finds it unspent.
pub(crate) async fn refresh_is_one_step_under_concurrency(b: Arc<dyn Backend>) {
    b.insert_user(&user("u", "u@example.com")).await.unwrap();
    let token = secret_hash("t");
    b.start_session(
        &session("s", "u"),
        &token,
        &refresh_record("s"),
        &mut no_change,
    )
    .await
    .unwrap();
    let now = at("2026-03-01T00:00:00Z");
    let answers = race(16, |n| {
        let b = b.clone();
        async move {
            b.refresh(&token, &mut |view: Option<RefreshView>| {
                let Some(view) = view else {
                    return RefreshPlan::default();
                };
                if view.presented.used_at.is_some() {
                    return RefreshPlan {
                        outcome: RefreshOutcome::AlreadyUsed,
                        ..RefreshPlan::default()
                    };
                }
                let mut spent = view.presented.clone();
                spent.used_at = Some(now);
                let mut next = refresh_record("s");
                next.created_at = now;
                RefreshPlan {
                    outcome: RefreshOutcome::Rotated(Box::new((
                        view.session.clone(),
                        view.user.clone(),
                        format!("next-{n}"),
                    ))),
                    put: vec![(token, spent), (secret_hash(&format!("next-{n}")), next)],
                    ..RefreshPlan::default()
                }
            })
            .await
            .unwrap()
        }
    })
    .await;
    let rotated: Vec<String> = answers
        .iter()
        .filter_map(|p| match &p.outcome {
            RefreshOutcome::Rotated(r) => Some(r.2.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(rotated.len(), 1, "one presentation spends the token");
    let view = refresh_view(&*b, &secret_hash(&rotated[0])).await;
    assert_eq!(
        view.expect("the winner's token is live").tokens.len(),
        2,
        "the spent token and the one new token"
    );
}

/// `update_user_ending_sessions` changes the account and ends every other session of
/// it, tokens included, in one step; nothing when the rule refuses.
pub(crate) async fn update_user_ending_sessions_keeps_only_the_kept_session(b: Arc<dyn Backend>) {
    b.insert_user(&user("u", "u@example.com")).await.unwrap();
    b.insert_user(&user("v", "v@example.com")).await.unwrap();
    for (s, owner) in [("s1", "u"), ("s2", "u"), ("s3", "u"), ("s4", "v")] {
        b.start_session(
            &session(s, owner),
            &secret_hash(s),
            &refresh_record(s),
            &mut no_change,
        )
        .await
        .unwrap();
    }
    let refused = b
        .update_user_ending_sessions("u", None, &mut |_: &mut User| -> Result<()> {
            Err(Error::Invalid("weak password".into()))
        })
        .await;
    assert!(matches!(refused, Err(Error::Invalid(_))));
    assert_eq!(
        b.user_sessions("u").await.unwrap().len(),
        3,
        "nothing ended"
    );
    assert!(matches!(
        b.update_user_ending_sessions("nope", None, &mut no_change)
            .await,
        Err(Error::NotFound("user"))
    ));

    let changed = b
        .update_user_ending_sessions("u", Some("s2"), &mut |u: &mut User| -> Result<()> {
            u.password_hash = "new".into();
            Ok(())
        })
        .await
        .unwrap();
    assert_eq!(changed.password_hash, "new");
    assert_eq!(b.user("u").await.unwrap().expect("u").password_hash, "new");
    assert_eq!(b.user_sessions("u").await.unwrap(), ["s2"]);
    assert!(b.session("s1").await.unwrap().is_none());
    assert!(
        b.session("s4").await.unwrap().is_some(),
        "another user's session stays"
    );
    let mut live = Vec::new();
    for s in ["s1", "s2", "s3", "s4"] {
        if refresh_view(&*b, &secret_hash(s)).await.is_some() {
            live.push(s);
        }
    }
    assert_eq!(live, ["s2", "s4"], "tokens end with their sessions");

    b.update_user_ending_sessions("u", None, &mut no_change)
        .await
        .unwrap();
    assert!(b.user_sessions("u").await.unwrap().is_empty());
}

// ----- secrets -----

/// `put_secret` refuses an unknown owner, stamps the account in the same step, and
/// replaces the owner's secret of the same purpose; `use_secret` hands the rule the
/// secret (by hash or by slot) with the owner's live purposes and applies its answer.
pub(crate) async fn secrets_replace_per_purpose_and_rules_decide_their_use(b: Arc<dyn Backend>) {
    b.insert_user(&user("u", "u@example.com")).await.unwrap();
    b.insert_user(&user("v", "v@example.com")).await.unwrap();
    let sent = at("2026-03-01T00:00:00Z");
    let mut stamp = |u: &mut User| -> Result<()> {
        u.recovery_sent_at = Some(sent);
        Ok(())
    };
    assert!(matches!(
        b.put_secret(&secret("nobody", "recovery", "x"), None).await,
        Err(Error::NotFound("user"))
    ));
    let first = secret("u", "recovery", "first");
    b.put_secret(&first, Some(&mut stamp as &mut UserChange<'_>))
        .await
        .unwrap();
    assert_eq!(
        b.user("u").await.unwrap().expect("u").recovery_sent_at,
        Some(sent)
    );

    let (record, purposes) = present(&*b, SecretLookup::Hash(&first.hash)).await;
    assert_eq!(record.as_ref(), Some(&first));
    assert_eq!(purposes, ["recovery"]);

    let second = secret("u", "recovery", "second");
    b.put_secret(&second, None).await.unwrap();
    assert_eq!(
        present(&*b, SecretLookup::Hash(&first.hash)).await.0,
        None,
        "a new secret of the purpose spends the old"
    );
    let confirmation = secret("u", "confirmation", "confirm");
    b.put_secret(&confirmation, None).await.unwrap();
    b.put_secret(&secret("v", "recovery", "v's"), None)
        .await
        .unwrap();
    let (record, purposes) = present(
        &*b,
        SecretLookup::Slot {
            owner: "u",
            purpose: "recovery",
        },
    )
    .await;
    assert_eq!(record.as_ref(), Some(&second));
    assert_eq!(purposes, ["confirmation", "recovery"], "only u's purposes");
    assert_eq!(
        present(
            &*b,
            SecretLookup::Slot {
                owner: "u",
                purpose: "email_change_new"
            }
        )
        .await
        .0,
        None
    );

    let answered = b
        .use_secret(
            SecretLookup::Hash(&second.hash),
            &mut |_: Option<&SecretRecord>, _: &[String]| {
                SecretUse::Update(b"{\"attempts\":1}".to_vec())
            },
        )
        .await
        .unwrap();
    assert_eq!(
        answered.map(|r| (r.owner, r.purpose)),
        Some(("u".into(), "recovery".into()))
    );
    let (record, _) = present(&*b, SecretLookup::Hash(&second.hash)).await;
    assert_eq!(
        record.expect("updated, not spent").body,
        b"{\"attempts\":1}"
    );

    b.use_secret(
        SecretLookup::Slot {
            owner: "u",
            purpose: "recovery",
        },
        &mut |_: Option<&SecretRecord>, _: &[String]| SecretUse::Spend,
    )
    .await
    .unwrap();
    assert_eq!(present(&*b, SecretLookup::Hash(&second.hash)).await.0, None);
    assert_eq!(
        present(
            &*b,
            SecretLookup::Slot {
                owner: "u",
                purpose: "recovery"
            }
        )
        .await
        .0,
        None
    );
    let (record, purposes) = present(&*b, SecretLookup::Hash(&confirmation.hash)).await;
    assert_eq!(record.as_ref(), Some(&confirmation), "other purposes stay");
    assert_eq!(purposes, ["confirmation"]);

    let refused = b
        .put_secret(
            &secret("u", "recovery", "third"),
            Some(
                &mut |_: &mut User| -> Result<()> { Err(Error::Forbidden("slow down".into())) }
                    as &mut UserChange<'_>,
            ),
        )
        .await;
    assert!(matches!(refused, Err(Error::Forbidden(_))));
    assert_eq!(
        present(&*b, SecretLookup::Hash(&secret_hash("third")))
            .await
            .0,
        None,
        "a refused stamp stores nothing"
    );
}

/// `put_secrets` stores several secrets, empties the purposes to clear and changes the
/// account, all or nothing.
pub(crate) async fn put_secrets_writes_and_clears_in_one_step(b: Arc<dyn Backend>) {
    b.insert_user(&user("u", "u@example.com")).await.unwrap();
    for (purpose, s) in [("a", "a1"), ("b", "b1")] {
        b.put_secret(&secret("u", purpose, s), None).await.unwrap();
    }
    let sent = at("2026-03-01T00:00:00Z");
    let changed = b
        .put_secrets(
            "u",
            &[secret("u", "a", "a2"), secret("u", "c", "c1")],
            &["b"],
            &mut |u: &mut User| -> Result<()> {
                u.new_email = Some("new@example.com".into());
                u.email_change_sent_at = Some(sent);
                Ok(())
            },
        )
        .await
        .unwrap();
    assert_eq!(changed.new_email.as_deref(), Some("new@example.com"));
    assert_eq!(
        b.user("u").await.unwrap().expect("u").email_change_sent_at,
        Some(sent)
    );
    assert!(!live(&*b, "a1").await, "replaced");
    assert!(live(&*b, "a2").await);
    assert!(!live(&*b, "b1").await, "cleared");
    assert!(live(&*b, "c1").await);

    let refused = b
        .put_secrets(
            "u",
            &[secret("u", "d", "d1")],
            &["c"],
            &mut |_: &mut User| -> Result<()> { Err(Error::Invalid("no".into())) },
        )
        .await;
    assert!(matches!(refused, Err(Error::Invalid(_))));
    assert!(!live(&*b, "d1").await, "nothing written");
    assert!(live(&*b, "c1").await, "nothing cleared");
    assert!(matches!(
        b.put_secrets(
            "nobody",
            &[secret("nobody", "d", "d2")],
            &[],
            &mut no_change
        )
        .await,
        Err(Error::NotFound("user"))
    ));
    assert!(!live(&*b, "d2").await);
}

/// A secret presented many times at once is spent by one presentation.
pub(crate) async fn a_secret_is_spent_once_under_concurrency(b: Arc<dyn Backend>) {
    b.insert_user(&user("u", "u@example.com")).await.unwrap();
    b.put_secret(&secret("u", "recovery", "link"), None)
        .await
        .unwrap();
    let hash = secret_hash("link");
    let answers = race(16, |_| {
        let b = b.clone();
        async move {
            let mut found = false;
            b.use_secret(
                SecretLookup::Hash(&hash),
                &mut |r: Option<&SecretRecord>, _: &[String]| {
                    found = r.is_some();
                    if found {
                        SecretUse::Spend
                    } else {
                        SecretUse::Keep
                    }
                },
            )
            .await
            .unwrap();
            found
        }
    })
    .await;
    assert_eq!(answers.iter().filter(|f| **f).count(), 1);
}

// ----- keys and quotas -----

/// One API key per user: without `replace` the first stays; with it the old key stops
/// working; the owner is found by the key's hash.
pub(crate) async fn api_keys_are_one_per_user(b: Arc<dyn Backend>) {
    let h = |k: &str| secret_hash(k);
    assert_eq!(b.api_key("u").await.unwrap(), None);
    assert_eq!(
        b.put_api_key("u", "k1", &h("k1"), false).await.unwrap(),
        "k1"
    );
    assert_eq!(
        b.put_api_key("u", "k2", &h("k2"), false).await.unwrap(),
        "k1"
    );
    assert_eq!(b.api_key("u").await.unwrap().as_deref(), Some("k1"));
    assert_eq!(
        b.api_key_owner(&h("k1")).await.unwrap().as_deref(),
        Some("u")
    );
    assert_eq!(b.api_key_owner(&h("k2")).await.unwrap(), None);
    assert_eq!(
        b.put_api_key("u", "k3", &h("k3"), true).await.unwrap(),
        "k3"
    );
    assert_eq!(b.api_key("u").await.unwrap().as_deref(), Some("k3"));
    assert_eq!(
        b.api_key_owner(&h("k1")).await.unwrap(),
        None,
        "the old key stops working"
    );
    assert_eq!(
        b.api_key_owner(&h("k3")).await.unwrap().as_deref(),
        Some("u")
    );
    assert_eq!(
        b.put_api_key("v", "kv", &h("kv"), true).await.unwrap(),
        "kv"
    );
    assert_eq!(
        b.api_key_owner(&h("kv")).await.unwrap().as_deref(),
        Some("v")
    );
    assert_eq!(b.api_key("u").await.unwrap().as_deref(), Some("k3"));
}

/// Two (or more) first requests for a key at once agree on one key, and only that one
/// works.
pub(crate) async fn two_first_api_keys_agree(b: Arc<dyn Backend>) {
    let answers = race(8, |n| {
        let b = b.clone();
        async move {
            let key = format!("key-{n}");
            b.put_api_key("u", &key, &secret_hash(&key), false)
                .await
                .unwrap()
        }
    })
    .await;
    let first = answers[0].clone();
    assert!(answers.iter().all(|a| *a == first), "{answers:?}");
    assert_eq!(b.api_key("u").await.unwrap(), Some(first.clone()));
    let mut working = Vec::new();
    for n in 0..8 {
        let key = format!("key-{n}");
        if b.api_key_owner(&secret_hash(&key)).await.unwrap().is_some() {
            working.push(key);
        }
    }
    assert_eq!(working, [first]);
}

/// `consume_quota` counts per owner and UTC day up to the limit; a refused request is
/// not counted; the answer says what is left and when the day ends.
pub(crate) async fn quotas_count_per_utc_day_up_to_the_limit(b: Arc<dyn Backend>) {
    let day1 = at("2026-03-10T23:00:00Z");
    let midnight = at("2026-03-11T00:00:00Z");
    for left in [2, 1, 0] {
        let used = b.consume_quota("u", 3, day1).await.unwrap();
        assert!(used.allowed);
        assert_eq!(
            (used.limit, used.remaining, used.reset_at),
            (3, left, midnight)
        );
    }
    let refused = b.consume_quota("u", 3, day1).await.unwrap();
    assert!(!refused.allowed);
    assert_eq!((refused.remaining, refused.reset_at), (0, midnight));
    assert_eq!(
        b.quota_used("u", day1).await.unwrap(),
        3,
        "a refusal is not counted"
    );
    assert_eq!(b.quota_used("v", day1).await.unwrap(), 0);
    assert!(
        b.consume_quota("v", 3, day1).await.unwrap().allowed,
        "per owner"
    );

    let day2 = at("2026-03-11T00:00:01Z");
    let fresh = b.consume_quota("u", 3, day2).await.unwrap();
    assert!(fresh.allowed);
    assert_eq!(
        (fresh.remaining, fresh.reset_at),
        (2, at("2026-03-12T00:00:00Z"))
    );
    assert_eq!(
        b.quota_used("u", day2).await.unwrap(),
        1,
        "each day its own count"
    );
    // What a past day counted is the backend's to keep or forget (see `quota_used`).

    let raised = b.consume_quota("u", 5, day2).await.unwrap();
    assert!(raised.allowed);
    assert_eq!(raised.remaining, 3);
}

/// Many requests at once never pass the limit, and the count is exact.
pub(crate) async fn consume_quota_never_passes_the_limit_under_concurrency(b: Arc<dyn Backend>) {
    let now = at("2026-03-10T12:00:00Z");
    let answers = race(40, |_| {
        let b = b.clone();
        async move { b.consume_quota("u", 10, now).await.unwrap() }
    })
    .await;
    assert_eq!(answers.iter().filter(|a| a.allowed).count(), 10);
    assert_eq!(b.quota_used("u", now).await.unwrap(), 10);
    let mut remaining: Vec<u64> = answers
        .iter()
        .filter(|a| a.allowed)
        .map(|a| a.remaining)
        .collect();
    remaining.sort_unstable();
    assert_eq!(
        remaining,
        (0..10).collect::<Vec<_>>(),
        "each allowed request saw its own count"
    );
}

// ----- billing -----

/// Checkouts: inserted once, changed by rules atomically, counted per user since a time.
pub(crate) async fn checkouts_are_inserted_once_and_changed_by_rules(b: Arc<dyn Backend>) {
    let c1 = checkout("c1", "u", "2026-03-01T10:00:00Z");
    b.insert_checkout(&c1).await.unwrap();
    assert!(matches!(
        b.insert_checkout(&c1).await,
        Err(Error::Conflict(_))
    ));
    assert_eq!(b.checkout("c1").await.unwrap(), Some(c1.clone()));
    assert_eq!(b.checkout("nope").await.unwrap(), None);

    let paid = b
        .update_checkout("c1", &mut |c: &mut CheckoutSession| -> Result<()> {
            c.status = CheckoutStatus::Paid;
            c.customer_id = Some("cus_1".into());
            Ok(())
        })
        .await
        .unwrap();
    assert_eq!(paid.status, CheckoutStatus::Paid);
    assert_eq!(b.checkout("c1").await.unwrap(), Some(paid.clone()));
    let refused = b
        .update_checkout("c1", &mut |c: &mut CheckoutSession| -> Result<()> {
            c.status = CheckoutStatus::Created;
            Err(Error::Invalid("no".into()))
        })
        .await;
    assert!(matches!(refused, Err(Error::Invalid(_))));
    assert_eq!(b.checkout("c1").await.unwrap(), Some(paid));
    assert!(matches!(
        b.update_checkout("nope", &mut |_: &mut CheckoutSession| -> Result<()> {
            Ok(())
        })
        .await,
        Err(Error::NotFound("checkout session"))
    ));

    b.insert_checkout(&checkout("c2", "u", "2026-03-01T12:00:00Z"))
        .await
        .unwrap();
    b.insert_checkout(&checkout("c3", "v", "2026-03-01T12:00:00Z"))
        .await
        .unwrap();
    assert_eq!(
        b.count_checkouts_since("u", at("2026-03-01T00:00:00Z"))
            .await
            .unwrap(),
        2
    );
    assert_eq!(
        b.count_checkouts_since("u", at("2026-03-01T11:00:00Z"))
            .await
            .unwrap(),
        1
    );
    assert_eq!(
        b.count_checkouts_since("w", at("2026-03-01T00:00:00Z"))
            .await
            .unwrap(),
        0
    );
}

/// The waitlist: the first join wins, entries in join order, an approval time set once,
/// removals answered.
pub(crate) async fn the_waitlist_keeps_the_first_join(b: Arc<dyn Backend>) {
    let first = waitlist_entry("u1", "2026-02-02T00:00:00Z");
    assert_eq!(b.join_waitlist(&first).await.unwrap(), first);
    b.join_waitlist(&waitlist_entry("u2", "2026-02-01T00:00:00Z"))
        .await
        .unwrap();
    assert_eq!(
        b.join_waitlist(&waitlist_entry("u1", "2026-02-03T00:00:00Z"))
            .await
            .unwrap(),
        first,
        "joining again keeps the first date"
    );
    let order = |list: Vec<WaitlistEntry>| list.into_iter().map(|e| e.user_id).collect::<Vec<_>>();
    assert_eq!(order(b.waitlist().await.unwrap()), ["u2", "u1"]);
    assert_eq!(b.waitlist_entry("u1").await.unwrap(), Some(first));
    assert_eq!(b.waitlist_entry("u9").await.unwrap(), None);

    let approved = b
        .approve_waitlist_entry("u1", at("2026-02-04T00:00:00Z"))
        .await
        .unwrap();
    assert_eq!(approved.approved_at, Some(at("2026-02-04T00:00:00Z")));
    let again = b
        .approve_waitlist_entry("u1", at("2026-02-05T00:00:00Z"))
        .await
        .unwrap();
    assert_eq!(
        again.approved_at,
        Some(at("2026-02-04T00:00:00Z")),
        "set once"
    );
    assert_eq!(b.waitlist_entry("u1").await.unwrap(), Some(again));
    assert!(matches!(
        b.approve_waitlist_entry("u9", at("2026-02-05T00:00:00Z"))
            .await,
        Err(Error::NotFound("waitlist entry"))
    ));

    assert_eq!(
        b.remove_waitlist_entry("u2")
            .await
            .unwrap()
            .map(|e| e.user_id),
        Some("u2".into())
    );
    assert_eq!(b.remove_waitlist_entry("u2").await.unwrap(), None);
    assert_eq!(order(b.waitlist().await.unwrap()), ["u1"]);

    let joins = race(8, |n| {
        let b = b.clone();
        async move {
            let joined = format!("2026-02-1{n}T00:00:00Z");
            b.join_waitlist(&waitlist_entry("u3", &joined))
                .await
                .unwrap()
        }
    })
    .await;
    assert!(
        joins.iter().all(|e| *e == joins[0]),
        "everyone is told the kept entry"
    );
    assert_eq!(
        b.waitlist_entry("u3").await.unwrap(),
        Some(joins[0].clone())
    );
}

// ----- source feeds -----

/// Feeds: unique by URL, listed in the order added, changed by rules; removing one
/// forgets its entries.
pub(crate) async fn feeds_are_unique_by_url_and_forget_their_entries(b: Arc<dyn Backend>) {
    let (u1, u2) = ("https://blog.example/feed.xml", "https://news.example/rss");
    let f1 = feed("f1", u1, "2026-01-02T00:00:00Z", None);
    let f2 = feed("f2", u2, "2026-01-03T00:00:00Z", None);
    let f0 = feed(
        "f0",
        "https://old.example/atom",
        "2026-01-01T00:00:00Z",
        None,
    );
    b.insert_feed(&f0).await.unwrap();
    b.insert_feed(&f1).await.unwrap();
    b.insert_feed(&f2).await.unwrap();
    assert!(matches!(
        b.insert_feed(&feed("f3", u1, "2026-01-04T00:00:00Z", None))
            .await,
        Err(Error::Conflict(_))
    ));
    assert_eq!(b.feed("f3").await.unwrap(), None);
    let order = |list: Vec<Feed>| list.into_iter().map(|f| f.id).collect::<Vec<_>>();
    assert_eq!(order(b.feeds().await.unwrap()), ["f0", "f1", "f2"]);
    assert_eq!(b.feed("f1").await.unwrap(), Some(f1.clone()));
    assert_eq!(b.feed_by_url(u1).await.unwrap(), Some(f1.clone()));
    assert_eq!(b.feed_by_url("https://none.example/").await.unwrap(), None);

    let named = b
        .update_feed("f1", &mut |f: &mut Feed| f.name = Some("Blog".into()))
        .await
        .unwrap();
    assert_eq!(named.name.as_deref(), Some("Blog"));
    assert_eq!(b.feed("f1").await.unwrap(), Some(named));
    assert!(matches!(
        b.update_feed("nope", &mut |_: &mut Feed| {}).await,
        Err(Error::NotFound("feed"))
    ));

    b.put_entry_item("f1", "g1", "item-1").await.unwrap();
    b.put_entry_item("f2", "g1", "item-2").await.unwrap();
    assert_eq!(
        b.entry_item("f1", "g1").await.unwrap().as_deref(),
        Some("item-1")
    );
    assert_eq!(
        b.entry_item("f2", "g1").await.unwrap().as_deref(),
        Some("item-2")
    );
    assert_eq!(b.entry_item("f1", "g2").await.unwrap(), None);
    b.put_entry_item("f1", "g1", "item-3").await.unwrap();
    assert_eq!(
        b.entry_item("f1", "g1").await.unwrap().as_deref(),
        Some("item-3")
    );

    assert_eq!(
        b.remove_feed("f1").await.unwrap().map(|f| f.id),
        Some("f1".into())
    );
    assert_eq!(b.remove_feed("f1").await.unwrap(), None);
    assert_eq!(b.feed("f1").await.unwrap(), None);
    assert_eq!(b.feed_by_url(u1).await.unwrap(), None);
    assert_eq!(
        b.entry_item("f1", "g1").await.unwrap(),
        None,
        "entries go with their feed"
    );
    assert_eq!(
        b.entry_item("f2", "g1").await.unwrap().as_deref(),
        Some("item-2")
    );
    b.insert_feed(&feed("f4", u1, "2026-01-05T00:00:00Z", None))
        .await
        .expect("the URL is free again");
}

/// `lease_due_feeds` hands out feeds due at `now` (never fetched, or due at or before
/// it), up to `limit`, and holds them until `until` or their next update with a new due
/// time.
pub(crate) async fn due_feeds_are_leased_until_their_lease_ends(b: Arc<dyn Backend>) {
    let t = |h: u32| at(&format!("2026-03-01T{h:02}:00:00Z"));
    let added = "2026-01-01T00:00:00Z";
    b.insert_feed(&feed("new", "https://a.example/", added, None))
        .await
        .unwrap();
    b.insert_feed(&feed(
        "due",
        "https://b.example/",
        added,
        Some("2026-03-01T01:00:00Z"),
    ))
    .await
    .unwrap();
    b.insert_feed(&feed(
        "now",
        "https://c.example/",
        added,
        Some("2026-03-01T02:00:00Z"),
    ))
    .await
    .unwrap();
    b.insert_feed(&feed(
        "later",
        "https://d.example/",
        added,
        Some("2026-03-01T09:00:00Z"),
    ))
    .await
    .unwrap();
    let lease = |now: u32, until: u32, limit: usize| {
        let b = b.clone();
        async move {
            let mut ids: Vec<String> = b
                .lease_due_feeds(t(now), t(until), limit)
                .await
                .unwrap()
                .into_iter()
                .map(|f| f.id)
                .collect();
            ids.sort();
            ids
        }
    };
    assert_eq!(lease(2, 4, 10).await, ["due", "new", "now"]);
    assert!(lease(2, 4, 10).await.is_empty(), "held");
    assert!(lease(3, 5, 10).await.is_empty(), "held until 4");
    assert_eq!(
        lease(5, 7, 2).await.len(),
        2,
        "the lease ended at 4; limit 2"
    );
    assert_eq!(lease(5, 7, 10).await.len(), 1, "the third");
    assert!(lease(6, 7, 10).await.is_empty());

    // A fetcher's update with a new due time ends the lease; other updates do not.
    b.update_feed("due", &mut |f: &mut Feed| f.next_due = Some(t(6)))
        .await
        .unwrap();
    b.update_feed("now", &mut |f: &mut Feed| f.name = Some("Now".into()))
        .await
        .unwrap();
    assert_eq!(lease(6, 9, 10).await, ["due"]);
    assert!(lease(6, 9, 10).await.is_empty());
    assert_eq!(lease(10, 11, 10).await, ["due", "later", "new", "now"]);
}

/// Fetchers asking at once never get the same feed.
pub(crate) async fn concurrent_leases_never_share_a_feed(b: Arc<dyn Backend>) {
    for i in 0..20 {
        b.insert_feed(&feed(
            &format!("f{i:02}"),
            &format!("https://f{i}.example/feed"),
            "2026-01-01T00:00:00Z",
            None,
        ))
        .await
        .unwrap();
    }
    let now = at("2026-03-01T00:00:00Z");
    let until = at("2026-03-01T00:10:00Z");
    let leased: Vec<String> = race(8, |_| {
        let b = b.clone();
        async move { b.lease_due_feeds(now, until, 3).await.unwrap() }
    })
    .await
    .into_iter()
    .flatten()
    .map(|f| f.id)
    .collect();
    let distinct: HashSet<&String> = leased.iter().collect();
    assert_eq!(
        distinct.len(),
        leased.len(),
        "a feed handed out twice: {leased:?}"
    );
    assert_eq!(leased.len(), 20, "8 fetchers of 3 take all 20");
}

// ----- records -----

/// Summaries: by id, newest week first, one per week through `put_summary_once`.
pub(crate) async fn summaries_are_kept_by_id_and_once_per_week(b: Arc<dyn Backend>) {
    let (w1, w2, w3) = (
        "2026-01-05T00:00:00Z",
        "2026-01-12T00:00:00Z",
        "2026-01-19T00:00:00Z",
    );
    b.put_summary(&summary("s1", w1)).await.unwrap();
    b.put_summary(&summary("s2", w2)).await.unwrap();
    let order = |list: Vec<WeeklySummary>| list.into_iter().map(|s| s.id).collect::<Vec<_>>();
    assert_eq!(order(b.summaries().await.unwrap()), ["s2", "s1"]);
    assert!(!b.put_summary_once(&summary("s3", w1)).await.unwrap());
    assert_eq!(b.summary("s3").await.unwrap(), None);
    assert!(b.put_summary_once(&summary("s4", w3)).await.unwrap());
    assert_eq!(
        b.summary_of_week(at(w3)).await.unwrap().map(|s| s.id),
        Some("s4".into())
    );
    assert_eq!(
        b.summary_of_week(at(w1)).await.unwrap().map(|s| s.id),
        Some("s1".into())
    );
    assert_eq!(
        b.summary_of_week(at("2026-01-26T00:00:00Z")).await.unwrap(),
        None
    );

    let mut edited = summary("s1", w1);
    edited.title = "Edited".into();
    b.put_summary(&edited).await.unwrap();
    assert_eq!(b.summary("s1").await.unwrap(), Some(edited));
    // Replacing a summary by id moves it to its new week.
    b.put_summary(&summary("s1", "2026-01-26T00:00:00Z"))
        .await
        .unwrap();
    assert_eq!(b.summary_of_week(at(w1)).await.unwrap(), None);
    assert_eq!(order(b.summaries().await.unwrap()), ["s1", "s4", "s2"]);

    assert_eq!(
        b.remove_summary("s2").await.unwrap().map(|s| s.id),
        Some("s2".into())
    );
    assert_eq!(b.remove_summary("s2").await.unwrap(), None);
    assert_eq!(b.summary_of_week(at(w2)).await.unwrap(), None);
    assert!(
        b.put_summary_once(&summary("s5", w2)).await.unwrap(),
        "the week is free again"
    );

    let wins = race(8, |n| {
        let b = b.clone();
        async move {
            b.put_summary_once(&summary(&format!("r{n}"), "2026-02-02T00:00:00Z"))
                .await
                .unwrap()
        }
    })
    .await;
    assert_eq!(
        wins.iter().filter(|w| **w).count(),
        1,
        "one summary per week"
    );
}

/// The outbox: mails by id, newest first; a purged account's mails go by address, in
/// any case.
pub(crate) async fn the_outbox_lists_newest_first_and_forgets_by_address(b: Arc<dyn Backend>) {
    let m1 = mail("m1", "A@example.com", "2026-03-01T00:00:00Z");
    let m2 = mail("m2", "b@example.com", "2026-03-02T00:00:00Z");
    let m3 = mail("m3", "a@example.com", "2026-03-03T00:00:00Z");
    for m in [&m1, &m2, &m3] {
        b.put_mail(m).await.unwrap();
    }
    assert_eq!(b.mail("m2").await.unwrap(), Some(m2.clone()));
    assert_eq!(b.mail("nope").await.unwrap(), None);
    assert_eq!(b.mails().await.unwrap(), [m3, m2.clone(), m1]);
    assert_eq!(b.remove_mails_to("a@EXAMPLE.com").await.unwrap(), 2);
    assert_eq!(b.mails().await.unwrap(), [m2]);
    assert_eq!(b.remove_mails_to("a@example.com").await.unwrap(), 0);
}

/// Profiles: none until saved, then the last saved.
pub(crate) async fn profiles_are_kept_per_user(b: Arc<dyn Backend>) {
    assert_eq!(b.profile("u").await.unwrap(), None);
    let first = Profile {
        stories: true,
        resume: "ML engineer".into(),
        mark_on_open: true,
        read_before: None,
        weekly_email: false,
        updated_at: Some(at("2026-03-01T00:00:00Z")),
    };
    b.put_profile("u", &first).await.unwrap();
    assert_eq!(b.profile("u").await.unwrap(), Some(first));
    let second = Profile {
        stories: true,
        resume: "Research lead".into(),
        mark_on_open: false,
        read_before: Some(at("2026-03-01T12:00:00Z")),
        weekly_email: true,
        updated_at: Some(at("2026-03-02T00:00:00Z")),
    };
    b.put_profile("u", &second).await.unwrap();
    assert_eq!(b.profile("u").await.unwrap(), Some(second));
    assert_eq!(b.profile("v").await.unwrap(), None);
}

/// Documents: a write names the version it read, so of two writers from one version
/// only the first wins; removal is a write too; keys list per kind in order; the kind's
/// version moves with every change and only then.
pub(crate) async fn documents_change_only_from_the_version_read(b: Arc<dyn Backend>) {
    assert_eq!(b.doc("alerts", "u").await.unwrap(), None);
    assert_eq!(b.docs_version("alerts").await.unwrap(), 0);
    assert!(
        b.put_doc("alerts", "u", Some(b"{\"a\":1}"), 0)
            .await
            .unwrap()
    );
    assert!(
        !b.put_doc("alerts", "u", Some(b"{\"a\":2}"), 0)
            .await
            .unwrap(),
        "exists already"
    );
    let doc = b.doc("alerts", "u").await.unwrap().unwrap();
    assert_eq!((doc.version, doc.json.as_slice()), (1, &b"{\"a\":1}"[..]));
    let v1 = b.docs_version("alerts").await.unwrap();
    assert!(v1 > 0);
    assert!(
        b.put_doc("alerts", "u", Some(b"{\"a\":3}"), 1)
            .await
            .unwrap()
    );
    assert!(
        !b.put_doc("alerts", "u", Some(b"{\"a\":4}"), 1)
            .await
            .unwrap(),
        "a stale version loses"
    );
    let doc = b.doc("alerts", "u").await.unwrap().unwrap();
    assert_eq!((doc.version, doc.json.as_slice()), (2, &b"{\"a\":3}"[..]));
    let v2 = b.docs_version("alerts").await.unwrap();
    assert!(v2 > v1);
    // A lost race changes nothing, not even the kind's version.
    assert!(!b.put_doc("alerts", "u", None, 1).await.unwrap());
    assert_eq!(b.docs_version("alerts").await.unwrap(), v2);
    for key in ["w", "v", "x"] {
        assert!(b.put_doc("alerts", key, Some(b"{}"), 0).await.unwrap());
    }
    assert!(b.put_doc("alert-mail", "a", Some(b"{}"), 0).await.unwrap());
    assert_eq!(
        b.doc_keys("alerts", None, 10).await.unwrap(),
        ["u", "v", "w", "x"]
    );
    assert_eq!(
        b.doc_keys("alerts", Some("v"), 2).await.unwrap(),
        ["w", "x"]
    );
    assert_eq!(b.doc_keys("alert-mail", None, 10).await.unwrap(), ["a"]);
    assert!(
        b.doc("alerts", "a").await.unwrap().is_none(),
        "kinds are apart"
    );
    assert!(b.put_doc("alerts", "u", None, 2).await.unwrap());
    assert_eq!(b.doc("alerts", "u").await.unwrap(), None);
    assert!(b.docs_version("alerts").await.unwrap() > v2);
    assert!(
        b.put_doc("alerts", "gone", None, 0).await.unwrap(),
        "removing nothing is done"
    );
    // The first write after a removal starts from nothing again.
    assert!(b.put_doc("alerts", "u", Some(b"{}"), 0).await.unwrap());
    assert_eq!(b.doc("alerts", "u").await.unwrap().unwrap().version, 1);
}

// ----- coordination -----

/// A flag is set once: `set_flag` answers true to the one caller that set it, even
/// among many at once.
pub(crate) async fn a_flag_is_set_once(b: Arc<dyn Backend>) {
    assert!(!b.flag("demo").await.unwrap());
    assert!(b.set_flag("demo").await.unwrap());
    assert!(!b.set_flag("demo").await.unwrap());
    assert!(b.flag("demo").await.unwrap());
    assert!(!b.flag("other").await.unwrap());
    let firsts = race(16, |_| {
        let b = b.clone();
        async move { b.set_flag("summary:2026-W10").await.unwrap() }
    })
    .await;
    assert_eq!(firsts.iter().filter(|f| **f).count(), 1);
}

/// A job's lease has one holder while it runs; its holder renews it; once it lapses
/// another may take it. (`lease` takes no `now`: these use the clock.)
pub(crate) async fn a_job_lease_has_one_holder_at_a_time(b: Arc<dyn Backend>) {
    let now = Utc::now();
    let minute = chrono::Duration::minutes(1);
    assert!(b.lease("job", "a", now + minute).await.unwrap());
    assert!(
        !b.lease("job", "b", now + minute).await.unwrap(),
        "a holds it"
    );
    assert!(
        b.lease("job", "a", now + minute * 2).await.unwrap(),
        "renewed"
    );
    assert!(!b.lease("job", "b", now + minute).await.unwrap());
    assert!(
        b.lease("other job", "b", now + minute).await.unwrap(),
        "per job"
    );
    assert!(
        b.lease("job", "a", now - minute).await.unwrap(),
        "a lets it lapse"
    );
    assert!(
        b.lease("job", "b", now + minute).await.unwrap(),
        "b takes it"
    );
    assert!(!b.lease("job", "a", now + minute).await.unwrap());

    let holders = race(8, |n| {
        let b = b.clone();
        async move {
            b.lease("race", &format!("p{n}"), now + minute)
                .await
                .unwrap()
        }
    })
    .await;
    assert_eq!(holders.iter().filter(|h| **h).count(), 1);
}

/// The shared secret is made by the first caller and the same for every caller after.
pub(crate) async fn the_shared_secret_is_made_once(b: Arc<dyn Backend>) {
    let first = b.shared_secret("jwt", &|| vec![1; 32]).await.unwrap();
    assert_eq!(first, vec![1; 32]);
    assert_eq!(
        b.shared_secret("jwt", &|| vec![2; 32]).await.unwrap(),
        first
    );
    assert_eq!(
        b.shared_secret("other", &|| vec![3; 8]).await.unwrap(),
        vec![3; 8]
    );
    let made = race(8, |n| {
        let b = b.clone();
        async move {
            b.shared_secret("raced", &move || {
                vec![u8::try_from(n).expect("eight racers"); 32]
            })
            .await
            .unwrap()
        }
    })
    .await;
    assert!(
        made.iter().all(|s| *s == made[0]),
        "every caller gets the same secret"
    );
}

/// `rate` is GCRA per key, as [`Gcra::step`] decides it, and exact under concurrency.
pub(crate) async fn rate_follows_gcra_per_key(b: Arc<dyn Backend>) {
    let (k1, k2) = (secret_hash("k1"), secret_hash("k2"));
    let interval = Duration::from_secs(20);
    let t0 = at("2026-03-01T00:00:00Z");
    let secs = |s: i64| t0 + chrono::Duration::seconds(s);
    let mut tat = None;
    for when in [0, 0, 0, 0, 5, 20, 21, 60, 60, 60, 60] {
        let expected = match Gcra::step(tat, interval, 3, secs(when)) {
            Gcra::Pass(next) => {
                tat = Some(next);
                None
            }
            Gcra::Wait(wait) => Some(wait),
        };
        assert_eq!(
            b.rate(&k1, interval, 3, secs(when)).await.unwrap(),
            expected,
            "at {when}s"
        );
    }
    assert_eq!(
        b.rate(&k1, interval, 3, secs(60)).await.unwrap(),
        Some(Duration::from_secs(20)),
        "the burst of 3 is spent"
    );
    assert_eq!(
        b.rate(&k2, interval, 3, secs(60)).await.unwrap(),
        None,
        "per key"
    );

    let k3 = secret_hash("k3");
    let passed = race(16, |_| {
        let b = b.clone();
        async move { b.rate(&k3, interval, 5, t0).await.unwrap().is_none() }
    })
    .await;
    assert_eq!(
        passed.iter().filter(|p| **p).count(),
        5,
        "exactly the burst passes"
    );
}

/// The backend names its engine and flushes and keeps itself up on request.
pub(crate) async fn the_backend_names_its_engine_and_flushes(b: Arc<dyn Backend>) {
    assert!(!b.engine().is_empty());
    b.put_items(&[news("a", "A", None, "2026-01-01T00:00:00Z")])
        .await
        .unwrap();
    b.flush().await.unwrap();
    b.upkeep().await.unwrap();
    assert!(b.item_exists("a").await.unwrap());
}

/// The suite on the in-memory backend.
mod memory {
    crate::backend::contract::contract_tests!(std::sync::Arc::new(
        crate::engines::memory::MemoryBackend::new()
    ));
}
