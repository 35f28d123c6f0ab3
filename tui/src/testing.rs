//! Fixtures for the unit and render tests: a fixed clock, items and readers in each state.

use std::time::Instant;

use chrono::{DateTime, Duration, TimeZone, Utc};
use radar_api::search::{Highlighted, Highlights, SearchHit, SearchPage};
use radar_api::{FeedPage, NewsItem, Outlet, Story};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::app::{Action, App, FeedFetch};
use crate::session::tests::session;
use crate::theme::Theme;

/// The tests' "now".
pub(crate) fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 6, 15, 12, 0, 0).unwrap()
}

/// Item `n`, as the server sends it (source named, citation markers gone): published `n`
/// hours before [`now`]; every third has no URL and so no source; every fourth has a
/// full text of several paragraphs.
pub(crate) fn item(n: usize) -> NewsItem {
    let url = (n % 3 != 2).then(|| format!("https://www.example{n}.com/story"));
    NewsItem {
        story: None,
        id: format!("item-{n}"),
        title: format!("Story number {n} about models"),
        summary: format!("Summary of story {n}. It explains what happened and why it matters."),
        short: if n.is_multiple_of(2) {
            format!("Short text of story {n}.")
        } else {
            String::new()
        },
        content: if n.is_multiple_of(4) {
            (1..=30)
                .map(|p| format!("Paragraph {p} of story {n}: what was said and by whom."))
                .collect::<Vec<_>>()
                .join("\n\n")
        } else {
            String::new()
        },
        source: url.as_ref().map(|_| format!("Example{n}")),
        url,
        published_date: now() - Duration::hours(i64::try_from(n).unwrap()),
    }
}

/// Item `n` as the card of a story that `sources` outlets reported, as the feed sends it:
/// the others are Reuters, TechCrunch, The Verge and so on, the last one without a URL
/// (so without a name).
pub(crate) fn story_item(n: usize, sources: u32) -> NewsItem {
    const NAMES: [&str; 4] = ["Reuters", "TechCrunch", "The Verge", "Bloomberg"];
    let others = sources.saturating_sub(1) as usize;
    let outlets = (0..others)
        .map(|k| {
            let named = k + 1 < others;
            Outlet {
                id: format!("item-{n}-{k}"),
                title: format!("Report {k} of story {n}"),
                source: named.then(|| NAMES[k % NAMES.len()].to_string()),
                url: named.then(|| format!("https://outlet{k}.example/story-{n}")),
            }
        })
        .collect();
    NewsItem {
        story: Some(Story {
            id: format!("item-{n}"),
            sources,
            outlets,
        }),
        ..item(n)
    }
}

/// Item `n` as a search result, its title's first word (`Story`) marked.
pub(crate) fn hit(n: usize) -> SearchHit {
    let item = item(n);
    let marked = |text: &str, ranges: Vec<[usize; 2]>| Highlighted {
        text: text.to_string(),
        ranges,
    };
    SearchHit {
        highlights: Highlights {
            title: marked(&item.title, vec![[0, 5]]),
            summary: marked(&item.summary, vec![]),
            snippet: None,
        },
        item,
    }
}

/// A free reader's page of search results for items `range`, with `cursor` for the next one.
pub(crate) fn results_page(
    range: std::ops::Range<usize>,
    cursor: Option<&str>,
    has_more: bool,
) -> SearchPage {
    let items: Vec<SearchHit> = range.map(hit).collect();
    SearchPage {
        limit: items.len().max(1),
        total: items.len() as u64,
        subscriber: false,
        items,
        next_cursor: cursor.map(str::to_string),
        has_more,
    }
}

/// A subscriber's page of search results for items `range` of `total`.
pub(crate) fn subscriber_results(
    range: std::ops::Range<usize>,
    cursor: Option<&str>,
    total: u64,
) -> SearchPage {
    SearchPage {
        subscriber: true,
        total,
        ..results_page(range, cursor, cursor.is_some())
    }
}

/// Items 0..n.
pub(crate) fn items(n: usize) -> Vec<NewsItem> {
    (0..n).map(item).collect()
}

/// A free reader's page as the server sends it: no cursor, `has_more` when the server
/// holds more than it lets the reader see.
pub(crate) fn free_page(items: Vec<NewsItem>, has_more: bool) -> FeedPage {
    FeedPage {
        total: items.len() as u64,
        limit: items.len().max(1),
        items,
        next_cursor: None,
        has_more,
        subscriber: false,
    }
}

