//! Draws the whole screen from the state. Nothing here changes state or waits.
//!
//! Layout: two header rows (title and user, then tabs), the view (or the full-text
//! reader over it; search results are drawn in its place while a search is open), one
//! status row (the search prompt while typing). List views put the
//! detail pane beside the list from 140 columns on, below it otherwise, so headlines keep
//! their room at 100 columns.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, StatefulWidget, Tabs, Widget};

use crate::app::{App, Overlay, StatusKind, View};
use crate::keys::{Command, Context};
use crate::load::Load;
use crate::strings;
use crate::widgets::cells;
use crate::widgets::detail::DetailWidget;
use crate::widgets::drops::DropsWidget;
use crate::widgets::help::HelpPopup;
use crate::widgets::item_list::{ItemListState, ItemListWidget};
use crate::widgets::message::MessageWidget;
use crate::widgets::reader::ReaderWidget;
use crate::widgets::sign_in::SignInPopup;
use crate::widgets::tv::TvWidget;

/// Draws the reader.
pub fn render(frame: &mut Frame, app: &App) {
    // A long message takes a second row rather than being cut.
    let status_rows = match &app.status {
        Some(s) if Line::raw(s.text.as_str()).width() + 1 > frame.area().width as usize => 2,
        _ => 1,
    };
    let [title, tabs, body, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(status_rows),
    ])
    .areas(frame.area());
    header(frame, app, title, tabs);
    match (&app.reader, app.view) {
        (Some(reader), _) => frame.render_widget(
            ReaderWidget {
                item: &reader.item,
                from: reader.from,
                marks: &app.marks,
                keys: &app.keys,
                now: app.clock,
                scroll: reader.scroll,
                matched: &reader.matched,
                theme: app.theme,
            },
            body,
        ),
        (None, _) if app.searching() => search_view(frame, app, body),
        (None, View::Drops | View::Tv) => stories_view(frame, app, app.view, body),
        (None, view) => list_view(frame, app, view, body),
    }
    status_line(frame, app, status);
    match &app.overlay {
        Overlay::None => {}
        Overlay::Help(scroll) => frame.render_widget(
            HelpPopup {
                keys: &app.keys,
                scroll: *scroll,
                theme: app.theme,
            },
            frame.area(),
        ),
        Overlay::Trends(overlay) => frame.render_widget(
            crate::widgets::trends::TrendsPopup {
                overlay,
                theme: app.theme,
            },
            frame.area(),
        ),
        Overlay::Takeaways(overlay) => frame.render_widget(
            crate::widgets::takeaways::TakeawaysPopup {
                overlay,
                theme: app.theme,
            },
            frame.area(),
        ),
        Overlay::SignIn(form) => {
            let mut form = form.clone();
            SignInPopup { theme: app.theme }.render(frame.area(), frame.buffer_mut(), &mut form);
            if let Some(cursor) = form.cursor {
                frame.set_cursor_position(cursor);
            }
        }
    }
}

fn header(frame: &mut Frame, app: &App, title: Rect, tabs: Rect) {
    let t = app.theme;
    let name = if app.signed_in() && app.subscriber() {
        strings::TITLE_PREMIUM
    } else {
        strings::TITLE
    };
    let user = match &app.session {
        Some(s) => s.user.email.clone(),
        None => strings::signed_out_hint(&app.key(Context::Global, Command::SignIn)),
    };
    let [left, right] = Layout::horizontal([
        Constraint::Length(cells(name.len()) + 2),
        Constraint::Fill(1),
    ])
    .areas(title);
    frame.render_widget(Line::styled(format!(" {name}"), t.accent()), left);
    frame.render_widget(
        Line::styled(format!("{user} "), t.dim()).right_aligned(),
        right,
    );

    let views = app.tabs();
    let labels: Vec<Line> = views
        .iter()
        .enumerate()
        .map(|(i, v)| match (v, app.unread, app.alerts_unseen) {
            (View::Feed, Some(n), _) if app.signed_in() => {
                Line::raw(format!("{} {} ({n})", i + 1, v.label()))
            }
            (View::Alerts, _, Some(n)) if n > 0 => {
                Line::raw(format!("{} {} ({n} new)", i + 1, v.label()))
            }
            _ => Line::raw(format!("{} {}", i + 1, v.label())),
        })
        .collect();
    let selected = views.iter().position(|v| *v == app.view);
    frame.render_widget(
        Tabs::new(labels)
            .select(selected)
            .highlight_style(t.selected())
            .style(t.dim())
            .divider("│")
            .padding(" ", " "),
        tabs,
    );
}

