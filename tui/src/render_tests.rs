//! Render tests: each view and state drawn into ratatui's `TestBackend` at 80x24 and
//! 120x40, asserting on the text on screen (one whole screen as a fixture, key lines
//! elsewhere).

use std::time::{Duration, Instant};

use radar_api::{Mark, SharedItem};

use crate::api::ApiError;
use crate::app::{Action, App, View};
use crate::load::Load;
use crate::testing::*;
use crate::widgets::sign_in::SignInState;

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

fn at_both(app: &App, check: impl Fn(&[String], u16)) {
    for (w, h) in SIZES {
        let s = screen(app, w, h);
        assert_eq!(s.len(), h as usize);
        check(&s, w);
    }
}

fn go(app: &mut App, view: View) {
    app.switch_to(view, Instant::now());
    app.take_requests();
}

fn down() -> ApiError {
    ApiError {
        status: None,
        message: crate::strings::unreachable("http://127.0.0.1:8080"),
    }
}

const ANONYMOUS_FEED_80X24: &str = "
 Radar                                               Not signed in · i: sign in 
 1 Feed │ 2 Drops │ 3 TV                                                        
╭ Feed ────────────────────────────────────────────────────────────────────────╮
│▶   just now       Example0    Story number 0 about models                    │
│    1 hour ago     Example1    Story number 1 about models                    │
│    2 hours ago    Source      Story number 2 about models                    │
│    3 hours ago    Example3    Story number 3 about models                    │
│    4 hours ago    Example4    Story number 4 about models                    │
╰ Subscribe Now: http://127.0.0.1:8080/subscribe ──────────────────────────────╯
╭──────────────────────────────────────────────────────────────────────────────╮
│Story number 0 about models                                                   │
│Example0 · Jun 15, 2026 · just now                                            │
│                                                                              │
│Summary of story 0. It explains what happened and why it matters.             │
│                                                                              │
│More: https://www.example0.com/story                                          │
│                                                                              │
│                                                                              │
│                                                                              │
│                                                                              │
│                                                                              │
│                                                                              │
╰ Enter full text · o open · f favourite · m read · x hide · s share ──────────╯
 ?: help · q: quit                                                              ";

#[test]
fn signed_out_free_capped_feed_whole_screen() {
    let expected: Vec<&str> = ANONYMOUS_FEED_80X24.lines().skip(1).collect();
    assert_eq!(screen(&anonymous(), 80, 24), expected);
}

#[test]
fn signed_out_feed_at_both_sizes() {
    at_both(&anonymous(), |s, w| {
        assert!(s[0].contains("Radar") && s[0].contains("Not signed in"));
        assert!(
            s[1].contains("1 Feed") && s[1].contains("3 TV") && !s[1].contains("Favs"),
            "no signed-in tabs"
        );
        // Citation markers are stripped from titles and summaries.
        assert_hides(s, "[1]");
        assert_hides(s, "[2]");
        assert_shows(s, "Subscribe Now: http://127.0.0.1:8080/subscribe");
        // Below 140 columns the detail pane goes under the list: headlines keep room.
        assert_shows(
            s,
            "Summary of story 0. It explains what happened and why it matters.",
        );
        assert!(
            s[3].contains("Story number 0") && s[3].matches('│').count() == 2,
            "{}",
            s[3]
        );
        let _ = w;
    });
}

#[test]
fn free_reader_feed_shows_what_the_server_sent() {
    let app = free();
    at_both(&app, |s, _| {
        assert!(
            s[0].contains("free@example.com")
                && s[0].starts_with(" Radar ")
                && !s[0].contains("Premium")
        );
        assert!(s[1].contains("4 Favs") && s[1].contains("7 Shared"));
        assert_shows(s, "Story number 4");
        assert_hides(s, "Story number 5");
        assert_shows(s, "Subscribe Now");
        assert_hides(s, "Read More");
        assert_shows(
            s,
            "Enter full text · o open · f favourite · m read · x hide · s share",
        );
    });
}

#[test]
fn subscriber_feed_offers_read_more() {
    at_both(&subscriber(), |s, _| {
        assert!(s[0].contains("Radar Premium") && s[0].contains("sub@example.com"));
        assert_shows(s, "M: Read More");
        assert_hides(s, "Subscribe Now");
    });
    let mut app = subscriber();
    app.selected[0] = 19;
    at_both(&app, |s, _| assert_shows(s, "Story number 19"));
}

