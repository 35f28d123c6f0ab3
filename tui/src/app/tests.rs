//! Key handling and state transitions of [`App`](super::App). Fixtures answer as the
//! server does (see `crate::testing`): the reader never caps, counts or decides who is a
//! subscriber itself.

use std::time::{Duration, Instant};

use radar_api::Mark;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::*;
use crate::api::ApiError;
use crate::drops::STEP_LOCK;
use crate::session::tests::session;
use crate::testing::*;

fn press(app: &mut App, keys: &str, now: Instant) {
    for c in keys.chars() {
        app.update(ch(c), now);
    }
}

#[test]
fn only_key_presses_count() {
    let mut app = anonymous();
    for kind in [KeyEventKind::Release, KeyEventKind::Repeat] {
        let q = KeyEvent::new_with_kind(KeyCode::Char('q'), KeyModifiers::NONE, kind);
        app.update(Action::Key(q), Instant::now());
        assert!(!app.quit, "{kind:?} must not quit");
    }
    app.update(ch('q'), Instant::now());
    assert!(app.quit);
    let mut app = anonymous();
    app.update(
        Action::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
        Instant::now(),
    );
    assert!(app.quit);
}

#[test]
fn number_keys_and_tabs_switch_views() {
    let now = Instant::now();
    let mut app = anonymous();
    press(&mut app, "2", now);
    assert_eq!(app.view, View::Drops);
    press(&mut app, "4", now);
    assert_eq!(app.view, View::Drops, "Favs needs an account");
    assert_eq!(
        app.status.as_ref().unwrap().text,
        "Sign in to see Favs (press i)."
    );
    app.update(key(KeyCode::Tab), now);
    assert_eq!(app.view, View::Tv);
    app.update(key(KeyCode::Tab), now);
    assert_eq!(
        app.view,
        View::Feed,
        "tabs wrap over the signed-out tabs only"
    );
    app.update(key(KeyCode::BackTab), now);
    assert_eq!(app.view, View::Tv);
    app.update(key(KeyCode::Esc), now);
    assert_eq!(app.view, View::Drops, "Esc leaves TV mode for Drops");

    let mut app = free();
    press(&mut app, "4", now);
    assert_eq!(app.view, View::Favs);
    assert_eq!(
        app.take_requests(),
        vec![Request::LoadMarks(Mark::Favorite)],
        "lists reload when opened"
    );
    press(&mut app, "7", now);
    assert_eq!(app.take_requests(), vec![Request::LoadShared]);
}

#[test]
fn moving_through_the_feed() {
    let now = Instant::now();
    let mut app = anonymous();
    press(&mut app, "jjj", now);
    assert_eq!(app.selection(View::Feed), 3);
    press(&mut app, "jjjjj", now);
    assert_eq!(app.selection(View::Feed), 4, "stops at the last item");
    press(&mut app, "k", now);
    assert_eq!(app.current_item().unwrap().id, "item-3");
    press(&mut app, "g", now);
    assert_eq!(app.selection(View::Feed), 0);
    press(&mut app, "G", now);
    assert_eq!(app.selection(View::Feed), 4);
    press(&mut app, "o", now);
    assert_eq!(
        app.take_requests(),
        vec![Request::Open("https://www.example4.com/story".into())]
    );
}

#[test]
fn drops_index_and_paywall_for_free_readers() {
    let mut app = free();
    let mut now = Instant::now();
    press(&mut app, "2", now);
    for expected in 1..=4 {
        now += STEP_LOCK;
        press(&mut app, " ", now);
        assert_eq!(app.drops.index, expected);
    }
    assert!(!app.drops.paywall);
    now += STEP_LOCK;
    app.update(key(KeyCode::Down), now);
    assert!(app.drops.paywall, "next on the 5th story shows the paywall");
    assert_eq!(app.drops.index, 4);
    // From the paywall, Enter (its "Subscribe Now") and S open the subscribe page.
    app.take_requests();
    for keys in ["\r", "S"] {
        match keys {
            "\r" => app.update(key(KeyCode::Enter), now),
            other => press(&mut app, other, now),
        }
        assert_eq!(
            app.take_requests(),
            vec![Request::Open("http://127.0.0.1:8080/subscribe".into())],
            "{keys:?} on the paywall"
        );
        assert!(app.drops.paywall, "the paywall stays behind the browser");
    }
    // Held keys within 300 ms of a step do nothing.
    let mut app2 = free();
    press(&mut app2, "2", now);
    press(&mut app2, "jjj", now);
    assert_eq!(app2.drops.index, 1);
    // Opening Drops again starts from the first story.
    press(&mut app, "12", now);
    assert_eq!((app.drops.index, app.drops.paywall), (0, false));
}

