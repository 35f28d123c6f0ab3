//! What keys do: the overlays and the search prompt take keys first, then the key table
//! ([`crate::keys`]) turns a key into a [`Command`] for the place the reader is in (the
//! search results' keys are in [`super::searching`]).

use std::time::Instant;

use radar_api::Mark;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{
    App, ItemAction, Overlay, ReaderState, Request, StatusKind, TakeawaysOverlay, TrendsOverlay,
    View,
};
use crate::drops::Step;
use crate::keys::{Command, Context};
use crate::load::Load;
use crate::search;
use crate::strings;
use crate::tv::TvState;
use crate::widgets::sign_in::{SignInInput, SignInState};

impl App {
    pub(super) fn on_key(&mut self, key: KeyEvent, now: Instant) {
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            self.quit = true;
            return;
        }
        match &mut self.overlay {
            Overlay::SignIn(form) => {
                match form.input(key) {
                    SignInInput::Cancel => self.overlay = Overlay::None,
                    SignInInput::Submit { email, password } => {
                        self.requests.push(Request::SignIn { email, password });
                    }
                    SignInInput::Edited => {}
                }
                return;
            }
            Overlay::Takeaways(_) => {
                if matches!(
                    key.code,
                    KeyCode::Esc | KeyCode::Enter | KeyCode::Char('t' | 'q')
                ) {
                    self.overlay = Overlay::None;
                }
                return;
            }
            Overlay::Trends(overlay) => {
                match key.code {
                    KeyCode::Esc | KeyCode::Char('q' | 'T') => self.overlay = Overlay::None,
                    KeyCode::Char('j') | KeyCode::Down => {
                        overlay.scroll = overlay.scroll.saturating_add(1);
                    }
                    KeyCode::Char('k') | KeyCode::Up => {
                        overlay.scroll = overlay.scroll.saturating_sub(1);
                    }
                    KeyCode::Char('r' | 'R') | KeyCode::F(5) => {
                        if !matches!(overlay.trends, Load::Loaded(_)) {
                            overlay.trends = Load::Loading;
                        }
                        self.requests.push(Request::LoadTrends);
                    }
                    _ => {}
                }
                return;
            }
            Overlay::Help(scroll) => {
                let page = self.size.1.saturating_sub(6).max(1);
                match self.keys.command(Context::Help, &key) {
                    Some(Command::Down) => *scroll = scroll.saturating_add(1),
                    Some(Command::Up) => *scroll = scroll.saturating_sub(1),
                    Some(Command::PageDown) => *scroll = scroll.saturating_add(page),
                    Some(Command::PageUp) => *scroll = scroll.saturating_sub(page),
                    Some(Command::Back) => self.overlay = Overlay::None,
                    _ => {}
                }
                let max = crate::widgets::help::max_scroll(&self.keys, self.size);
                if let Overlay::Help(scroll) = &mut self.overlay {
                    *scroll = (*scroll).min(max);
                }
                return;
            }
            Overlay::None => {}
        }
        if self.search.as_ref().is_some_and(|s| s.editing) {
            return self.search_key(key);
        }
        let context = match (&self.reader, self.view) {
            (Some(_), _) => Context::Reader,
            (None, _) if self.searching() => Context::Search,
            (None, View::Drops) => Context::Drops,
            (None, View::Tv) => Context::Tv,
            (None, _) => Context::List,
        };
        if let Some(command) = self.keys.command(context, &key) {
            self.run(command, context, now);
        }
    }

    /// Runs one command in `context`.
    fn run(&mut self, command: Command, context: Context, now: Instant) {
        use Command as C;
        match (context, command) {
            (_, C::Quit) => self.quit = true,
            (_, C::Help) => self.overlay = Overlay::Help(0),
            (_, C::Suspend) => self.requests.push(Request::Suspend),
            (_, C::View(n)) => {
                let view = View::ALL[(n as usize).clamp(1, View::ALL.len()) - 1];
                self.switch_to(view, now);
            }
            (_, C::NextView) => self.step_tab(1, now),
            (_, C::PreviousView) => self.step_tab(-1, now),
            (Context::Search, C::Reload) => self.search_command(C::Reload, now),
            (_, C::Reload) => self.reload(),
            (_, C::SignIn) => match &self.session {
                Some(s) => {
                    let text = strings::signed_in_as(
                        &s.user.email,
                        &self.key(Context::Global, C::SignOut),
                    );
                    self.say(text, StatusKind::Info, now);
                }
                None => self.overlay = Overlay::SignIn(SignInState::default()),
            },
            (_, C::SignOut) => {
                if let Some(s) = &self.session {
                    self.requests.push(Request::SignOut(s.access_token.clone()));
                } else {
                    let text = strings::signed_out_hint(&self.key(Context::Global, C::SignIn));
                    self.say(text, StatusKind::Info, now);
                }
            }
            (_, C::Subscribe) => self.open_subscribe(now),
            (_, C::Search) => self.open_search(now),
            (_, C::Trends) => self.show_trends(now),
            (Context::Reader, C::Back) => self.reader = None,
            (Context::Search, C::Back) => self.search = None,
            (Context::Search, c) => self.search_command(c, now),
            (_, C::Back) if self.view == View::Tv => self.switch_to(View::Drops, now),
            (_, C::Back) => self.status = None,
            (Context::Reader, c) => self.reader_command(c, now),
            (Context::Drops, c) => self.drops_command(c, now),
            (Context::Tv, c) => self.tv_command(c),
            (_, c) => self.list_command(c, now),
        }
    }

    fn step_tab(&mut self, by: isize, now: Instant) {
        let tabs = self.tabs();
        let at = tabs.iter().position(|v| *v == self.view).unwrap_or(0);
        // `at + by`, around the tabs either way.
        let n = tabs.len();
        let step = by.unsigned_abs() % n;
        let next = (if by < 0 { at + n - step } else { at + step }) % n;
        self.switch_to(tabs[next], now);
    }

    /// Opens a view. Lists reload in the background; Drops and TV start from the first
    /// story, as the web app's views do when opened.
    pub fn switch_to(&mut self, view: View, now: Instant) {
        if view.needs_sign_in() && !self.signed_in() {
            let text =
                strings::sign_in_to_see(view.label(), &self.key(Context::Global, Command::SignIn));
            self.say(text, StatusKind::Info, now);
            return;
        }
        self.reader = None;
        self.search = None;
        if view == self.view {
            return;
        }
        self.view = view;
        match view {
            View::Drops => {
                self.take_stories();
                self.drops.reset();
            }
            View::Tv => {
                self.take_stories();
                self.tv = TvState::default();
            }
            View::Shared => {
                self.shared.start();
                self.requests.push(Request::LoadShared);
            }
            View::Alerts => {
                self.alert_hits.start();
                self.requests.push(Request::LoadAlertHits);
            }
            View::Feed => {}
            _ => {
                let mark = view.mark().expect("mark views");
                self.marks.loading(mark);
                self.requests.push(Request::LoadMarks(mark));
            }
        }
    }

    fn reload(&mut self) {
        match self.view {
            View::Feed | View::Drops | View::Tv => self.load_feed(),
            View::Shared => {
                self.shared.start();
                self.requests.push(Request::LoadShared);
            }
            View::Alerts => {
                self.alert_hits.start();
                self.requests.push(Request::LoadAlertHits);
            }
            v => {
                let mark = v.mark().expect("mark views");
                self.marks.loading(mark);
                self.requests.push(Request::LoadMarks(mark));
            }
        }
        if matches!(self.feed, Load::Failed(_))
            && !matches!(self.view, View::Feed | View::Drops | View::Tv)
        {
            self.load_feed();
        }
    }

    fn list_command(&mut self, command: Command, now: Instant) {
        use Command as C;
        let view = self.view;
        let len = self.list_items(view).len();
        let page = self.list_page();
        let sel = &mut self.selected[view.index()];
        *sel = (*sel).min(len.saturating_sub(1));
        match command {
            C::Down => *sel = (*sel + 1).min(len.saturating_sub(1)),
            C::Up => *sel = sel.saturating_sub(1),
            C::Top => *sel = 0,
            C::Bottom => *sel = len.saturating_sub(1),
            C::PageDown => *sel = (*sel + page).min(len.saturating_sub(1)),
            C::PageUp => *sel = sel.saturating_sub(page),
            C::NextUnread => self.step_unread(false, now),
            C::PreviousUnread => self.step_unread(true, now),
            C::Read => self.open_reader(now),
            C::OpenSource => self.item_action(ItemAction::Open, now),
            C::Favorite => self.item_action(ItemAction::Favorite, now),
            C::MarkRead => self.item_action(ItemAction::Read, now),
            C::Hide if view == View::Trash => self.item_action(ItemAction::Restore, now),
            C::Hide => self.item_action(ItemAction::Hide, now),
            C::Restore => self.item_action(ItemAction::Restore, now),
            C::Share => self.item_action(ItemAction::Share, now),
            C::More if view == View::Feed => self.more(now),
            C::Takeaways if view == View::Feed => self.show_takeaways(now),
            C::MarkFeedRead => self.mark_feed_read(false, now),
            C::UndoMarkFeedRead => self.mark_feed_read(true, now),
            _ => {}
        }
        // The feed reads on as Drops does: moving down to within two rows of its end asks
        // for the next page, so j on the last row goes on once it arrives.
        if view == View::Feed
            && matches!(command, C::Down | C::PageDown | C::Bottom)
            && self.selected[view.index()] + 2 >= len
        {
            self.next_feed_page();
        }
    }

    /// Rows a page key moves in a list: about what one screen shows.
    pub(super) fn list_page(&self) -> usize {
        (self.size.1 as usize).saturating_sub(8).clamp(1, 40) / 2
    }

    fn drops_command(&mut self, command: Command, now: Instant) {
        use Command as C;
        let paywall = self.drops.paywall;
        match command {
            C::NextStory | C::Down => {
                let step = self
                    .drops
                    .next(self.stories.len(), self.allowance_reached(), now);
                if step == Step::Advanced {
                    self.more_stories_if_near_end(self.drops.index);
                }
            }
            C::Up => self.drops.back(),
            C::Read if paywall => self.open_subscribe(now),
            C::Read => self.open_reader(now),
            C::OpenSource if !paywall => self.item_action(ItemAction::Open, now),
            C::MarkRead if !paywall => self.item_action(ItemAction::Read, now),
            C::Share if !paywall => self.item_action(ItemAction::Share, now),
            _ => {}
        }
    }

    fn tv_command(&mut self, command: Command) {
        use Command as C;
        let count = self.stories.len();
        let wrap = !self.can_page_on();
        match command {
            C::Pause => self.tv.toggle_pause(),
            C::Interval => self.tv.cycle_interval(),
            C::Down => {
                self.tv.next(count, wrap);
                self.more_stories_if_near_end(self.tv.index);
            }
            C::Up => self.tv.previous(count),
            C::Read => {
                if let Some(item) = self.stories.get(self.tv.index).cloned() {
                    self.opened(&item, View::Tv, false);
                    self.reader = Some(ReaderState {
                        item,
                        from: View::Tv,
                        scroll: 0,
                        matched: Vec::new(),
                    });
                }
            }
            _ => {}
        }
    }

    fn reader_command(&mut self, command: Command, now: Instant) {
        use Command as C;
        let page = self.reader_page();
        let max = self.reader_max_scroll();
        let Some(reader) = &mut self.reader else {
            return;
        };
        let from = reader.from;
        match command {
            C::Down => reader.scroll = reader.scroll.saturating_add(1).min(max),
            C::Up => reader.scroll = reader.scroll.saturating_sub(1),
            C::PageDown => reader.scroll = reader.scroll.saturating_add(page).min(max),
            C::PageUp => reader.scroll = reader.scroll.saturating_sub(page),
            C::Top => reader.scroll = 0,
            C::Bottom => reader.scroll = max,
            // Over search results, n and N step to the next result and read it.
            C::NextMatch | C::PreviousMatch if self.searching() => {
                let before = self.search_selection();
                self.search_command(command, now);
                if self.search_selection() != before {
                    self.reader = None;
                    self.open_reader(now);
                }
            }
            C::NextUnread | C::PreviousUnread if from.is_list() => {
                self.reader = None;
                self.step_unread(command == C::PreviousUnread, now);
                self.open_reader(now);
            }
            C::OpenSource => self.item_action(ItemAction::Open, now),
            C::Favorite => self.item_action(ItemAction::Favorite, now),
            C::MarkRead => self.item_action(ItemAction::Read, now),
            C::Hide if from == View::Trash => self.item_action(ItemAction::Restore, now),
            C::Hide => self.item_action(ItemAction::Hide, now),
            C::Restore => self.item_action(ItemAction::Restore, now),
            C::Share => self.item_action(ItemAction::Share, now),
            _ => {}
        }
    }

    /// Rows a page key scrolls in the reader: its height less two, so a line of context
    /// stays.
    fn reader_page(&self) -> u16 {
        crate::widgets::reader::text_height(self.size)
            .saturating_sub(2)
            .max(1)
    }

    fn reader_max_scroll(&self) -> u16 {
        self.reader.as_ref().map_or(0, |r| {
            crate::widgets::reader::max_scroll(
                &r.item,
                &self.marks,
                self.clock,
                self.size,
                self.theme,
            )
        })
    }

    /// Keeps the reader's scroll inside its text after a resize.
    pub(super) fn clamp_reader(&mut self) {
        let max = self.reader_max_scroll();
        if let Some(r) = &mut self.reader {
            r.scroll = r.scroll.min(max);
        }
    }

    /// Opens the selected item (or story) in the full-text reader.
    /// A search result opens as a feed item (its actions are the feed's).
    pub(super) fn open_reader(&mut self, _now: Instant) {
        let searching = self.searching();
        let from = if searching { View::Feed } else { self.view };
        if let Some(item) = self.current_item() {
            self.opened(&item, self.view, searching);
            let matched = self
                .search_hits()
                .into_iter()
                .filter(|_| searching)
                .find(|h| h.item.id == item.id)
                .map(crate::search::matched_words)
                .unwrap_or_default();
            self.reader = Some(ReaderState {
                item,
                from,
                scroll: 0,
                matched,
            });
        }
    }

    /// Moves to the next (or previous) item of the list (or search results) on screen
    /// that is not read, wrapping.
    pub(super) fn step_unread(&mut self, back: bool, now: Instant) {
        let view = self.view;
        let searching = self.searching();
        let items: Vec<&radar_api::NewsItem> = if searching {
            self.search_hits().into_iter().map(|h| &h.item).collect()
        } else {
            self.list_items(view)
        };
        let flags: Vec<bool> = items
            .iter()
            .map(|i| !self.marks.has(Mark::Read, &i.id))
            .collect();
        let from = if searching {
            self.search_selection()
        } else {
            self.selection(view)
        };
        match (search::step(&flags, from, back), &mut self.search) {
            (Some(i), Some(s)) if searching => s.selected = i,
            (Some(i), _) => self.selected[view.index()] = i,
            (None, _) => self.say(strings::NO_UNREAD, StatusKind::Info, now),
        }
    }

    fn open_subscribe(&mut self, now: Instant) {
        let url = strings::subscribe_at(&self.server);
        self.say(strings::opening(&url), StatusKind::Info, now);
        self.requests.push(Request::Open(url));
    }

    // ---- Trends ----

    /// Trends are for signed-in readers (the server says how many each list holds).
    fn show_trends(&mut self, now: Instant) {
        if !self.signed_in() {
            let text = strings::sign_in_to_see(
                strings::TRENDS_TITLE,
                &self.key(Context::Global, Command::SignIn),
            );
            self.say(text, StatusKind::Info, now);
            return;
        }
        self.overlay = Overlay::Trends(Box::new(TrendsOverlay {
            trends: Load::Loading,
            scroll: 0,
        }));
        self.requests.push(Request::LoadTrends);
    }

    // ---- Feed, takeaways ----

    /// Key takeaways are feed-only, for subscribers (docs/product.md §4): the server's word
    /// decides whether to ask, and its answer is drawn.
    fn show_takeaways(&mut self, now: Instant) {
        if !self.subscriber() {
            self.say(strings::TAKEAWAYS_ARE_PREMIUM, StatusKind::Info, now);
            return;
        }
        if let Some(item) = self.current_item() {
            self.overlay = Overlay::Takeaways(Box::new(TakeawaysOverlay {
                item_id: item.id.clone(),
                title: item.title.clone(),
                takeaways: Load::Loading,
            }));
            self.requests.push(Request::LoadTakeaways(item.id));
        }
    }

    fn more(&mut self, now: Instant) {
        let Some(feed) = self.feed.data_mut() else {
            return;
        };
        match (&feed.next_cursor, feed.loading_more) {
            (_, true) => {}
            (Some(cursor), false) => {
                let cursor = cursor.clone();
                feed.loading_more = true;
                self.requests
                    .push(Request::LoadFeed(super::FeedFetch::Next(cursor)));
            }
            (None, false) if feed.has_more => {
                self.say(strings::MORE_IS_PREMIUM, StatusKind::Info, now);
            }
            (None, false) => self.say(strings::NO_MORE, StatusKind::Info, now),
        }
    }
}