#[test]
fn feed_loading_error_and_empty() {
    let loading = reader(None, false, true);
    at_both(&loading, |s, _| {
        assert_shows(s, "Loading news…");
        assert_eq!(
            s.iter().filter(|l| l.contains("░░░░")).count(),
            5,
            "five placeholders"
        );
    });

    let mut failed = reader(None, false, true);
    failed.update(
        Action::FeedLoaded {
            epoch: 0,
            fetch: crate::app::FeedFetch::First,
            result: Err(down()),
        },
        Instant::now(),
    );
    at_both(&failed, |s, _| {
        assert_shows(s, "Error loading news");
        assert_shows(
            s,
            "Cannot reach the Radar server at http://127.0.0.1:8080. Is `radar serve` running?",
        );
        assert_shows(s, "Press r to try again.");
    });

    let mut empty = reader(None, false, true);
    feed(&mut empty, free_page(vec![], false));
    at_both(&empty, |s, _| {
        assert_shows(s, "No news items available");
        assert_hides(s, "Subscribe Now");
    });
}

#[test]
fn favs_signed_out_empty_error_and_items() {
    let mut signed_out = anonymous();
    signed_out.view = View::Favs;
    at_both(&signed_out, |s, _| {
        assert_shows(s, "Please Sign In");
        assert_shows(s, "Press i to sign in and keep your favourite stories.");
    });
    for view in [View::Read, View::Trash, View::Shared] {
        signed_out.view = view;
        at_both(&signed_out, |s, _| {
            assert_shows(s, "Please Sign In");
            assert_shows(s, &format!("Sign in to see {} (press i).", view.label()));
        });
    }

    let mut app = free();
    go(&mut app, View::Favs);
    app.marks.loaded(Mark::Favorite, vec![]);
    at_both(&app, |s, _| assert_shows(s, "No Favs Yet"));
    app.marks.failed(Mark::Favorite, String::new());
    at_both(&app, |s, _| {
        assert_shows(s, "Failed to load favs. Please try again later.");
    });
    app.marks.failed(Mark::Favorite, "boom".into());
    at_both(&app, |s, _| assert_shows(s, "boom"));
    app.marks.loaded(Mark::Favorite, vec![item(3)]);
    at_both(&app, |s, _| {
        assert_shows(s, "3 hours ago Example3 Story number 3");
        assert!(s[3].contains("▶ ♥ "), "{}", s[3]);
        // Favs offers favourite, hide and share, not read or restore.
        assert_shows(
            s,
            "Enter full text · o open · f unfavourite · x hide · s share",
        );
    });
}

#[test]
fn read_trash_and_shared_states() {
    let cases = [
        (View::Read, "No read items", "Error loading read items"),
        (View::Trash, "Trash is empty", "Error loading hidden items"),
        (
            View::Shared,
            "No shared items",
            "Error loading shared items",
        ),
    ];
    for (view, empty, error) in cases {
        let mut app = free();
        go(&mut app, view);
        at_both(&app, |s, _| assert_shows(s, empty));
        match view.mark() {
            Some(mark) => app.marks.failed(mark, "503: down".into()),
            None => app.shared = Load::Failed("503: down".into()),
        }
        at_both(&app, |s, _| {
            assert_shows(s, error);
            assert_shows(s, "503: down");
            assert_shows(s, "Press r to try again.");
        });
        match view.mark() {
            Some(_) => app.marks = Default::default(),
            None => app.shared = Load::Loading,
        }
        at_both(&app, |s, _| assert_shows(s, "Loading…"));
    }
}

#[test]
fn trash_offers_restore_and_shared_says_when() {
    let mut app = free();
    go(&mut app, View::Trash);
    app.marks.loaded(Mark::Hidden, vec![item(1)]);
    at_both(&app, |s, _| {
        assert_shows(s, "u Restore");
        assert_hides(s, "s share");
        assert_hides(s, "More:");
    });
    go(&mut app, View::Shared);
    let shared = SharedItem {
        item: item(2),
        shared_at: now() - chrono::Duration::hours(3),
        platform: "linkedin".into(),
    };
    app.shared = Load::Loaded(vec![shared]);
    at_both(&app, |s, _| {
        assert_shows(s, "Shared on LinkedIn 3 hours ago");
        assert_shows(s, "No source URL");
        assert_shows(
            s,
            "Enter full text · o open · f favourite · m read · s share",
        );
    });
}

#[test]
fn drops_story_dots_and_source() {
    let mut app = anonymous();
    go(&mut app, View::Drops);
    at_both(&app, |s, _| {
        assert_shows(s, "● ○ ○ ○ ○");
        assert_shows(s, "EXAMPLE0");
        // Item 0 has a short text: Drops shows it instead of the summary.
        assert_shows(s, "Short text of story 0.");
        assert_hides(s, "Summary of story 0");
        assert_shows(s, "More (o): https://www.example0.com/story");
        assert_shows(s, "1 / 5");
    });
    // Item 1: no short text (summary shown); item 2: no URL.
    app.drops.index = 1;
    at_both(&app, |s, _| assert_shows(s, "Summary of story 1."));
    app.drops.index = 2;
    at_both(&app, |s, _| {
        assert_shows(s, "SOURCE");
        assert_shows(s, "No source URL");
        assert_shows(s, "○ ○ ● ○ ○");
    });
}