/// The subscriber fixture's second and last page (items 20 to 39), answering cursor `c1`.
fn second_subscriber_page_arrives(app: &mut App, now: Instant) {
    let more = sub_page((20..40).map(item).collect(), None, 40);
    app.update(
        Action::FeedLoaded {
            epoch: app.epoch,
            fetch: FeedFetch::Next("c1".into()),
            result: Ok(more),
        },
        now,
    );
}

#[test]
fn subscribers_read_past_five_and_load_more_near_the_end() {
    let mut app = subscriber();
    let mut now = Instant::now();
    press(&mut app, "2", now);
    for _ in 0..18 {
        now += STEP_LOCK;
        press(&mut app, "j", now);
    }
    assert_eq!(app.drops.index, 18);
    assert!(!app.drops.paywall);
    assert_eq!(
        app.take_requests(),
        vec![Request::LoadFeed(FeedFetch::Next("c1".into()))]
    );
    second_subscriber_page_arrives(&mut app, now);
    assert_eq!(app.stories.len(), 40);
    assert_eq!(app.feed_items().len(), 40);
}

#[test]
fn the_feed_pages_on_when_the_selection_nears_its_end() {
    let mut app = subscriber();
    let now = Instant::now();
    press(&mut app, "j", now);
    assert_eq!(
        app.take_requests(),
        vec![],
        "far from the end, nothing is asked"
    );
    press(&mut app, "G", now);
    assert_eq!(
        app.take_requests(),
        vec![Request::LoadFeed(FeedFetch::Next("c1".into()))]
    );
    press(&mut app, "j", now);
    assert_eq!(
        app.take_requests(),
        vec![],
        "one page is asked for at a time"
    );
    second_subscriber_page_arrives(&mut app, now);
    press(&mut app, "j", now);
    assert_eq!(
        app.selected[View::Feed.index()],
        20,
        "j goes on past the first page"
    );
    press(&mut app, "G", now);
    assert_eq!(app.take_requests(), vec![], "the last page has no cursor");
}

#[test]
fn tv_mode_cycles_interval_pauses_and_wraps() {
    let mut app = anonymous();
    let now = Instant::now();
    press(&mut app, "3", now);
    assert_eq!(app.view, View::Tv);
    let mut intervals = vec![app.tv.interval];
    for _ in 0..4 {
        press(&mut app, "t", now);
        intervals.push(app.tv.interval);
    }
    assert_eq!(intervals, [10, 15, 20, 5, 10]);
    app.update(Action::Tick, now);
    app.update(Action::Tick, now + Duration::from_secs(10));
    assert_eq!(app.tv.index, 1);
    press(&mut app, " ", now);
    assert!(app.tv.paused);
    app.update(Action::Tick, now + Duration::from_secs(60));
    assert_eq!(app.tv.index, 1, "paused");
    press(&mut app, " ", now);
    app.update(Action::Tick, now + Duration::from_secs(100));
    assert_eq!(
        app.tv.index, 0,
        "40 s at 10 s a story: 4 steps from story 1 wrap over 5 stories to 0"
    );
    press(&mut app, "ppp", now);
    assert_eq!(app.tv.index, 2, "previous wraps backwards");
}

#[test]
fn tv_mode_shows_what_the_server_allows() {
    let now = Instant::now();
    let mut app = free();
    press(&mut app, "3", now);
    assert_eq!((app.tv_stories().len(), app.tv_total()), (5, 5));
    // A subscriber's TV counts every reachable story and pages on before the end.
    let mut sub = subscriber();
    press(&mut sub, "3", now);
    assert_eq!((sub.tv_stories().len(), sub.tv_total()), (20, 64));
    sub.update(Action::Tick, now);
    sub.update(Action::Tick, now + Duration::from_secs(10 * 18));
    assert_eq!(sub.tv.index, 18);
    assert!(
        sub.take_requests()
            .contains(&Request::LoadFeed(FeedFetch::Next("c1".into())))
    );
    // The last loaded story waits for the next page instead of wrapping.
    sub.update(Action::Tick, now + Duration::from_secs(10 * 30));
    assert_eq!(sub.tv.index, 19);
    let rest = sub_page((20..64).map(item).collect(), None, 64);
    sub.update(
        Action::FeedLoaded {
            epoch: sub.epoch,
            fetch: FeedFetch::Next("c1".into()),
            result: Ok(rest),
        },
        now,
    );
    for _ in 0..44 {
        sub.update(key(KeyCode::Down), now);
    }
    assert_eq!(sub.tv.index, 63, "the last item is reached");
    sub.update(key(KeyCode::Down), now);
    assert_eq!(sub.tv.index, 0, "then TV wraps");
}