fn status_line(frame: &mut Frame, app: &App, area: Rect) {
    let t = app.theme;
    if let Some(search) = app.search.as_ref().filter(|s| s.editing) {
        let prompt = format!(" {}{}", strings::SEARCH_PROMPT, search.input);
        let hint = format!("   {}", strings::SEARCH_KEYS);
        frame.render_widget(
            Line::from(vec![
                Span::styled(prompt.clone(), t.strong()),
                Span::styled(hint, t.dim()),
            ]),
            area,
        );
        let x = area
            .x
            .saturating_add(cells(Line::raw(prompt.as_str()).width()));
        frame.set_cursor_position((x.min(area.right().saturating_sub(1)), area.y));
        return;
    }
    let line = match &app.status {
        Some(s) => {
            let style = match s.kind {
                StatusKind::Info => t.strong(),
                StatusKind::Success => t.success(),
                StatusKind::Warning => t.warning(),
                StatusKind::Error => t.error(),
            };
            Line::styled(format!(" {}", s.text), style)
        }
        None => {
            if let Some(search) = app.search.as_ref().filter(|s| s.in_force()) {
                let key = |c| app.key(Context::Search, c);
                let keys = [
                    key(Command::NextMatch),
                    key(Command::PreviousMatch),
                    key(Command::Read),
                    key(Command::Back),
                    app.key(Context::Global, Command::Help),
                ];
                let keys = keys.each_ref().map(String::as_str);
                Line::styled(
                    format!(" {}", strings::search_in_force(&search.query, keys)),
                    t.dim(),
                )
            } else {
                let key = |c| app.key(Context::Global, c);
                let hint = strings::key_hint(&key(Command::Help), &key(Command::Quit));
                Line::styled(format!(" {hint}"), t.dim())
            }
        }
    };
    frame.render_widget(
        Paragraph::new(line).wrap(ratatui::widgets::Wrap { trim: false }),
        area,
    );
}

/// Drops and TV mode: the feed's loading, error and empty states, else the stories.
fn stories_view(frame: &mut Frame, app: &App, view: View, area: Rect) {
    let t = app.theme;
    match &app.feed {
        Load::Loaded(_) if app.stories_pending => {
            message(frame, app, area, strings::LOADING_NEWS, None, None);
        }
        Load::Loaded(_) if !app.stories.is_empty() && view == View::Tv => frame.render_widget(
            TvWidget {
                stories: app.tv_stories(),
                total: app.tv_total(),
                state: &app.tv,
                keys: &app.keys,
                theme: t,
            },
            area,
        ),
        Load::Loaded(_) if !app.stories.is_empty() => {
            let read = app
                .current_item()
                .is_some_and(|i| app.marks.has(radar_api::Mark::Read, &i.id));
            frame.render_widget(
                DropsWidget {
                    stories: &app.stories,
                    state: &app.drops,
                    read,
                    server: &app.server,
                    keys: &app.keys,
                    theme: t,
                },
                area,
            );
        }
        Load::Loaded(_) => message(frame, app, area, strings::NO_NEWS, None, None),
        Load::Failed(e) => error(frame, app, area, strings::ERROR_LOADING_NEWS, e),
        Load::Idle | Load::Loading => message(frame, app, area, strings::LOADING_NEWS, None, None),
    }
}

fn message(
    frame: &mut Frame,
    app: &App,
    area: Rect,
    title: &str,
    body: Option<&str>,
    hint: Option<&str>,
) {
    let title_style = app.theme.accent();
    frame.render_widget(
        MessageWidget {
            title,
            title_style,
            body,
            hint,
            theme: app.theme,
        },
        area,
    );
}

fn error(frame: &mut Frame, app: &App, area: Rect, title: &str, body: &str) {
    let title_style = app.theme.error();
    let retry = strings::retry_hint(&app.key(Context::Global, Command::Reload));
    let widget = MessageWidget {
        title,
        title_style,
        body: Some(body),
        hint: Some(&retry),
        theme: app.theme,
    };
    frame.render_widget(widget, area);
}

/// The state of a list view other than "here are the items".
enum ListState<'a> {
    Loading,
    Empty(&'static str, Option<String>),
    Failed(&'static str, &'a str),
    SignedOut,
    Items,
}