#[test]
fn drops_show_seven_dots_and_a_trailing_one() {
    let mut app = subscriber();
    go(&mut app, View::Drops);
    app.drops.index = 9;
    at_both(&app, |s, _| {
        assert_shows(s, "○ ○ ○ ○ ○ ○ ○ •");
        assert_shows(s, "10 / 20");
    });
}

#[test]
fn drops_paywall_and_empty() {
    let mut app = free();
    go(&mut app, View::Drops);
    app.drops.index = 4;
    app.drops.paywall = true;
    at_both(&app, |s, _| {
        assert_shows(s, "Premium Content");
        assert_shows(
            s,
            "You've reached the free limit of 5 stories. Subscribe now to unlock unlimited access to all AI news.",
        );
        assert_shows(s, "Subscribe Now: http://127.0.0.1:8080/subscribe");
        assert_shows(
            s,
            "Premium members get unlimited drops, priority updates and exclusive AI insights.",
        );
    });
    let mut empty = reader(None, false, true);
    feed(&mut empty, free_page(vec![], false));
    go(&mut empty, View::Drops);
    at_both(&empty, |s, _| assert_shows(s, "No news items available"));
}

#[test]
fn tv_mode_position_countdown_and_pause() {
    let mut app = subscriber();
    go(&mut app, View::Tv);
    at_both(&app, |s, _| {
        assert_shows(s, "1 of 64");
        assert_shows(s, "Next in 10s");
        assert_shows(s, "Story number 0 about models");
        assert_shows(
            s,
            "Space: Pause · t: interval 10s · n/p: next/previous · Esc: Exit TV Mode",
        );
    });
    app.tv.tick(Duration::from_millis(3_500), 20, false);
    app.tv.toggle_pause();
    at_both(&app, |s, _| {
        assert_shows(s, "Paused");
        assert_hides(s, "Next in");
        assert_shows(s, "Space: Resume");
        assert!(s.iter().any(|l| l.contains('█')), "the gauge has run");
    });
    // A free reader's TV mode counts the five stories the server gave.
    let mut free = free();
    go(&mut free, View::Tv);
    at_both(&free, |s, _| assert_shows(s, "1 of 5"));
}

#[test]
fn help_and_sign_in_overlays() {
    let mut app = anonymous();
    app.update(ch('?'), Instant::now());
    at_both(&app, |s, _| {
        assert_shows(s, "Keys");
        assert_shows(s, "Everywhere");
        assert_shows(s, "j/k: scroll · Esc: close");
    });
    app.update(key(ratatui::crossterm::event::KeyCode::Esc), Instant::now());
    app.update(ch('i'), Instant::now());
    for c in "me@example.com".chars() {
        app.update(ch(c), Instant::now());
    }
    at_both(&app, |s, _| {
        assert_shows(s, "Sign in");
        assert_shows(s, "E-mail me@example.com");
        assert_shows(s, "Tab: next field · Enter: sign in · Esc: cancel");
    });
    if let crate::app::Overlay::SignIn(form) = &mut app.overlay {
        *form = SignInState {
            password: "hunter22".into(),
            ..form.clone()
        };
        form.failed("Sign in failed - Invalid login credentials".into());
        form.password = "abc".into();
    }
    at_both(&app, |s, _| {
        assert_shows(s, "Sign in failed - Invalid login credentials");
        assert_shows(s, "Password •••");
        assert_hides(s, "abc");
    });
}

#[test]
fn status_line_shows_messages() {
    let mut app = free();
    app.update(ch('f'), Instant::now());
    at_both(&app, |s, _| {
        assert!(s.last().unwrap().contains("Added to Favs"));
    });
    let epoch = app.epoch;
    let failed = Err(ApiError {
        status: Some(500),
        message: "x".into(),
    });
    app.update(
        Action::MarkSaved {
            epoch,
            mark: Mark::Favorite,
            id: "item-0".into(),
            on: true,
            result: failed,
        },
        Instant::now(),
    );
    at_both(&app, |s, _| {
        let status = words(&s[s.len() - 2..]);
        assert!(status.contains(
            "Warning - Server had issues saving your favorite, but your app state has been updated."
        ));
    });
}