/// Answers the mark change the reader sent last, as the server would.
fn stored(app: &mut App, mark: Mark, id: &str, on: bool, now: Instant) {
    let mut marks = radar_api::ItemMarks::default();
    if on {
        marks.set(mark);
    }
    let epoch = app.epoch;
    app.update(
        Action::MarkSaved {
            epoch,
            mark,
            id: id.into(),
            on,
            result: Ok(MarkResult {
                success: true,
                client_side_only: false,
                marks,
            }),
        },
        now,
    );
}

/// The mark changes among `requests`.
fn set_marks(requests: &[Request]) -> Vec<(Mark, String, bool)> {
    requests
        .iter()
        .filter_map(|r| match r {
            Request::SetMark { mark, id, on } => Some((*mark, id.clone(), *on)),
            _ => None,
        })
        .collect()
}

#[test]
fn the_feed_is_refilled_once_hides_and_reads_settle() {
    let now = Instant::now();
    let mut app = free();
    press(&mut app, "mmmxx", now);
    let sent = set_marks(&app.take_requests());
    assert_eq!(sent.len(), 5);
    assert!(app.feed_items().is_empty(), "marked items leave at once");
    // Drops opened now waits for the refilled feed rather than showing none.
    press(&mut app, "2", now);
    assert!(app.stories_pending);
    for (mark, id, on) in &sent[..4] {
        stored(&mut app, *mark, id, *on, now);
        assert!(
            !app.take_requests()
                .iter()
                .any(|r| matches!(r, Request::LoadFeed(_))),
            "not while changes are on their way"
        );
    }
    let (mark, id, on) = &sent[4];
    stored(&mut app, *mark, id, *on, now);
    let requests = app.take_requests();
    assert!(
        requests.contains(&Request::LoadFeed(FeedFetch::Refill(1))),
        "{requests:?}"
    );
    app.update(
        Action::FeedLoaded {
            epoch: app.epoch,
            fetch: FeedFetch::Refill(1),
            result: Ok(free_page((5..10).map(item).collect(), true)),
        },
        now,
    );
    assert_eq!(app.feed_items().len(), 5, "the allowance is refilled");
    assert_eq!(app.stories.len(), 5);
    assert!(!app.stories_pending);
    let mut now = now;
    for _ in 0..5 {
        now += STEP_LOCK;
        press(&mut app, " ", now);
    }
    assert!(app.drops.paywall, "the paywall after the fifth story");
    assert!(app.pending.is_empty(), "every change was stored");
}

/// Whether `requests` ask for the feed again.
fn refills(requests: &[Request]) -> usize {
    requests
        .iter()
        .filter(|r| matches!(r, Request::LoadFeed(FeedFetch::Refill(_))))
        .count()
}

#[test]
fn a_change_made_while_a_refill_is_on_its_way_is_refilled_after_its_answer() {
    let now = Instant::now();
    let mut app = free();
    press(&mut app, "x", now);
    let sent = set_marks(&app.take_requests());
    stored(&mut app, sent[0].0, &sent[0].1, sent[0].2, now);
    assert_eq!(refills(&app.take_requests()), 1);
    // A second hide settles while that refill is on its way: its answer may not know of
    // it, and answers can come back in any order, so nothing is asked for yet...
    press(&mut app, "x", now);
    let sent = set_marks(&app.take_requests());
    stored(&mut app, sent[0].0, &sent[0].1, sent[0].2, now);
    assert_eq!(refills(&app.take_requests()), 0, "one refill at a time");
    // ...and once the first answer is in, the feed is asked for again.
    let answer = |app: &mut App| {
        let epoch = app.epoch;
        app.update(
            Action::FeedLoaded {
                epoch,
                fetch: FeedFetch::Refill(1),
                result: Ok(free_page((1..6).map(item).collect(), true)),
            },
            now,
        );
    };
    answer(&mut app);
    assert_eq!(
        refills(&app.take_requests()),
        1,
        "asked for after the change"
    );
    answer(&mut app);
    assert_eq!(refills(&app.take_requests()), 0, "and only once");
}

#[test]
fn a_subscriber_who_reads_a_page_gets_the_next_and_read_more_still_works() {
    let now = Instant::now();
    let mut sub = subscriber();
    press(&mut sub, "M", now);
    let _ = sub.take_requests();
    sub.update(
        Action::FeedLoaded {
            epoch: sub.epoch,
            fetch: FeedFetch::Next("c1".into()),
            result: Ok(sub_page((20..40).map(item).collect(), Some("c2"), 64)),
        },
        now,
    );
    assert_eq!(sub.feed.data().unwrap().pages, 2);
    for _ in 0..20 {
        press(&mut sub, "m", now);
    }
    let sent = set_marks(&sub.take_requests());
    for (mark, id, on) in sent {
        stored(&mut sub, mark, &id, on, now);
    }
    let requests = sub.take_requests();
    assert!(
        requests.contains(&Request::LoadFeed(FeedFetch::Refill(2))),
        "both loaded pages are fetched again: {requests:?}"
    );
    sub.update(
        Action::FeedLoaded {
            epoch: sub.epoch,
            fetch: FeedFetch::Refill(2),
            result: Ok(sub_page((20..60).map(item).collect(), Some("c3"), 44)),
        },
        now,
    );
    assert_eq!(sub.feed_items().len(), 40);
    press(&mut sub, "M", now);
    assert_eq!(
        sub.take_requests(),
        vec![Request::LoadFeed(FeedFetch::Next("c3".into()))]
    );
}