fn list_state(app: &App, view: View) -> ListState<'_> {
    fn of<'a, T>(
        load: &'a Load<Vec<T>>,
        empty: &'static str,
        error: &'static str,
    ) -> ListState<'a> {
        match load {
            Load::Idle | Load::Loading => ListState::Loading,
            Load::Failed(e) => ListState::Failed(error, e),
            Load::Loaded(items) if items.is_empty() => ListState::Empty(empty, None),
            Load::Loaded(_) => ListState::Items,
        }
    }
    if view.needs_sign_in() && !app.signed_in() {
        return ListState::SignedOut;
    }
    match view {
        View::Feed => match &app.feed {
            Load::Idle | Load::Loading => ListState::Loading,
            Load::Failed(e) => ListState::Failed(strings::ERROR_LOADING_NEWS, e),
            Load::Loaded(_) if app.feed_items().is_empty() => {
                ListState::Empty(strings::NO_NEWS, None)
            }
            Load::Loaded(_) => ListState::Items,
        },
        View::Favs => match app.marks.list(radar_api::Mark::Favorite) {
            Load::Failed(e) => ListState::Failed(
                strings::ERROR,
                if e.is_empty() {
                    strings::FAVS_FAILED
                } else {
                    e
                },
            ),
            Load::Loaded(items) if items.is_empty() => {
                let favorite = app.key(Context::List, Command::Favorite);
                ListState::Empty(strings::NO_FAVS, Some(strings::no_favs_hint(&favorite)))
            }
            other => of(other, strings::NO_FAVS, strings::ERROR),
        },
        View::Read => of(
            app.marks.list(radar_api::Mark::Read),
            strings::NO_READ,
            strings::ERROR_LOADING_READ,
        ),
        View::Trash => of(
            app.marks.list(radar_api::Mark::Hidden),
            strings::TRASH_EMPTY,
            strings::ERROR_LOADING_HIDDEN,
        ),
        View::Shared => of(
            &app.shared,
            strings::NO_SHARED,
            strings::ERROR_LOADING_SHARED,
        ),
        View::Alerts => match &app.alert_hits {
            Load::Loaded(hits) if hits.is_empty() => {
                ListState::Empty(strings::NO_ALERT_HITS, Some(strings::ALERTS_HINT.into()))
            }
            other => of(other, strings::NO_ALERT_HITS, strings::ERROR_LOADING_ALERTS),
        },
        View::Drops | View::Tv => ListState::Items,
    }
}

fn list_view(frame: &mut Frame, app: &App, view: View, area: Rect) {
    let t = app.theme;
    match list_state(app, view) {
        ListState::Loading if view == View::Feed => return skeleton(frame, app, area),
        ListState::Loading => return message(frame, app, area, strings::LOADING, None, None),
        ListState::Empty(title, hint) => {
            return message(frame, app, area, title, None, hint.as_deref());
        }
        ListState::Failed(title, e) => return error(frame, app, area, title, e),
        ListState::SignedOut => {
            let sign_in = app.key(Context::Global, Command::SignIn);
            let hint = match view {
                View::Favs => strings::sign_in_for_favs(&sign_in),
                other => strings::sign_in_to_see(other.label(), &sign_in),
            };
            return message(frame, app, area, strings::PLEASE_SIGN_IN, None, Some(&hint));
        }
        ListState::Items => {}
    }
    let items = app.list_items(view);
    let selected = app.selection(view);
    let (list_area, detail_area) = list_and_detail(area, items.len());
    let footer = match app.feed.data() {
        Some(f) if view == View::Feed => more_footer(
            app,
            Context::List,
            f.loading_more,
            f.has_more,
            f.next_cursor.is_some(),
        ),
        _ => None,
    };
    let widget = ItemListWidget {
        items: &items,
        marks: &app.marks,
        now: app.clock,
        title: view.label(),
        footer,
        titles: &[],
        theme: t,
    };
    widget.render(
        list_area,
        frame.buffer_mut(),
        &mut ItemListState { selected },
    );
    if let Some(item) = items.get(selected) {
        let extra = match view {
            View::Shared => app.shared.data().and_then(|s| s.get(selected)).map(|s| {
                strings::shared_on(
                    &s.platform,
                    &crate::format::relative_time(s.shared_at, app.clock),
                )
            }),
            View::Alerts => app
                .alert_hits
                .data()
                .and_then(|h| h.get(selected))
                .map(|h| {
                    strings::found_by(
                        &h.query,
                        &crate::format::relative_time(h.matched_at, app.clock),
                    )
                }),
            _ => None,
        };
        let detail = DetailWidget {
            item,
            view,
            context: Context::List,
            marks: &app.marks,
            keys: &app.keys,
            now: app.clock,
            extra,
            highlights: None,
            theme: t,
        };
        frame.render_widget(detail, detail_area);
    }
}

/// The list beside the detail pane from 140 columns on, above it otherwise.
fn list_and_detail(area: Rect, rows: usize) -> (Rect, Rect) {
    if area.width >= 140 {
        let [l, d] = Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)])
            .areas(area);
        (l, d)
    } else {
        let rows = cells(rows).saturating_add(2).min(area.height / 2).max(3);
        let [l, d] = Layout::vertical([Constraint::Length(rows), Constraint::Fill(1)]).areas(area);
        (l, d)
    }
}