#[test]
fn without_colour_nothing_is_coloured() {
    for app in [reader(None, false, false), {
        let mut a = reader(Some("a@example.com"), true, false);
        feed(&mut a, sub_page(items(20), Some("c"), 64));
        a.selected[0] = 2;
        a
    }] {
        for view in [View::Feed, View::Drops, View::Tv] {
            let mut app_view = clone_app(&app);
            app_view.view = view;
            app_view.stories = app_view
                .feed
                .data()
                .map(|f| f.items.clone())
                .unwrap_or_default();
            let mut terminal =
                ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24)).unwrap();
            terminal.draw(|f| crate::ui::render(f, &app_view)).unwrap();
            for cell in &terminal.backend().buffer().content {
                assert_eq!(
                    cell.fg,
                    ratatui::style::Color::Reset,
                    "coloured cell {cell:?} in {view:?}"
                );
                assert_eq!(
                    cell.bg,
                    ratatui::style::Color::Reset,
                    "coloured cell {cell:?} in {view:?}"
                );
            }
        }
    }
}

/// A copy of the parts of a reader that rendering reads.
fn clone_app(app: &App) -> App {
    let mut copy = App::new(&app.server, app.session.clone(), app.theme);
    copy.feed = app.feed.clone();
    copy.clock = app.clock;
    copy.selected = app.selected;
    copy
}

#[test]
fn narrow_screens_cut_hints_not_positions() {
    let mut app = anonymous();
    go(&mut app, View::Drops);
    let s = screen(&app, 50, 15);
    assert!(
        s.iter().any(|l| l.contains("│1 / 5  Space: next")),
        "{}",
        s.join("\n")
    );
    go(&mut app, View::Tv);
    let s = screen(&app, 50, 15);
    assert!(s.iter().any(|l| l.contains("│ 1 of 5")), "{}", s.join("\n"));
    assert!(
        s.iter()
            .any(|l| l.contains("Space: Pause") && l.contains('…')),
        "{}",
        s.join("\n")
    );
}

#[test]
fn drops_and_tv_loading_error_and_empty() {
    for view in [View::Drops, View::Tv] {
        let mut loading = reader(None, false, true);
        go(&mut loading, view);
        at_both(&loading, |s, _| assert_shows(s, "Loading news…"));

        let mut failed = reader(None, false, true);
        go(&mut failed, view);
        failed.update(
            Action::FeedLoaded {
                epoch: 0,
                fetch: crate::app::FeedFetch::First,
                result: Err(down()),
            },
            Instant::now(),
        );
        at_both(&failed, |s, _| {
            assert_shows(s, "Error loading news");
            assert_shows(s, "Cannot reach the Radar server");
            assert_shows(s, "Press r to try again.");
        });

        let mut empty = reader(None, false, true);
        go(&mut empty, view);
        feed(&mut empty, free_page(vec![], false));
        at_both(&empty, |s, _| {
            assert_shows(s, "No news items available");
            assert_hides(s, "Next in");
        });

        // The feed arriving while the view is open fills it.
        feed(&mut empty, free_page(items(5), true));
        at_both(&empty, |s, _| assert_shows(s, "Short text of story 0."));
    }
}

#[test]
fn tiny_terminals_never_panic() {
    let mut apps = vec![anonymous(), subscriber(), reader(None, false, true)];
    let mut with_help = free();
    with_help.update(ch('?'), Instant::now());
    apps.push(with_help);
    let mut signing_in = free();
    signing_in.session = None;
    signing_in.update(ch('i'), Instant::now());
    apps.push(signing_in);
    let mut takeaways = subscriber();
    takeaways.update(ch('t'), Instant::now());
    apps.push(takeaways);
    let mut paywall = free();
    go(&mut paywall, View::Drops);
    paywall.drops.paywall = true;
    apps.push(paywall);
    for mut app in apps {
        for view in View::ALL {
            app.view = view;
            for (w, h) in [(1, 1), (2, 3), (10, 5), (20, 8), (40, 10), (60, 15)] {
                screen(&app, w, h);
            }
        }
    }
}