#[test]
fn marks_are_exclusive_and_update_at_once() {
    let now = Instant::now();
    let mut app = free();
    press(&mut app, "f", now);
    assert!(app.marks.has(Mark::Favorite, "item-0"));
    let requests = app.take_requests();
    assert!(
        matches!(&requests[0], Request::SavePending(p) if !p.is_empty()),
        "kept before it is sent: {requests:?}"
    );
    assert_eq!(
        set_marks(&requests),
        [(Mark::Favorite, "item-0".into(), true)]
    );
    press(&mut app, "x", now);
    assert!(app.marks.has(Mark::Hidden, "item-0") && !app.marks.has(Mark::Favorite, "item-0"));
    assert_eq!(app.feed_items().len(), 4, "hidden items leave the feed");
    assert_eq!(app.current_item().unwrap().id, "item-1");
    press(&mut app, "m", now);
    assert!(app.marks.has(Mark::Read, "item-1"));
    assert_eq!(app.feed_items().len(), 3, "read items leave the feed");
    app.take_requests();

    // Trash: restore puts the item back in the feed.
    press(&mut app, "6", now);
    app.take_requests();
    assert_eq!(app.list_items(View::Trash).len(), 1);
    press(&mut app, "u", now);
    assert!(app.marks.in_feed("item-0"));
    assert_eq!(
        set_marks(&app.take_requests()),
        [(Mark::Hidden, "item-0".into(), false)]
    );
    stored(&mut app, Mark::Hidden, "item-0", false, now);
    assert_eq!(
        app.status.as_ref().unwrap().text,
        crate::strings::ITEM_RESTORED
    );
    assert_eq!(app.feed_items().len(), 4);

    // Read: f is not offered; m unmarks.
    press(&mut app, "5", now);
    app.take_requests();
    press(&mut app, "f", now);
    assert_eq!(app.status.as_ref().unwrap().text, crate::strings::NOT_HERE);
    press(&mut app, "m", now);
    assert!(!app.marks.has(Mark::Read, "item-1"));
}

#[test]
fn a_refused_mark_warns_and_leaves_the_waiting_file() {
    let now = Instant::now();
    let mut app = free();
    press(&mut app, "6", now);
    app.marks.loaded(Mark::Hidden, vec![item(9)]);
    press(&mut app, "u", now);
    app.take_requests();
    let epoch = app.epoch;
    let err = Err(ApiError {
        status: Some(404),
        message: "No such item".into(),
    });
    app.update(
        Action::MarkSaved {
            epoch,
            mark: Mark::Hidden,
            id: "item-9".into(),
            on: false,
            result: err,
        },
        now,
    );
    assert_eq!(
        app.status.as_ref().unwrap().text,
        crate::strings::RESTORE_FAILED
    );
    assert!(
        !app.marks.has(Mark::Hidden, "item-9"),
        "the local change stays"
    );
    assert!(app.pending.is_empty(), "a refused change is not sent again");
    let requests = app.take_requests();
    assert!(requests.contains(&Request::SavePending(Default::default())));
    assert!(
        requests.contains(&Request::LoadMarks(Mark::Hidden)),
        "Trash is fetched again: {requests:?}"
    );
}