/// A subscriber's page: `cursor` for the next one, `total` reachable in all.
pub(crate) fn sub_page(items: Vec<NewsItem>, cursor: Option<&str>, total: u64) -> FeedPage {
    FeedPage {
        limit: items.len().max(1),
        has_more: cursor.is_some(),
        items,
        next_cursor: cursor.map(str::to_string),
        total,
        subscriber: true,
    }
}

/// A reader with the clock at [`now`], signed in when `email` is given.
pub(crate) fn reader(email: Option<&str>, subscriber: bool, color: bool) -> App {
    let s = email.map(|e| session(e, subscriber, now().timestamp() + 3600));
    let mut app = App::new("http://127.0.0.1:8080", s, Theme { color });
    app.clock = now();
    app.start();
    app.take_requests();
    app
}

/// An anonymous reader whose feed loaded: 5 items, more on the server.
pub(crate) fn anonymous() -> App {
    let mut app = reader(None, false, true);
    feed(&mut app, free_page(items(5), true));
    app
}

/// A signed-in free reader with 5 items and empty lists.
pub(crate) fn free() -> App {
    let mut app = reader(Some("free@example.com"), false, true);
    feed(&mut app, free_page(items(5), true));
    lists(&mut app);
    app
}

/// A signed-in subscriber with 20 items, more to come.
pub(crate) fn subscriber() -> App {
    let mut app = reader(Some("sub@example.com"), true, true);
    feed(&mut app, sub_page(items(20), Some("c1"), 64));
    lists(&mut app);
    app
}

/// Delivers a first feed page.
pub(crate) fn feed(app: &mut App, page: FeedPage) {
    let epoch = app.epoch;
    app.update(
        Action::FeedLoaded {
            epoch,
            fetch: FeedFetch::First,
            result: Ok(page),
        },
        Instant::now(),
    );
}

/// Delivers empty lists for every mark and Shared.
pub(crate) fn lists(app: &mut App) {
    let epoch = app.epoch;
    for mark in crate::marks::MARKS {
        app.update(
            Action::MarksLoaded {
                epoch,
                mark,
                result: Ok(vec![]),
            },
            Instant::now(),
        );
    }
    app.update(
        Action::SharedLoaded {
            epoch,
            result: Ok(vec![]),
        },
        Instant::now(),
    );
}

/// A key press.
pub(crate) fn key(code: KeyCode) -> Action {
    Action::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

/// A character key press.
pub(crate) fn ch(c: char) -> Action {
    key(KeyCode::Char(c))
}

/// Types `text`, one key press a character.
pub(crate) fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        app.update(ch(c), Instant::now());
    }
}

/// Searches for `query` with the prompt and answers the search with `page`.
pub(crate) fn searched(app: &mut App, query: &str, page: SearchPage) {
    type_text(app, &format!("/{query}"));
    app.update(key(KeyCode::Enter), Instant::now());
    let epoch = app.epoch;
    app.update(
        Action::SearchLoaded {
            epoch,
            query: query.into(),
            cursor: None,
            result: Ok(page),
        },
        Instant::now(),
    );
}

/// The screen as text, one string per row.
pub(crate) fn screen(app: &App, width: u16, height: u16) -> Vec<String> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|f| crate::ui::render(f, app)).unwrap();
    let buffer = terminal.backend().buffer().clone();
    buffer
        .content
        .chunks(width as usize)
        .map(|row| {
            row.iter()
                .map(ratatui::buffer::Cell::symbol)
                .collect::<String>()
        })
        .collect()
}

/// The screen's words in order, borders removed, for finding wrapped sentences.
pub(crate) fn words(screen: &[String]) -> String {
    let text: String = screen
        .iter()
        .map(|l| l.replace(['│', '╭', '╮', '╰', '╯', '─'], " "))
        .collect::<Vec<_>>()
        .join(" ");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Asserts the screen holds `needle` (in the flowing text); prints the screen if not.
#[track_caller]
pub(crate) fn assert_shows(screen: &[String], needle: &str) {
    assert!(
        words(screen).contains(needle),
        "expected {needle:?} on screen:\n{}",
        screen.join("\n")
    );
}

/// Asserts the screen does not hold `needle`.
#[track_caller]
pub(crate) fn assert_hides(screen: &[String], needle: &str) {
    assert!(
        !words(screen).contains(needle),
        "did not expect {needle:?} on screen:\n{}",
        screen.join("\n")
    );
}