#[test]
fn key_takeaways_draw_the_servers_answer() {
    let mut free = free();
    free.update(ch('t'), Instant::now());
    assert_eq!(free.overlay, crate::app::Overlay::None);
    at_both(&free, |s, _| {
        assert_shows(s, "Key takeaways are for subscribers.");
    });

    let mut app = subscriber();
    app.update(ch('t'), Instant::now());
    at_both(&app, |s, _| {
        assert_shows(s, "Personalized Key Takeaways");
        assert_shows(s, "Story number 0 about models");
        assert_shows(s, "Loading key takeaways…");
    });
    let answer = radar_api::Takeaways {
        item_id: "item-0".into(),
        cards: vec![radar_api::TakeawayCard {
            title: "Model Strategy".into(),
            tags: vec!["Models".into(), "Strategy".into()],
            description: "Weigh which models your team depends on.".into(),
        }],
        summary: "This story matters most for model strategy.".into(),
        personalized: true,
    };
    let epoch = app.epoch;
    app.update(
        Action::TakeawaysLoaded {
            epoch,
            id: "item-0".into(),
            result: Ok(answer),
        },
        Instant::now(),
    );
    at_both(&app, |s, _| {
        assert_shows(s, "Model Strategy [Models] [Strategy]");
        assert_shows(s, "Weigh which models your team depends on.");
        assert_shows(s, "This story matters most for model strategy.");
        assert_shows(s, "Esc: Close");
    });
    app.update(
        Action::TakeawaysLoaded {
            epoch,
            id: "item-0".into(),
            result: Err(down()),
        },
        Instant::now(),
    );
    at_both(&app, |s, _| {
        assert_shows(s, "Key takeaways could not be loaded");
        assert_shows(s, "Cannot reach the Radar server");
    });
    app.update(key(ratatui::crossterm::event::KeyCode::Esc), Instant::now());
    assert_eq!(app.overlay, crate::app::Overlay::None);
    // Feed only: in Favs the key does nothing.
    go(&mut app, View::Favs);
    app.marks.loaded(Mark::Favorite, vec![item(1)]);
    app.update(ch('t'), Instant::now());
    assert_eq!(app.overlay, crate::app::Overlay::None);
}

#[test]
fn the_reader_shows_the_full_text_and_scrolls() {
    let mut app = free();
    for (w, h) in [(80, 24), (120, 40)] {
        app.update(Action::Resize(w, h), Instant::now());
        app.update(
            key(ratatui::crossterm::event::KeyCode::Enter),
            Instant::now(),
        );
        let s = screen(&app, w, h);
        assert_shows(&s, "Story number 0 about models");
        assert_shows(&s, "Example0 · Jun 15, 2026 · just now");
        assert_shows(&s, "Paragraph 1 of story 0: what was said and by whom.");
        assert_hides(&s, "Paragraph 30 of story 0");
        assert_shows(
            &s,
            "j/k scroll · o open · f favourite · m read · x hide · s share · Esc back",
        );
        // The position, in the reader's bottom border (the row of its key hints).
        let border = |s: &[String]| s.iter().find(|l| l.contains("Esc back")).unwrap().clone();
        assert!(border(&s).contains(" Top "), "{w}x{h}: {}", border(&s));
        app.update(ch('j'), Instant::now());
        let row = border(&screen(&app, w, h));
        assert!(
            row.contains("% ") && !row.contains(" Top ") && !row.contains(" Bot "),
            "{w}x{h}: {row}"
        );
        app.update(ch('G'), Instant::now());
        let s = screen(&app, w, h);
        assert!(border(&s).contains(" Bot "), "{w}x{h}: {}", border(&s));
        assert_shows(&s, "Paragraph 30 of story 0");
        assert_shows(&s, "More: https://www.example0.com/story");
        assert_hides(&s, "Paragraph 1 of story 0:");
        app.update(ch('q'), Instant::now());
    }
    // Without a full text, the summary with a note.
    app.update(ch('j'), Instant::now());
    app.update(
        key(ratatui::crossterm::event::KeyCode::Enter),
        Instant::now(),
    );
    at_both(&app, |s, _| {
        assert_shows(s, crate::strings::NO_CONTENT);
        assert_shows(s, "Summary of story 1.");
    });
}

#[test]
fn headlines_keep_forty_columns_at_every_width() {
    let mut app = subscriber();
    for item in &mut app.feed.data_mut().unwrap().items {
        item.title = format!(
            "{} {}",
            item.title, "and a long headline that goes on and on"
        );
    }
    for (w, h) in [(80, 24), (100, 30), (140, 40), (200, 60)] {
        let s = screen(&app, w, h);
        let row = s
            .iter()
            .find(|l| l.contains("Story number 1 about"))
            .unwrap();
        let at = row.find("Story number 1").unwrap();
        let shown: String = row[at..].chars().take_while(|c| *c != '│').collect();
        assert!(shown.chars().count() >= 40, "{w}x{h}: {row}");
        if w >= 200 {
            assert!(
                row.contains("Jun 15, 2026") && row.contains("1 hour ago"),
                "{row}"
            );
        }
        if w == 80 {
            assert!(
                !row.contains("Jun 15, 2026") && row.contains("Example1"),
                "{row}"
            );
        }
    }
}