#[test]
fn marks_made_while_the_server_is_down_are_kept_and_sent_when_it_is_back() {
    let now = Instant::now();
    let mut app = free();
    app.recheck_every = Duration::from_secs(5);
    press(&mut app, "m", now);
    app.take_requests();
    let down = ApiError {
        status: None,
        message: "Cannot reach".into(),
    };
    let epoch = app.epoch;
    app.update(
        Action::MarkSaved {
            epoch,
            mark: Mark::Read,
            id: "item-0".into(),
            on: true,
            result: Err(down.clone()),
        },
        now,
    );
    let status = &app.status.as_ref().unwrap().text;
    assert!(status.contains("kept on this computer"), "{status}");
    assert!(app.pending.has_any(app.user_id().unwrap()));
    let requests = app.take_requests();
    assert!(
        !requests
            .iter()
            .any(|r| matches!(r, Request::LoadFeed(_) | Request::LoadMarks(_))),
        "nothing is fetched from a server that is down: {requests:?}"
    );
    // The server's Read list, loaded later, lacks it: the waiting change lies over it.
    app.update(
        Action::MarksLoaded {
            epoch,
            mark: Mark::Read,
            result: Ok(vec![]),
        },
        now,
    );
    assert!(app.marks.has(Mark::Read, "item-0"));
    assert_eq!(app.list_items(View::Read).len(), 1);
    // That list answer was a success: the change goes again at once.
    assert_eq!(
        set_marks(&app.take_requests()),
        [(Mark::Read, "item-0".into(), true)]
    );
    app.update(
        Action::MarkSaved {
            epoch,
            mark: Mark::Read,
            id: "item-0".into(),
            on: true,
            result: Err(down),
        },
        now,
    );
    app.take_requests();
    // And on the re-check tick.
    app.update(Action::Tick, now);
    app.update(Action::Tick, now + Duration::from_secs(5));
    let requests = app.take_requests();
    assert!(requests.contains(&Request::LoadMetadata));
    assert_eq!(set_marks(&requests), [(Mark::Read, "item-0".into(), true)]);
    stored(&mut app, Mark::Read, "item-0", true, now);
    assert!(app.pending.is_empty());
    let requests = app.take_requests();
    assert!(requests.contains(&Request::SavePending(Default::default())));
    assert!(requests.contains(&Request::LoadFeed(FeedFetch::Refill(1))));
}

#[test]
fn waiting_marks_of_another_account_stay_unsent() {
    let mut app = free();
    app.pending.add(crate::pending::PendingMark {
        user_id: "someone-else".into(),
        mark: Mark::Hidden,
        on: true,
        item: item(2),
    });
    feed(&mut app, free_page(items(5), true));
    assert!(set_marks(&app.take_requests()).is_empty());
    assert!(app.marks.in_feed("item-2"));
}

#[test]
fn signed_out_readers_are_asked_to_sign_in_to_mark() {
    let now = Instant::now();
    let mut app = anonymous();
    press(&mut app, "fmx", now);
    assert!(app.take_requests().is_empty());
    assert_eq!(
        app.status.as_ref().unwrap().text,
        crate::strings::sign_in_to_mark("i")
    );
    // Sharing still opens the share link, but records nothing.
    press(&mut app, "s", now);
    let requests = app.take_requests();
    assert_eq!(requests.len(), 1);
    assert!(
        matches!(&requests[0], Request::Open(u) if u.starts_with("https://www.linkedin.com/shareArticle?"))
    );
}

#[test]
fn more_is_for_subscribers() {
    let now = Instant::now();
    let mut app = free();
    press(&mut app, "M", now);
    assert!(app.take_requests().is_empty());
    assert_eq!(
        app.status.as_ref().unwrap().text,
        crate::strings::MORE_IS_PREMIUM,
        "more exist but the server gave no cursor"
    );
    let mut sub = subscriber();
    press(&mut sub, "M", now);
    assert_eq!(
        sub.take_requests(),
        vec![Request::LoadFeed(FeedFetch::Next("c1".into()))]
    );
    press(&mut sub, "M", now);
    assert!(sub.take_requests().is_empty(), "one page at a time");
}

#[test]
fn sign_in_flow() {
    let now = Instant::now();
    let mut app = anonymous();
    press(&mut app, "i", now);
    press(&mut app, "q@example.com", now);
    assert!(!app.quit, "q is a letter in the form");
    app.update(key(KeyCode::Tab), now);
    press(&mut app, "secret1", now);
    app.update(key(KeyCode::Enter), now);
    assert_eq!(
        app.take_requests(),
        vec![Request::SignIn {
            email: "q@example.com".into(),
            password: "secret1".into()
        }]
    );
    let refused = ApiError {
        status: Some(400),
        message: "Invalid login credentials".into(),
    };
    app.update(Action::SignedIn(Err(refused)), now);
    let Overlay::SignIn(form) = &app.overlay else {
        panic!("the form stays open")
    };
    assert_eq!(
        form.error.as_deref(),
        Some("Sign in failed - Invalid login credentials")
    );

    let s = session("q@example.com", false, now_unix() + 3600);
    app.update(Action::SignedIn(Ok(s.clone())), now);
    assert_eq!(app.overlay, Overlay::None);
    assert_eq!(
        app.status.as_ref().unwrap().text,
        crate::strings::WELCOME_BACK
    );
    assert_eq!(app.epoch, 1);
    let requests = app.take_requests();
    assert_eq!(requests[0], Request::SaveSession(Box::new(s)));
    assert!(requests.contains(&Request::LoadFeed(FeedFetch::First)));
    assert!(requests.contains(&Request::LoadMarks(Mark::Favorite)));
    assert!(requests.contains(&Request::LoadShared));
    // An answer to a request of the signed-out session is dropped.
    app.update(
        Action::FeedLoaded {
            epoch: 0,
            fetch: FeedFetch::First,
            result: Ok(free_page(vec![], false)),
        },
        now,
    );
    assert_eq!(app.feed, Load::Loading);
}