/// Search results over the view: a spinner while the server searches, its message when
/// the search failed, else the results as list rows with the matched words highlighted
/// and the selected one's matched passage in the detail pane.
fn search_view(frame: &mut Frame, app: &App, area: Rect) {
    let t = app.theme;
    let Some(search) = &app.search else {
        return;
    };
    let results = match &search.results {
        Load::Idle | Load::Loading => {
            const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
            let frame_no = app.clock.timestamp_subsec_millis() as usize / 100;
            let title = format!(
                "{} {}",
                SPINNER[frame_no % SPINNER.len()],
                strings::SEARCHING
            );
            let query = strings::results_title(&search.query);
            return message(frame, app, area, &title, Some(&query), None);
        }
        Load::Failed(e) => {
            let key = |c| app.key(Context::Search, c);
            let search_key = app.key(Context::Global, Command::Search);
            let retry =
                strings::search_retry_hint(&search_key, &key(Command::Reload), &key(Command::Back));
            let widget = MessageWidget {
                title: strings::SEARCH_FAILED,
                title_style: t.error(),
                body: Some(e),
                hint: Some(&retry),
                theme: t,
            };
            return frame.render_widget(widget, area);
        }
        Load::Loaded(results) => results,
    };
    let hits = app.search_hits();
    if hits.is_empty() {
        let title = strings::no_results(&search.query);
        return message(
            frame,
            app,
            area,
            &title,
            None,
            Some(&strings::no_results_hint(
                &app.key(Context::Global, Command::Search),
            )),
        );
    }
    let selected = app.search_selection();
    let (list_area, detail_area) = list_and_detail(area, hits.len());
    let items: Vec<&radar_api::NewsItem> = hits.iter().map(|h| &h.item).collect();
    let titles: Vec<&radar_api::search::Highlighted> =
        hits.iter().map(|h| &h.highlights.title).collect();
    let title = strings::results_title(&search.query);
    let footer = more_footer(
        app,
        Context::Search,
        results.loading_more,
        results.has_more,
        results.next_cursor.is_some(),
    );
    ItemListWidget {
        items: &items,
        marks: &app.marks,
        now: app.clock,
        title: &title,
        footer,
        titles: &titles,
        theme: t,
    }
    .render(
        list_area,
        frame.buffer_mut(),
        &mut ItemListState { selected },
    );
    let hit = hits[selected];
    let detail = DetailWidget {
        item: &hit.item,
        view: View::Feed,
        context: Context::Search,
        marks: &app.marks,
        keys: &app.keys,
        now: app.clock,
        extra: None,
        highlights: Some(&hit.highlights),
        theme: t,
    };
    frame.render_widget(detail, detail_area);
}

/// Under the feed or search results: Read More when the server gave a cursor, Subscribe
/// Now when it has more but gave none (the paywall line), nothing when that is all.
fn more_footer(
    app: &App,
    context: Context,
    loading_more: bool,
    has_more: bool,
    cursor: bool,
) -> Option<Line<'static>> {
    let t = app.theme;
    if loading_more {
        return Some(Line::styled(
            format!(" {} ", strings::LOADING_MORE),
            t.dim(),
        ));
    }
    if !has_more {
        return None;
    }
    Some(if cursor {
        let key = app.key(context, crate::keys::Command::More);
        Line::styled(format!(" {key}: {} ", strings::READ_MORE), t.accent())
    } else {
        Line::from(vec![
            Span::styled(format!(" {}: ", strings::SUBSCRIBE_NOW), t.accent()),
            Span::styled(format!("{} ", strings::subscribe_at(&app.server)), t.dim()),
        ])
    })
}

/// Five placeholder rows while the feed loads, as the web app's skeleton cards.
fn skeleton(frame: &mut Frame, app: &App, area: Rect) {
    let t = app.theme;
    let rows: Vec<Line> = (0..5)
        .map(|i| {
            let title = "░".repeat(20 + (i * 7) % 25);
            Line::styled(
                format!("  ░░░░░░░░░░░░ ░░░░░░░░░░░░░  ░░░░░░░░░░  {title}"),
                t.dim(),
            )
        })
        .collect();
    let block = ratatui::widgets::Block::bordered()
        .border_type(ratatui::widgets::BorderType::Rounded)
        .title(Line::styled(
            format!(" {} ", strings::LOADING_NEWS),
            t.accent(),
        ));
    let height = 7.min(area.height);
    Paragraph::new(rows)
        .block(block)
        .render(Rect { height, ..area }, frame.buffer_mut());
}