#[test]
fn help_scrolls_on_short_terminals() {
    let mut app = anonymous();
    app.update(Action::Resize(60, 14), Instant::now());
    app.update(ch('?'), Instant::now());
    let top = screen(&app, 60, 14);
    assert_shows(&top, "Everywhere");
    assert_hides(&top, "This help");
    for _ in 0..200 {
        app.update(ch('j'), Instant::now());
    }
    let bottom = screen(&app, 60, 14);
    assert_shows(&bottom, "This help");
    assert_hides(&bottom, "Everywhere");
    assert_shows(&bottom, "j/k: scroll");
}

#[test]
fn search_results_draw_the_servers_highlights() {
    let mut app = free();
    type_text(&mut app, "/story");
    at_both(&app, |s, _| {
        assert_shows(s, "/story Enter: search · Esc: cancel");
    });
    app.update(
        key(ratatui::crossterm::event::KeyCode::Enter),
        Instant::now(),
    );
    at_both(&app, |s, _| {
        assert_shows(s, "Searching…");
        assert_shows(s, "Search \"story\"");
    });
    let mut page = results_page(3..5, None, true);
    // Code point ranges: "Zürich" holds a two-byte letter before the marked word.
    page.items[0].highlights.title = radar_api::search::Highlighted {
        text: "Zürich labs: Story number 3".into(),
        ranges: vec![[13, 18]],
    };
    page.items[0].highlights.snippet = Some(radar_api::search::Snippet {
        field: "content".into(),
        text: "what the story said".into(),
        ranges: vec![[9, 14]],
    });
    let epoch = app.epoch;
    app.update(
        Action::SearchLoaded {
            epoch,
            query: "story".into(),
            cursor: None,
            result: Ok(page),
        },
        Instant::now(),
    );
    at_both(&app, |s, _| {
        assert_shows(s, "Search \"story\"");
        assert_shows(s, "Zürich labs: Story number 3");
        assert_shows(s, "… what the story said …");
        // The free allowance: more exist, no cursor, so the paywall line.
        assert_shows(s, "Subscribe Now");
        assert_hides(s, "Story number 0 about models");
    });
    // Exactly the marked words are drawn highlighted.
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24)).unwrap();
    terminal.draw(|f| crate::ui::render(f, &app)).unwrap();
    let highlighted: String = terminal
        .backend()
        .buffer()
        .content
        .iter()
        .filter(|c| c.bg == ratatui::style::Color::Yellow)
        .map(ratatui::buffer::Cell::symbol)
        .collect();
    assert_eq!(highlighted, "StoryStorystory");
}

#[test]
fn the_reader_marks_the_words_its_search_matched() {
    let mut app = subscriber();
    searched(&mut app, "story", subscriber_results(4..5, None, 1));
    app.update(
        key(ratatui::crossterm::event::KeyCode::Enter),
        Instant::now(),
    );
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(100, 30)).unwrap();
    terminal.draw(|f| crate::ui::render(f, &app)).unwrap();
    let buffer = terminal.backend().buffer();
    let marked: Vec<String> = buffer
        .content
        .chunks(100)
        .map(|row| {
            row.iter()
                .filter(|c| c.bg == ratatui::style::Color::Yellow)
                .map(ratatui::buffer::Cell::symbol)
                .collect::<String>()
        })
        .filter(|r| !r.is_empty())
        .collect();
    // The title's "Story" and "story" in each paragraph of the full text on screen.
    assert_eq!(marked[0], "Story");
    assert!(marked.len() > 5, "{marked:?}");
    assert!(marked[1..].iter().all(|r| r == "story"), "{marked:?}");
}

#[test]
fn an_empty_or_failed_search_says_so() {
    let mut app = free();
    searched(&mut app, "nothing", results_page(0..0, None, false));
    at_both(&app, |s, _| {
        assert_shows(s, "Nothing found for \"nothing\"");
    });
    app.update(
        Action::SearchLoaded {
            epoch: app.epoch,
            query: "nothing".into(),
            cursor: None,
            result: Err(ApiError {
                status: Some(400),
                message: "Nothing to search for: add a word.".into(),
            }),
        },
        Instant::now(),
    );
    at_both(&app, |s, _| {
        assert_shows(s, "Search failed");
        assert_shows(s, "Nothing to search for: add a word.");
    });
}