fn now_unix() -> i64 {
    now().timestamp()
}

#[test]
fn sign_out_forgets_the_session() {
    let now = Instant::now();
    let mut app = free();
    press(&mut app, "5", now);
    app.take_requests();
    press(&mut app, "O", now);
    assert_eq!(app.take_requests(), vec![Request::SignOut("access".into())]);
    app.update(
        Action::SignedOut(Err(ApiError {
            status: None,
            message: "down".into(),
        })),
        now,
    );
    assert!(
        app.signed_in(),
        "a sign-out the server did not confirm keeps the session"
    );
    assert_eq!(
        app.status.as_ref().unwrap().text,
        crate::strings::SIGN_OUT_FAILED
    );
    app.update(Action::SignedOut(Ok(())), now);
    assert!(!app.signed_in());
    assert_eq!(app.view, View::Feed);
    assert_eq!(
        app.status.as_ref().unwrap().text,
        crate::strings::SIGNED_OUT
    );
    let requests = app.take_requests();
    assert_eq!(requests[0], Request::ForgetSession);
    assert!(requests.contains(&Request::LoadFeed(FeedFetch::First)));
}

#[test]
fn stale_sessions_refresh_before_loading() {
    let now = Instant::now();
    let mut app = App::new(
        "http://x",
        Some(session("a@example.com", false, now_unix() - 10)),
        Theme { color: true },
    );
    app.clock = crate::testing::now();
    app.start();
    assert_eq!(
        app.take_requests(),
        vec![Request::Refresh("refresh".into())]
    );
    let fresh = session("a@example.com", false, now_unix() + 3600);
    app.update(
        Action::Refreshed {
            epoch: 0,
            result: Ok(fresh.clone()),
        },
        now,
    );
    let requests = app.take_requests();
    assert_eq!(requests[0], Request::SaveSession(Box::new(fresh)));
    assert!(requests.contains(&Request::LoadFeed(FeedFetch::First)));

    // A refused refresh ends the session.
    let mut app = App::new(
        "http://x",
        Some(session("a@example.com", false, now_unix() - 10)),
        Theme { color: true },
    );
    app.clock = crate::testing::now();
    app.start();
    app.take_requests();
    let spent = ApiError {
        status: Some(400),
        message: "Invalid Refresh Token".into(),
    };
    app.update(
        Action::Refreshed {
            epoch: 0,
            result: Err(spent),
        },
        now,
    );
    assert!(!app.signed_in());
    assert_eq!(app.take_requests()[0], Request::ForgetSession);
}

#[test]
fn sessions_refresh_on_a_timer_and_after_401() {
    let now = Instant::now();
    let mut app = free();
    app.update(Action::Tick, now);
    assert!(app.take_requests().is_empty());
    app.clock += chrono::Duration::minutes(59) + chrono::Duration::seconds(30);
    app.update(Action::Tick, now);
    assert_eq!(
        app.take_requests(),
        vec![Request::Refresh("refresh".into())]
    );
    app.update(Action::Tick, now);
    assert!(app.take_requests().is_empty(), "one refresh at a time");

    let mut app = free();
    let epoch = app.epoch;
    let expired = Err(ApiError {
        status: Some(401),
        message: "expired".into(),
    });
    app.update(
        Action::MarksLoaded {
            epoch,
            mark: Mark::Read,
            result: expired,
        },
        now,
    );
    assert_eq!(
        app.take_requests(),
        vec![Request::Refresh("refresh".into())]
    );
}

#[test]
fn a_server_that_is_down_can_be_retried() {
    let now = Instant::now();
    let mut app = reader(None, false, true);
    let down = ApiError {
        status: None,
        message: "Cannot reach".into(),
    };
    app.update(
        Action::FeedLoaded {
            epoch: 0,
            fetch: FeedFetch::First,
            result: Err(down.clone()),
        },
        now,
    );
    assert_eq!(app.feed, Load::Failed("Cannot reach".into()));
    press(&mut app, "R", now);
    assert_eq!(app.feed, Load::Loading);
    assert_eq!(
        app.take_requests(),
        vec![Request::LoadFeed(FeedFetch::First)]
    );
    // With a feed on screen, a failed reload keeps it and says so below.
    let mut app = anonymous();
    press(&mut app, "R", now);
    app.update(
        Action::FeedLoaded {
            epoch: 0,
            fetch: FeedFetch::First,
            result: Err(down),
        },
        now,
    );
    assert_eq!(app.feed_items().len(), 5);
    assert!(app.status.as_ref().unwrap().text.contains("Cannot reach"));
}

