//! `/` and its results: the prompt sends the query to `GET /api/search`, the answer is
//! drawn over the view, and list keys act on the selected result. The server decides what
//! a reader may see; nothing here counts results against a cap.

use std::time::Instant;

use radar_api::Mark;
use radar_api::search::{SearchHit, SearchPage};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{App, ItemAction, Request, StatusKind};
use crate::api::ApiResult;
use crate::keys::{Command, Context, KeyMap};
use crate::load::Load;
use crate::search::{Results, Search};
use crate::strings;

impl App {
    /// `/`: opens the prompt (with the query in force, to correct it). The server
    /// searches for signed-in readers only.
    pub(super) fn open_search(&mut self, now: Instant) {
        if !self.signed_in() {
            let text = strings::sign_in_to_search(&self.key(Context::Global, Command::SignIn));
            return self.say(text, StatusKind::Info, now);
        }
        self.search = Some(Search::prompt(self.search.take()));
    }

    /// A key while the prompt is open.
    pub(super) fn search_key(&mut self, key: KeyEvent) {
        let Some(search) = &mut self.search else {
            return;
        };
        match key.code {
            KeyCode::Esc => {
                search.editing = false;
                if !search.in_force() {
                    self.search = None;
                }
            }
            KeyCode::Enter => {
                search.editing = false;
                let query = search.input.trim().to_string();
                if query.is_empty() {
                    if !search.in_force() {
                        self.search = None;
                    }
                    return;
                }
                search.query = query;
                // The last query's results say nothing of this one.
                search.results = Load::Loading;
                search.selected = 0;
                self.reader = None;
                self.send_search();
            }
            KeyCode::Backspace => {
                search.input.pop();
            }
            KeyCode::Char('u') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                search.input.clear();
            }
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                search.input.push(c);
            }
            _ => {}
        }
    }

    /// Asks for the first page of the query in force (also when everything reloads, or
    /// the subscription changed and with it what the server lets the reader see).
    pub(super) fn send_search(&mut self) {
        let Some(search) = &mut self.search else {
            return;
        };
        // A reload keeps the results on screen until the answer replaces them.
        search.results.start();
        self.requests.push(Request::Search {
            query: search.query.clone(),
            cursor: None,
        });
    }

    /// The results on screen: the server's, without those hidden here since.
    pub fn search_hits(&self) -> Vec<&SearchHit> {
        let Some(results) = self.search.as_ref().and_then(|s| s.results.data()) else {
            return Vec::new();
        };
        results
            .hits
            .iter()
            .filter(|h| !self.marks.has(Mark::Hidden, &h.item.id))
            .collect()
    }

    /// The selected result, kept inside the list.
    pub fn search_selection(&self) -> usize {
        let len = self.search_hits().len();
        self.search.as_ref().map_or(0, |s| s.selection(len))
    }

    /// Whether results (or their loading or error state) are drawn over the view.
    pub fn searching(&self) -> bool {
        self.search.as_ref().is_some_and(Search::in_force)
    }

    /// A page of results arrived.
    pub(super) fn on_search(
        &mut self,
        query: &str,
        cursor: Option<String>,
        result: ApiResult<SearchPage>,
        now: Instant,
    ) {
        // An answer to a query the reader has since replaced or left.
        if self.search.as_ref().is_none_or(|s| s.query != query) {
            return;
        }
        let page = match result {
            Ok(page) => page,
            Err(e) => {
                if e.is_unauthorized() && self.signed_in() {
                    self.on_unauthorized();
                }
                if e.is_subscription_required() {
                    self.requests.push(Request::LoadMetadata);
                }
                // A malformed query: the server's message says what is wrong.
                let text = if e.status == Some(400) {
                    e.message.clone()
                } else {
                    e.to_string()
                };
                let search = self.search.as_mut().expect("checked above");
                match (&cursor, search.results.data_mut()) {
                    (Some(_), Some(results)) => {
                        results.loading_more = false;
                        results.step_on_arrival = false;
                    }
                    _ => search.results = Load::Failed(text.clone()),
                }
                return self.say(text, StatusKind::Error, now);
            }
        };
        self.on_success();
        // The answer was made for another subscription than the one on screen: follow it,
        // which asks this search again under the new allowance.
        if page.subscriber != self.subscriber() {
            return self.subscription_changed(page.subscriber, now);
        }
        let search = self.search.as_mut().expect("checked above");
        match (cursor, search.results.data_mut()) {
            (Some(asked), Some(results)) => {
                if results.next_cursor.as_deref() != Some(asked.as_str()) {
                    return;
                }
                let step = results.step_on_arrival;
                let before = results.hits.len();
                let new: Vec<SearchHit> = page
                    .items
                    .into_iter()
                    .filter(|h| !results.hits.iter().any(|o| o.item.id == h.item.id))
                    .collect();
                results.hits.extend(new);
                results.next_cursor = page.next_cursor;
                results.has_more = page.has_more;
                results.total = page.total;
                results.loading_more = false;
                results.step_on_arrival = false;
                if step && results.hits.len() > before {
                    self.step_result(false, now);
                }
            }
            (Some(_), None) => {}
            (None, _) => {
                let results = Results {
                    hits: page.items,
                    next_cursor: page.next_cursor,
                    has_more: page.has_more,
                    total: page.total,
                    ..Results::default()
                };
                let (found, more) = results.count();
                search.results = Load::Loaded(results);
                search.selected = 0;
                let text = results_found(&self.keys, query, found, more);
                self.say(text, StatusKind::Info, now);
            }
        }
    }

    /// What list keys do while results are on screen.
    pub(super) fn search_command(&mut self, command: Command, now: Instant) {
        use Command as C;
        let len = self.search_hits().len();
        let page = self.list_page();
        let at = self.search_selection();
        let Some(search) = &mut self.search else {
            return;
        };
        let last = len.saturating_sub(1);
        match command {
            C::Down => search.selected = (at + 1).min(last),
            C::Up => search.selected = at.saturating_sub(1),
            C::Top => search.selected = 0,
            C::Bottom => search.selected = last,
            C::PageDown => search.selected = (at + page).min(last),
            C::PageUp => search.selected = at.saturating_sub(page),
            C::NextUnread => self.step_unread(false, now),
            C::PreviousUnread => self.step_unread(true, now),
            C::NextMatch => self.step_result(false, now),
            C::PreviousMatch => self.step_result(true, now),
            C::More => self.more_results(false, now),
            C::Reload => self.send_search(),
            C::Read => self.open_reader(now),
            C::OpenSource => self.item_action(ItemAction::Open, now),
            C::Favorite => self.item_action(ItemAction::Favorite, now),
            C::MarkRead => self.item_action(ItemAction::Read, now),
            C::Hide => self.item_action(ItemAction::Hide, now),
            C::Share => self.item_action(ItemAction::Share, now),
            _ => {}
        }
    }

    /// `n`/`N`: the next (or previous) result. Past the last one, a subscriber's next page
    /// is fetched and the step lands on its first result; a free reader is told the rest
    /// is for subscribers; otherwise the step wraps to the top.
    fn step_result(&mut self, back: bool, now: Instant) {
        let len = self.search_hits().len();
        let at = self.search_selection();
        let Some(search) = &mut self.search else {
            return;
        };
        let Some(results) = search.results.data() else {
            return;
        };
        let (found, more) = results.count();
        if len == 0 {
            let text = results_found(&self.keys, &search.query, found, more);
            return self.say(text, StatusKind::Info, now);
        }
        let to = match (back, at + 1 == len) {
            (true, _) => (at + len - 1) % len,
            (false, false) => at + 1,
            (false, true) if results.has_more => return self.more_results(true, now),
            (false, true) => 0,
        };
        search.selected = to;
        let query = search.query.clone();
        self.say(
            strings::result_position(&query, to + 1, found, more),
            StatusKind::Info,
            now,
        );
    }

    /// Read More on the results: the next page when the server gave a cursor.
    fn more_results(&mut self, then_step: bool, now: Instant) {
        let Some(search) = &mut self.search else {
            return;
        };
        let query = search.query.clone();
        let Some(results) = search.results.data_mut() else {
            return;
        };
        match (&results.next_cursor, results.loading_more) {
            (_, true) => {}
            (Some(cursor), false) => {
                results.loading_more = true;
                results.step_on_arrival = then_step;
                let cursor = Some(cursor.clone());
                self.requests.push(Request::Search { query, cursor });
            }
            (None, false) if results.has_more => {
                self.say(strings::MORE_RESULTS_ARE_PREMIUM, StatusKind::Info, now);
            }
            (None, false) => self.say(strings::NO_MORE_RESULTS, StatusKind::Info, now),
        }
    }
}