#[test]
fn hints_name_the_keys_of_where_they_are_shown() {
    let mut app = free();
    app.keys = crate::keyfile::parse(
        "[list]\nmark_read = [\"Q\"]\n[search]\nmark_read = [\"R\"]\nnext_match = [\"w\"]\n\
         [global]\nhelp = [\"H\"]\n[help]\nback = [\"Z\"]\n",
    )
    .unwrap();
    at_both(&app, |s, _| {
        assert_shows(s, "Q read");
        assert_hides(s, "m read");
        assert_shows(s, "H: help · q: quit");
    });
    app.update(ch('H'), Instant::now());
    at_both(&app, |s, _| assert_shows(s, "j/k: scroll · Z: close"));
    app.update(ch('Z'), Instant::now());
    searched(&mut app, "story", results_page(3..5, None, true));
    at_both(&app, |s, _| {
        assert_shows(s, "Story number 3");
        assert_shows(s, "R read");
        assert_hides(s, "Q read");
        assert_shows(
            s,
            "2+ results for \"story\" · w/N: next/previous · Esc: leave",
        );
    });
    // Once the message has gone, the line of keys in force.
    app.update(Action::Tick, Instant::now() + crate::app::STATUS_FOR * 2);
    at_both(&app, |s, _| {
        assert_shows(s, "w/N: next/previous · Enter: read · Esc: leave · H: help");
    });
}

#[test]
fn sign_in_hints_name_the_sign_in_key_in_force() {
    let mut app = anonymous();
    app.keys = crate::keyfile::parse("[global]\nsign_in = [\"I\"]\n").unwrap();
    at_both(&app, |s, _| assert_shows(s, "Not signed in · I: sign in"));
    app.update(ch('4'), Instant::now());
    at_both(&app, |s, _| {
        assert_shows(s, "Sign in to see Favs (press I).");
    });
}

#[test]
fn trends_overlay_loading_failed_and_ranked() {
    use radar_api::trends::{Trend, TrendKind, TrendStory, TrendsPage};
    let mut app = anonymous();
    app.update(ch('T'), Instant::now());
    assert!(app.take_requests().is_empty(), "signed out: nothing asked");
    at_both(&app, |s, _| assert_shows(s, "Sign in to see Trends"));

    let mut app = reader(Some("me@example.com"), false, false);
    app.take_requests();
    app.update(ch('T'), Instant::now());
    assert_eq!(app.take_requests(), [crate::app::Request::LoadTrends]);
    at_both(&app, |s, _| assert_shows(s, "Loading trends…"));
    let epoch = app.epoch;
    app.update(
        Action::TrendsLoaded {
            epoch,
            result: Err(down()),
        },
        Instant::now(),
    );
    at_both(&app, |s, _| {
        assert_shows(s, "Trends could not be loaded");
        assert_shows(s, "Press r to try again.");
    });
    let trend = |term: &str, weeks: Vec<u32>, change: f64| Trend {
        term: term.into(),
        kind: TrendKind::Name,
        this_week: *weeks.last().unwrap(),
        weeks,
        before: 0.0,
        change,
        stories: vec![TrendStory {
            id: "a".into(),
            title: format!("{term} story"),
            url: None,
            source: None,
            published_date: now(),
        }],
    };
    app.update(
        Action::TrendsLoaded {
            epoch,
            result: Ok(TrendsPage {
                at: now(),
                rising: vec![trend("Zephyr Labs", vec![0, 0, 0, 0, 0, 0, 0, 12], 13.0)],
                falling: vec![trend(
                    "Borealis",
                    vec![0, 0, 0, 10, 10, 10, 10, 1],
                    2.0 / 11.0,
                )],
                limit: 3,
                subscriber: false,
            }),
        },
        Instant::now(),
    );
    at_both(&app, |s, _| {
        let row = s
            .iter()
            .find(|l| l.contains("Zephyr Labs  ×13"))
            .expect("the riser");
        assert!(
            row.contains("       █"),
            "seven empty weeks, then a full one: {row}"
        );
        assert_shows(s, "Borealis −82%");
        let row = s.iter().find(|l| l.contains("Borealis")).unwrap();
        assert!(
            row.contains("████▁"),
            "a week of 1 beside 10 still shows: {row}"
        );
        assert_shows(s, "Zephyr Labs story · Source");
        assert_shows(s, "Free accounts see the top 3");
    });
    app.update(key(ratatui::crossterm::event::KeyCode::Esc), Instant::now());
    at_both(&app, |s, _| assert_hides(s, "Zephyr Labs"));
}

/// An anonymous reader whose feed's first card stands for a story five outlets reported.
fn story_feed() -> App {
    let mut app = reader(None, false, true);
    let mut items = items(5);
    items[0] = story_item(0, 5);
    feed(&mut app, free_page(items, true));
    app
}

const STORY_FEED_80X24: &str = "
 Radar                                               Not signed in · i: sign in 
 1 Feed │ 2 Drops │ 3 TV                                                        