#[test]
fn status_messages_expire() {
    let now = Instant::now();
    let mut app = anonymous();
    press(&mut app, "f", now);
    assert!(app.status.is_some());
    app.update(Action::Tick, now + STATUS_FOR);
    assert!(app.status.is_none());
}

#[test]
fn lists_are_fetched_again_once_mark_changes_settle() {
    let now = Instant::now();
    let mut app = free();
    press(&mut app, "fjf", now);
    assert_eq!(set_marks(&app.take_requests()).len(), 2);
    let epoch = app.epoch;
    // A list read while changes are in flight may miss them: it is not shown.
    app.update(
        Action::MarksLoaded {
            epoch,
            mark: Mark::Favorite,
            result: Ok(vec![]),
        },
        now,
    );
    assert!(app.marks.has(Mark::Favorite, "item-0") && app.marks.has(Mark::Favorite, "item-1"));
    stored(&mut app, Mark::Favorite, "item-0", true, now);
    assert!(
        !app.take_requests()
            .iter()
            .any(|r| matches!(r, Request::LoadMarks(_))),
        "one change is still on its way"
    );
    stored(&mut app, Mark::Favorite, "item-1", true, now);
    let requests = app.take_requests();
    for mark in crate::marks::MARKS {
        assert!(
            requests.contains(&Request::LoadMarks(mark)),
            "setting a mark clears the others: every list is fetched: {requests:?}"
        );
    }
    assert!(
        !requests.iter().any(|r| matches!(r, Request::LoadFeed(_))),
        "favourites stay in the feed: no refill"
    );
    app.update(
        Action::MarksLoaded {
            epoch,
            mark: Mark::Favorite,
            result: Ok(vec![item(1), item(0)]),
        },
        now,
    );
    assert_eq!(app.list_items(View::Favs).len(), 2);
}

#[test]
fn the_subscription_is_read_again_and_a_change_reloads_the_feed() {
    let now = Instant::now();
    let mut sub = subscriber();
    sub.recheck_every = Duration::from_secs(2);
    sub.update(Action::Tick, now);
    assert!(sub.take_requests().is_empty());
    sub.update(Action::Tick, now + Duration::from_secs(2));
    assert_eq!(
        sub.take_requests(),
        vec![Request::LoadMetadata, Request::LoadAlertCount]
    );
    let meta = |active: bool| radar_api::account::UserMetadata {
        subscription: radar_api::account::SubscriptionStatus {
            is_active: active,
            customer_id: None,
        },
    };
    let epoch = sub.epoch;
    sub.update(
        Action::MetadataLoaded {
            epoch,
            result: Ok(meta(true)),
        },
        now,
    );
    assert!(sub.take_requests().is_empty(), "unchanged: nothing to do");
    sub.update(
        Action::MetadataLoaded {
            epoch,
            result: Ok(meta(false)),
        },
        now,
    );
    assert!(!sub.subscriber());
    assert_eq!(
        sub.take_requests(),
        vec![Request::LoadFeed(FeedFetch::First)]
    );
    assert_eq!(
        sub.status.as_ref().unwrap().text,
        crate::strings::NO_LONGER_PREMIUM
    );
    // A 403 from a subscriber's call asks at once.
    let mut sub = subscriber();
    press(&mut sub, "t", now);
    assert_eq!(
        sub.take_requests(),
        vec![Request::LoadTakeaways("item-0".into())]
    );
    sub.update(
        Action::TakeawaysLoaded {
            epoch: sub.epoch,
            id: "item-0".into(),
            result: Err(ApiError {
                status: Some(403),
                message: "Key takeaways are for subscribers.".into(),
            }),
        },
        now,
    );
    assert_eq!(sub.take_requests(), vec![Request::LoadMetadata]);
    let Overlay::Takeaways(overlay) = &sub.overlay else {
        panic!("the overlay stays with its error")
    };
    assert!(matches!(&overlay.takeaways, Load::Failed(e) if e.contains("403")));
}

#[test]
fn a_feed_answer_decides_the_subscription_too() {
    let now = Instant::now();
    let mut app = free();
    assert!(!app.subscriber());
    feed(&mut app, sub_page(items(20), Some("c1"), 64));
    assert!(app.subscriber());
    // A next page answered for a reader who is no longer one: start over.
    press(&mut app, "M", now);
    app.take_requests();
    app.update(
        Action::FeedLoaded {
            epoch: app.epoch,
            fetch: FeedFetch::Next("c1".into()),
            result: Ok(free_page(items(5), true)),
        },
        now,
    );
    assert!(!app.subscriber());
    assert_eq!(
        app.take_requests(),
        vec![Request::LoadFeed(FeedFetch::First)]
    );
}

