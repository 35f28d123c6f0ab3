//! Key handling and state transitions of [`App`](super::App).

use std::time::{Duration, Instant};

use radar_api::Mark;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::*;
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
    app.update(key(KeyCode::Enter), now);
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
    // Held keys within 300 ms of a step do nothing.
    let mut app2 = free();
    press(&mut app2, "2", now);
    press(&mut app2, "jjj", now);
    assert_eq!(app2.drops.index, 1);
    // Opening Drops again starts from the first story.
    press(&mut app, "12", now);
    assert_eq!((app.drops.index, app.drops.paywall), (0, false));
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
        vec![Request::LoadFeed {
            cursor: Some("c1".into())
        }]
    );
    let more = page((20..40).map(item).collect(), 20, false, None);
    app.update(
        Action::FeedLoaded {
            epoch: app.epoch,
            append: true,
            result: Ok(more),
        },
        now,
    );
    assert_eq!(app.stories.len(), 40);
    assert_eq!(app.feed_items().len(), 40);
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
fn tv_mode_shows_free_readers_five() {
    let mut app = free();
    feed(&mut app, page(items(9), 5, true, None));
    press(&mut app, "3", Instant::now());
    assert_eq!(app.tv_stories().len(), 5);
    let mut sub = subscriber();
    press(&mut sub, "3", Instant::now());
    assert_eq!(sub.tv_stories().len(), 20);
}

#[test]
fn marks_are_exclusive_and_update_at_once() {
    let now = Instant::now();
    let mut app = free();
    press(&mut app, "f", now);
    assert!(app.marks.has(Mark::Favorite, "item-0"));
    assert_eq!(
        app.take_requests(),
        vec![Request::SetMark {
            mark: Mark::Favorite,
            id: "item-0".into(),
            on: true
        }]
    );
    press(&mut app, "x", now);
    assert!(app.marks.has(Mark::Hidden, "item-0") && !app.marks.has(Mark::Favorite, "item-0"));
    assert_eq!(app.feed_items().len(), 4, "hidden items leave the feed");
    assert_eq!(app.current_item().unwrap().id, "item-1");
    press(&mut app, "r", now);
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
        app.take_requests(),
        vec![Request::SetMark {
            mark: Mark::Hidden,
            id: "item-0".into(),
            on: false
        }]
    );
    let epoch = app.epoch;
    app.update(
        Action::MarkSaved {
            epoch,
            mark: Mark::Hidden,
            id: "item-0".into(),
            on: false,
            result: Ok(()),
        },
        now,
    );
    assert_eq!(
        app.status.as_ref().unwrap().text,
        crate::strings::ITEM_RESTORED
    );
    assert!(
        app.take_requests().is_empty(),
        "the item is in the loaded feed: no reload"
    );
    assert_eq!(app.feed_items().len(), 4);

    // Read: f is not offered; r unmarks.
    press(&mut app, "5", now);
    app.take_requests();
    press(&mut app, "f", now);
    assert_eq!(app.status.as_ref().unwrap().text, crate::strings::NOT_HERE);
    press(&mut app, "r", now);
    assert!(!app.marks.has(Mark::Read, "item-1"));
}

#[test]
fn failed_mark_keeps_the_local_change_and_warns() {
    let now = Instant::now();
    let mut app = free();
    press(&mut app, "6", now);
    app.marks.loaded(Mark::Hidden, vec![item(9)]);
    press(&mut app, "u", now);
    app.take_requests();
    let epoch = app.epoch;
    let err = Err(ApiError {
        status: Some(500),
        message: "x".into(),
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
    assert!(!app.marks.has(Mark::Hidden, "item-9"));
    assert!(
        app.take_requests()
            .iter()
            .all(|r| !matches!(r, Request::LoadMarks(_))),
        "a failed change does not fetch the list that lacks it"
    );
    // A restore of an item the loaded feed lacks reloads the feed.
    app.marks.loaded(Mark::Hidden, vec![item(9)]);
    press(&mut app, "u", now);
    app.take_requests();
    app.update(
        Action::MarkSaved {
            epoch,
            mark: Mark::Hidden,
            id: "item-9".into(),
            on: false,
            result: Ok(()),
        },
        now,
    );
    let requests = app.take_requests();
    assert!(
        requests.contains(&Request::LoadFeed { cursor: None }),
        "{requests:?}"
    );
    assert!(
        requests.contains(&Request::LoadMarks(Mark::Hidden)),
        "Trash is fetched again"
    );
}

#[test]
fn signed_out_readers_are_asked_to_sign_in_to_mark() {
    let now = Instant::now();
    let mut app = anonymous();
    press(&mut app, "frx", now);
    assert!(app.take_requests().is_empty());
    assert_eq!(
        app.status.as_ref().unwrap().text,
        crate::strings::SIGN_IN_TO_MARK
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
    press(&mut app, "m", now);
    assert!(app.take_requests().is_empty());
    assert_eq!(
        app.status.as_ref().unwrap().text,
        crate::strings::MORE_IS_PREMIUM
    );
    let mut sub = subscriber();
    press(&mut sub, "m", now);
    assert_eq!(
        sub.take_requests(),
        vec![Request::LoadFeed {
            cursor: Some("c1".into())
        }]
    );
    press(&mut sub, "m", now);
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
    assert!(requests.contains(&Request::LoadFeed { cursor: None }));
    assert!(requests.contains(&Request::LoadMarks(Mark::Favorite)));
    assert!(requests.contains(&Request::LoadShared));
    // An answer to a request of the signed-out session is dropped.
    app.update(
        Action::FeedLoaded {
            epoch: 0,
            append: false,
            result: Ok(page(vec![], 5, false, None)),
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
    assert!(requests.contains(&Request::LoadFeed { cursor: None }));
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
    assert!(requests.contains(&Request::LoadFeed { cursor: None }));

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
            append: false,
            result: Err(down.clone()),
        },
        now,
    );
    assert_eq!(app.feed, Load::Failed("Cannot reach".into()));
    press(&mut app, "R", now);
    assert_eq!(app.feed, Load::Loading);
    assert_eq!(
        app.take_requests(),
        vec![Request::LoadFeed { cursor: None }]
    );
    // With a feed on screen, a failed reload keeps it and says so below.
    let mut app = anonymous();
    press(&mut app, "R", now);
    app.update(
        Action::FeedLoaded {
            epoch: 0,
            append: false,
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
    assert_eq!(app.take_requests().len(), 2);
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
    let saved = |id: &str| Action::MarkSaved {
        epoch,
        mark: Mark::Favorite,
        id: id.into(),
        on: true,
        result: Ok(()),
    };
    app.update(saved("item-0"), now);
    assert!(
        app.take_requests().is_empty(),
        "one change is still on its way"
    );
    app.update(saved("item-1"), now);
    assert_eq!(
        app.take_requests(),
        vec![Request::LoadMarks(Mark::Favorite)]
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