╭ Feed ────────────────────────────────────────────────────────────────────────╮
│▶   Example0    5 sources  Story number 0 about models                        │
│    Example1               Story number 1 about models                        │
│    Source                 Story number 2 about models                        │
│    Example3               Story number 3 about models                        │
│    Example4               Story number 4 about models                        │
╰ Subscribe Now: http://127.0.0.1:8080/subscribe ──────────────────────────────╯
╭──────────────────────────────────────────────────────────────────────────────╮
│Story number 0 about models                                                   │
│Example0 · 5 sources · Jun 15, 2026 · just now                                │
│                                                                              │
│Summary of story 0. It explains what happened and why it matters.             │
│                                                                              │
│More: https://www.example0.com/story                                          │
│                                                                              │
│                                                                              │
│                                                                              │
│                                                                              │
│                                                                              │
│                                                                              │
╰ Enter full text · o open · f favourite · m read · x hide · s share ──────────╯
 ?: help · q: quit                                                              ";

/// At 80 columns the count of sources keeps its column and the age gives way (the
/// headline keeps its forty); from 97 on every column is there.
#[test]
fn a_storys_card_counts_its_sources_in_the_feed() {
    let app = story_feed();
    let expected: Vec<&str> = STORY_FEED_80X24.lines().skip(1).collect();
    assert_eq!(screen(&app, 80, 24), expected);
    let s = screen(&app, 120, 40);
    assert!(
        s[3].contains("Jun 15, 2026 just now       Example0    5 sources  Story number 0"),
        "{}",
        s[3]
    );
    assert!(
        s[4].contains("1 hour ago     Example1               Story number 1"),
        "{}",
        s[4]
    );
    assert_shows(&s, "Example0 · 5 sources · Jun 15, 2026 · just now");
    // A feed without stories keeps its columns.
    assert_hides(&screen(&anonymous(), 80, 24), "sources");
}

#[test]
fn drops_and_tv_count_a_storys_sources() {
    let mut app = story_feed();
    for view in [View::Drops, View::Tv] {
        go(&mut app, view);
        at_both(&app, |s, _| assert_shows(s, "EXAMPLE0 · 5 sources"));
    }
    // The next story stands alone: no count.
    app.update(ch('n'), Instant::now());
    at_both(&app, |s, _| {
        assert_shows(s, "EXAMPLE1");
        assert_hides(s, "sources");
    });
}

#[test]
fn the_reader_lists_a_storys_other_outlets_after_its_text() {
    let mut app = story_feed();
    for (w, h) in SIZES {
        app.update(Action::Resize(w, h), Instant::now());
        app.update(
            key(ratatui::crossterm::event::KeyCode::Enter),
            Instant::now(),
        );
        let s = screen(&app, w, h);
        assert_shows(&s, "Example0 · 5 sources · Jun 15, 2026 · just now");
        // After the full text: at its end.
        assert_hides(&s, "Other sources");
        app.update(ch('G'), Instant::now());
        let s = screen(&app, w, h);
        let at = |needle: &str| {
            s.iter()
                .position(|l| l.contains(needle))
                .unwrap_or_else(|| panic!("{w}x{h}: no {needle:?} in\n{}", s.join("\n")))
        };
        let heading = at("Other sources");
        assert!(at("More: https://www.example0.com/story") < heading);
        for (n, outlet) in [
            "Reuters — Report 0 of story 0",
            "TechCrunch — Report 1 of story 0",
            "The Verge — Report 2 of story 0",
            "Source — Report 3 of story 0",
        ]
        .iter()
        .enumerate()
        {
            assert_eq!(at(outlet), heading + 1 + n, "{w}x{h}: {outlet}");
        }
        app.update(ch('q'), Instant::now());
    }
    // An item alone has no such list.
    app.update(ch('j'), Instant::now());
    app.update(
        key(ratatui::crossterm::event::KeyCode::Enter),
        Instant::now(),
    );
    at_both(&app, |s, _| {
        assert_shows(s, "Summary of story 1.");
        assert_hides(s, "Other sources");
        assert_hides(s, "sources");
    });
}

/// Regression: "59 minutes ago" filled the age column to its last cell, so the source
/// followed with no space ("50 minutes agoReuters").
#[test]
fn the_longest_age_keeps_a_space_before_the_source() {
    let mut app = reader(None, false, true);
    let mut items = items(2);
    items[1].published_date = now() - chrono::Duration::minutes(59);
    feed(&mut app, free_page(items, false));
    at_both(&app, |s, _| {
        assert!(
            s.iter().any(|l| l.contains("59 minutes ago Example1")),
            "{}",
            s.join("\n")
        );
    });
}