#[test]
fn the_reader_opens_scrolls_acts_and_goes_back() {
    let now = Instant::now();
    let mut app = free();
    app.update(Action::Resize(80, 24), now);
    app.update(key(KeyCode::Enter), now);
    let reader = app.reader.as_ref().expect("Enter opens the reader");
    assert_eq!(
        (reader.item.id.as_str(), reader.from),
        ("item-0", View::Feed)
    );
    press(&mut app, "jjj", now);
    assert_eq!(app.reader.as_ref().unwrap().scroll, 3);
    press(&mut app, "G", now);
    let bottom = app.reader.as_ref().unwrap().scroll;
    assert!(bottom > 20, "thirty paragraphs scroll far: {bottom}");
    press(&mut app, "j", now);
    assert_eq!(
        app.reader.as_ref().unwrap().scroll,
        bottom,
        "not past the end"
    );
    app.update(key(KeyCode::PageUp), now);
    assert_eq!(app.reader.as_ref().unwrap().scroll, bottom - 17);
    press(&mut app, " ", now);
    assert_eq!(app.reader.as_ref().unwrap().scroll, bottom);
    press(&mut app, "g", now);
    assert_eq!(app.reader.as_ref().unwrap().scroll, 0);
    // A larger terminal needs less scrolling.
    app.update(Action::Resize(200, 60), now);
    assert!(app.reader.as_ref().unwrap().scroll <= bottom);
    // The view's actions work here.
    press(&mut app, "f", now);
    assert!(app.marks.has(Mark::Favorite, "item-0"));
    press(&mut app, "q", now);
    assert!(
        app.reader.is_none() && !app.quit,
        "q goes back from the reader"
    );
    // Drops: Enter reads the story; TV: the slideshow waits while it is open.
    press(&mut app, "2", now);
    app.update(key(KeyCode::Enter), now);
    assert_eq!(app.reader.as_ref().unwrap().from, View::Drops);
    app.update(key(KeyCode::Esc), now);
    press(&mut app, "3", now);
    app.update(key(KeyCode::Enter), now);
    app.update(Action::Tick, now);
    app.update(Action::Tick, now + Duration::from_secs(60));
    assert_eq!(app.tv.index, 0);
}

#[test]
fn takeaways_come_from_the_server() {
    let now = Instant::now();
    let mut free = free();
    press(&mut free, "t", now);
    assert_eq!(free.overlay, Overlay::None);
    assert!(free.take_requests().is_empty());
    let mut sub = subscriber();
    press(&mut sub, "t", now);
    let Overlay::Takeaways(overlay) = &sub.overlay else {
        panic!("t opens the overlay")
    };
    assert_eq!(overlay.takeaways, Load::Loading);
    let answer = Takeaways {
        item_id: "item-0".into(),
        cards: vec![],
        summary: "This story matters most for you.".into(),
        personalized: true,
    };
    sub.update(
        Action::TakeawaysLoaded {
            epoch: sub.epoch,
            id: "item-0".into(),
            result: Ok(answer.clone()),
        },
        now,
    );
    let Overlay::Takeaways(overlay) = &sub.overlay else {
        panic!("still open")
    };
    assert_eq!(overlay.takeaways, Load::Loaded(answer));
}

#[test]
fn the_alerts_view_lists_what_the_alerts_found_and_clears_the_badge() {
    let now = Instant::now();
    let mut app = free();
    let epoch = app.epoch;
    app.update(
        Action::AlertCountLoaded {
            epoch,
            result: Ok(radar_api::alerts::AlertList {
                alerts: Vec::new(),
                limit: 1,
                unseen: 2,
            }),
        },
        now,
    );
    assert_eq!(app.alerts_unseen, Some(2));
    press(&mut app, "8", now);
    assert_eq!(app.view, View::Alerts);
    assert_eq!(app.take_requests(), vec![Request::LoadAlertHits]);
    let hit = |n: usize| radar_api::alerts::AlertHit {
        alert_id: "a1".into(),
        query: "open weights".into(),
        matched_at: chrono::Utc::now(),
        seen: false,
        item: item(n),
    };
    app.update(
        Action::AlertHitsLoaded {
            epoch,
            result: Ok(radar_api::alerts::AlertHits {
                items: vec![hit(1), hit(2)],
            }),
        },
        now,
    );
    assert_eq!(app.list_items(View::Alerts).len(), 2);
    assert_eq!(app.alerts_unseen, Some(0), "listed, they are seen");
    assert!(ItemAction::Favorite.allowed_in(View::Alerts));
    assert!(!ItemAction::Restore.allowed_in(View::Alerts));
    // Signed out, the tab is not offered.
    assert!(!anonymous().tabs().contains(&View::Alerts));
}