/// How many results came, with the search keys in force.
fn results_found(keys: &KeyMap, query: &str, found: usize, more: bool) -> String {
    let key = |c| keys.first_key(Context::Search, c);
    let (next, previous, leave) = (
        key(Command::NextMatch),
        key(Command::PreviousMatch),
        key(Command::Back),
    );
    strings::results_found(query, found, more, [&next, &previous, &leave])
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use ratatui::crossterm::event::KeyCode;

    use super::*;
    use crate::api::ApiError;
    use crate::app::View;
    use crate::testing::*;

    fn type_query(app: &mut App, query: &str) {
        type_text(app, &format!("/{query}"));
        app.update(key(KeyCode::Enter), Instant::now());
    }

    fn answer(app: &mut App, query: &str, cursor: Option<&str>, result: ApiResult<SearchPage>) {
        let epoch = app.epoch;
        app.update(
            super::super::Action::SearchLoaded {
                epoch,
                query: query.into(),
                cursor: cursor.map(str::to_string),
                result,
            },
            Instant::now(),
        );
    }

    fn status(app: &App) -> &str {
        app.status.as_ref().map_or("", |s| s.text.as_str())
    }

    #[test]
    fn enter_sends_the_query_to_the_server() {
        let mut app = free();
        type_query(&mut app, "open \"weights\" -nvidia");
        assert_eq!(
            app.take_requests(),
            [Request::Search {
                query: "open \"weights\" -nvidia".into(),
                cursor: None
            }]
        );
        assert!(app.searching());
        assert_eq!(app.search.as_ref().unwrap().results, Load::Loading);
        answer(
            &mut app,
            "open \"weights\" -nvidia",
            None,
            Ok(results_page(2..4, None, false)),
        );
        let ids: Vec<_> = app
            .search_hits()
            .iter()
            .map(|h| h.item.id.clone())
            .collect();
        assert_eq!(ids, ["item-2", "item-3"]);
        assert!(
            status(&app).starts_with("2 results for"),
            "{}",
            status(&app)
        );
        // The selected result is what keys act on; Enter opens it in the reader.
        assert_eq!(app.current_item().unwrap().id, "item-2");
        app.update(key(KeyCode::Enter), Instant::now());
        assert_eq!(app.reader.as_ref().unwrap().item.id, "item-2");
        // Esc leaves the reader for the results, then the results for the view.
        app.update(key(KeyCode::Esc), Instant::now());
        assert!(app.reader.is_none() && app.searching());
        app.update(key(KeyCode::Esc), Instant::now());
        assert!(app.search.is_none());
        assert_eq!(app.view, View::Feed);
        assert_eq!(app.current_item().unwrap().id, "item-0");
    }

    #[test]
    fn signed_out_readers_are_asked_to_sign_in() {
        let mut app = anonymous();
        app.update(ch('/'), Instant::now());
        assert!(app.search.is_none());
        assert_eq!(status(&app), strings::sign_in_to_search("i"));
    }

    #[test]
    fn n_and_big_n_step_and_wrap_without_more() {
        let mut app = free();
        type_query(&mut app, "story");
        app.take_requests();
        answer(&mut app, "story", None, Ok(results_page(0..3, None, false)));
        let now = Instant::now();
        app.update(ch('n'), now);
        assert_eq!(app.search_selection(), 1);
        assert_eq!(status(&app), "Result 2 of 3 for \"story\"");
        app.update(ch('n'), now);
        app.update(ch('n'), now);
        assert_eq!(app.search_selection(), 0, "wraps past the last");
        app.update(ch('N'), now);
        assert_eq!(app.search_selection(), 2, "and back past the first");
        assert!(app.take_requests().is_empty());
    }

    #[test]
    fn a_free_reader_gets_the_paywall_line_not_a_next_page() {
        let mut app = free();
        type_query(&mut app, "story");
        app.take_requests();
        answer(&mut app, "story", None, Ok(results_page(0..5, None, true)));
        let now = Instant::now();
        for _ in 0..4 {
            app.update(ch('n'), now);
        }
        assert_eq!(app.search_selection(), 4);
        assert_eq!(status(&app), "Result 5 of 5+ for \"story\"");
        app.update(ch('n'), now);
        app.update(ch('M'), now);
        assert!(app.take_requests().is_empty(), "no cursor, no request");
        assert_eq!(app.search_selection(), 4);
        assert_eq!(status(&app), strings::MORE_RESULTS_ARE_PREMIUM);
    }

    #[test]
    fn a_subscriber_pages_on_past_the_end() {
        let mut app = subscriber();
        type_query(&mut app, "story");
        app.take_requests();
        answer(
            &mut app,
            "story",
            None,
            Ok(subscriber_results(0..20, Some("c1"), 30)),
        );
        let now = Instant::now();
        app.update(ch('G'), now);
        app.update(ch('n'), now);
        assert_eq!(
            app.take_requests(),
            [Request::Search {
                query: "story".into(),
                cursor: Some("c1".into())
            }]
        );
        // A second n while it loads asks for nothing more.
        app.update(ch('n'), now);
        assert!(app.take_requests().is_empty());
        // A late answer to another query is dropped.
        answer(
            &mut app,
            "other",
            Some("c1"),
            Ok(subscriber_results(40..60, None, 60)),
        );
        answer(
            &mut app,
            "story",
            Some("c1"),
            Ok(subscriber_results(20..30, None, 30)),
        );
        assert_eq!(app.search_hits().len(), 30);
        assert_eq!(
            app.search_selection(),
            20,
            "the step lands on the first new result"
        );
        assert_eq!(status(&app), "Result 21 of 30 for \"story\"");
        app.update(ch('M'), now);
        assert_eq!(status(&app), strings::NO_MORE_RESULTS);
    }

    #[test]
    fn an_answer_for_another_subscription_is_followed_and_asked_again() {
        let mut app = free();
        type_query(&mut app, "story");
        app.take_requests();
        answer(
            &mut app,
            "story",
            None,
            Ok(subscriber_results(0..20, Some("c1"), 30)),
        );
        assert!(
            app.subscriber(),
            "the server counted the reader as a subscriber"
        );
        assert_eq!(status(&app), strings::NOW_PREMIUM);
        let asked = app.take_requests();
        assert!(
            asked.contains(&Request::Search {
                query: "story".into(),
                cursor: None
            }),
            "the search is asked again under the new allowance: {asked:?}"
        );
    }

    #[test]
    fn a_malformed_query_shows_the_servers_message() {
        let mut app = free();
        type_query(&mut app, "\"open weights");
        let message = "The quote before \"open weights\" is not closed; close it.";
        let err = ApiError {
            status: Some(400),
            message: message.into(),
        };
        answer(&mut app, "\"open weights", None, Err(err));
        assert_eq!(status(&app), message);
        assert_eq!(
            app.search.as_ref().unwrap().results,
            Load::Failed(message.into())
        );
        // `/` opens the prompt on the query, to correct it.
        app.update(ch('/'), Instant::now());
        assert_eq!(app.search.as_ref().unwrap().input, "\"open weights");
    }

    #[test]
    fn marks_apply_to_the_selected_result() {
        let mut app = free();
        app.switch_to(View::Trash, Instant::now());
        app.take_requests();
        type_query(&mut app, "story");
        app.take_requests();
        answer(&mut app, "story", None, Ok(results_page(2..4, None, false)));
        // Results act as the feed does, whatever the view under them.
        app.update(ch('x'), Instant::now());
        let sent = app.take_requests();
        assert!(
            sent.contains(&Request::SetMark {
                mark: Mark::Hidden,
                id: "item-2".into(),
                on: true
            }),
            "{sent:?}"
        );
        let ids: Vec<_> = app
            .search_hits()
            .iter()
            .map(|h| h.item.id.clone())
            .collect();
        assert_eq!(ids, ["item-3"], "a hidden result leaves the list");
    }

    #[test]
    fn a_subscription_change_asks_again_keeping_the_results_meanwhile() {
        let mut app = free();
        type_query(&mut app, "story");
        app.take_requests();
        answer(&mut app, "story", None, Ok(results_page(0..5, None, true)));
        let epoch = app.epoch;
        app.update(
            super::super::Action::MetadataLoaded {
                epoch,
                result: Ok(radar_api::account::UserMetadata {
                    subscription: radar_api::account::SubscriptionStatus {
                        is_active: true,
                        customer_id: None,
                    },
                }),
            },
            Instant::now(),
        );
        let sent = app.take_requests();
        assert!(
            sent.contains(&Request::Search {
                query: "story".into(),
                cursor: None
            }),
            "{sent:?}"
        );
        assert_eq!(
            app.search_hits().len(),
            5,
            "the old results stay until the answer"
        );
    }

    #[test]
    fn big_j_steps_to_the_next_unread_result_also_from_the_reader() {
        let mut app = free();
        type_query(&mut app, "story");
        app.take_requests();
        answer(&mut app, "story", None, Ok(results_page(0..4, None, false)));
        let now = Instant::now();
        app.update(ch('j'), now);
        app.update(ch('m'), now);
        app.update(ch('k'), now);
        app.update(ch('J'), now);
        assert_eq!(app.search_selection(), 2, "item-1 is read: skipped");
        app.update(key(KeyCode::Enter), now);
        app.update(ch('J'), now);
        let reader = app.reader.as_ref().expect("the reader stays open");
        assert_eq!(reader.item.id, "item-3");
        assert_eq!(reader.from, View::Feed);
        assert_eq!(
            app.selection(View::Feed),
            0,
            "the feed under it did not move"
        );
    }
}
