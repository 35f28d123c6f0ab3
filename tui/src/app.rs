//! The reader's state and its one entry point, [`App::update`]: every event (a key, a
//! tick, an answer from the server) arrives as an [`Action`]; work that leaves the
//! process (HTTP calls, files, the browser) is queued as a [`Request`] that the runtime
//! runs in a spawned task, which answers with another `Action`. Nothing here blocks or
//! awaits, so every transition is a plain function call in the tests.

use std::time::Instant;

use chrono::{DateTime, Utc};
use radar_api::auth::AuthSession;
use radar_api::{FeedPage, Mark, NewsItem, SharedItem};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::api::{ApiError, ApiResult};
use crate::drops::{DropsState, Step};
use crate::load::Load;
use crate::marks::{MARKS, Marks};
use crate::session::needs_refresh;
use crate::strings;
use crate::theme::Theme;
use crate::tv::TvState;
use crate::widgets::sign_in::{SignInInput, SignInState};

/// How long a status message stays (the web app's toasts show for 5 s).
pub const STATUS_FOR: std::time::Duration = std::time::Duration::from_secs(5);
/// After a refresh failed for want of a connection, wait this long before the next try.
const REFRESH_RETRY: std::time::Duration = std::time::Duration::from_secs(30);

/// The views, in the order of their number keys (spec section 2; TV mode is a view here).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum View {
    /// The feed list.
    Feed,
    /// One story at a time.
    Drops,
    /// The auto-advancing slideshow.
    Tv,
    /// Favourites (signed in).
    Favs,
    /// Read items (signed in).
    Read,
    /// Hidden items (signed in).
    Trash,
    /// Shared items (signed in).
    Shared,
}

impl View {
    /// Every view, in tab order.
    pub const ALL: [View; 7] = [
        View::Feed,
        View::Drops,
        View::Tv,
        View::Favs,
        View::Read,
        View::Trash,
        View::Shared,
    ];

    /// The tab label.
    pub fn label(self) -> &'static str {
        match self {
            View::Feed => strings::TAB_FEED,
            View::Drops => strings::TAB_DROPS,
            View::Tv => strings::TAB_TV,
            View::Favs => strings::TAB_FAVS,
            View::Read => strings::TAB_READ,
            View::Trash => strings::TAB_TRASH,
            View::Shared => strings::TAB_SHARED,
        }
    }

    /// Whether only signed-in readers have this tab.
    pub fn needs_sign_in(self) -> bool {
        matches!(self, View::Favs | View::Read | View::Trash | View::Shared)
    }

    /// The mark whose list this view shows.
    pub fn mark(self) -> Option<Mark> {
        match self {
            View::Favs => Some(Mark::Favorite),
            View::Read => Some(Mark::Read),
            View::Trash => Some(Mark::Hidden),
            _ => None,
        }
    }

    /// Whether the view is a list with a detail pane.
    pub fn is_list(self) -> bool {
        !matches!(self, View::Drops | View::Tv)
    }

    fn index(self) -> usize {
        View::ALL
            .iter()
            .position(|v| *v == self)
            .expect("every view is in ALL")
    }
}

/// What each view offers (spec section 4, "Action visibility").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemAction {
    /// Favourite / unfavourite.
    Favorite,
    /// Mark read / unread.
    Read,
    /// Move to Trash.
    Hide,
    /// Take out of Trash.
    Restore,
    /// Share on LinkedIn.
    Share,
    /// Open the source URL.
    Open,
}

impl ItemAction {
    /// Whether `view` offers this action.
    pub fn allowed_in(self, view: View) -> bool {
        use View as V;
        match self {
            ItemAction::Favorite => matches!(view, V::Feed | V::Favs | V::Shared),
            ItemAction::Read => matches!(view, V::Feed | V::Read | V::Shared | V::Drops),
            ItemAction::Hide => matches!(view, V::Feed | V::Favs),
            ItemAction::Restore => view == V::Trash,
            ItemAction::Share | ItemAction::Open => !matches!(view, V::Trash | V::Tv),
        }
    }
}

/// The loaded feed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FeedData {
    /// Every item loaded so far, newest first, as the server sent them.
    pub items: Vec<NewsItem>,
    /// Where the next page starts (subscribers only).
    pub next_cursor: Option<String>,
    /// Whether the server has more items than these.
    pub has_more: bool,
    /// The server's page size for this reader.
    pub limit: usize,
    /// How many items the reader can reach from the first page.
    pub total: u64,
    /// Whether the server counted the reader as a subscriber.
    pub subscriber: bool,
    /// Whether the next page is on its way.
    pub loading_more: bool,
}

/// How a status message reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusKind {
    /// Neutral.
    Info,
    /// Something worked.
    Success,
    /// Something half-worked.
    Warning,
    /// Something failed.
    Error,
}

/// A message on the bottom line.
#[derive(Debug, Clone, PartialEq)]
pub struct Status {
    /// The text.
    pub text: String,
    /// How it reads.
    pub kind: StatusKind,
    /// When it goes away.
    pub until: Instant,
}

/// What is drawn over the view.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Overlay {
    /// Nothing.
    #[default]
    None,
    /// The key list.
    Help,
    /// The sign-in form.
    SignIn(SignInState),
    /// Key takeaways of the selected item.
    Takeaways(Box<crate::takeaways::Takeaways>),
}

/// Work for the runtime. Calls to the server carry the session's token when there is one.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// `GET /api/news`, the first page or the one after `cursor`.
    LoadFeed {
        /// `nextCursor` of the last page, for "more".
        cursor: Option<String>,
    },
    /// `GET /api/favorites|hidden|read`.
    LoadMarks(Mark),
    /// `GET /api/shared`.
    LoadShared,
    /// `POST` or `DELETE /api/{mark}/{id}`.
    SetMark {
        /// Which mark.
        mark: Mark,
        /// Which item.
        id: String,
        /// Set or clear.
        on: bool,
    },
    /// `POST /api/shared/{id}`.
    RecordShare(String),
    /// Password sign-in.
    SignIn {
        /// E-mail.
        email: String,
        /// Password.
        password: String,
    },
    /// Refresh-token grant.
    Refresh(String),
    /// Sign-out on the server.
    SignOut(String),
    /// Write the session file.
    SaveSession(Box<AuthSession>),
    /// Delete the session file.
    ForgetSession,
    /// Open a URL in the browser.
    Open(String),
}

/// Everything that can happen to the reader.
#[derive(Debug)]
pub enum Action {
    /// A key event (only presses count).
    Key(KeyEvent),
    /// The terminal changed size (the next draw adapts).
    Resize,
    /// Time passed (TV mode, status expiry, session refresh).
    Tick,
    /// A feed page arrived.
    FeedLoaded {
        /// The session epoch of the request.
        epoch: u64,
        /// Whether it was a "more" page.
        append: bool,
        /// The answer.
        result: ApiResult<FeedPage>,
    },
    /// A mark's list arrived.
    MarksLoaded {
        /// The session epoch of the request.
        epoch: u64,
        /// Which list.
        mark: Mark,
        /// The answer.
        result: ApiResult<Vec<NewsItem>>,
    },
    /// The shared list arrived.
    SharedLoaded {
        /// The session epoch of the request.
        epoch: u64,
        /// The answer.
        result: ApiResult<Vec<SharedItem>>,
    },
    /// A mark change was stored (or not).
    MarkSaved {
        /// The session epoch of the request.
        epoch: u64,
        /// Which mark.
        mark: Mark,
        /// Which item.
        id: String,
        /// Set or cleared.
        on: bool,
        /// The answer.
        result: ApiResult<()>,
    },
    /// A share was recorded (failures are only noted, as in the web app).
    ShareSaved {
        /// The session epoch of the request.
        epoch: u64,
        /// The answer.
        result: ApiResult<()>,
    },
    /// The answer to a sign-in.
    SignedIn(ApiResult<AuthSession>),
    /// The answer to a refresh.
    Refreshed {
        /// The session epoch of the request.
        epoch: u64,
        /// The answer.
        result: ApiResult<AuthSession>,
    },
    /// The answer to a sign-out.
    SignedOut(ApiResult<()>),
    /// The session file was written (or not).
    SessionSaved(Result<(), String>),
    /// The browser was started (or not).
    Opened(Result<(), String>),
}

/// The whole state of the reader.
#[derive(Debug)]
pub struct App {
    /// The daemon's address, for messages.
    pub server: String,
    /// Styles.
    pub theme: Theme,
    /// The view on screen.
    pub view: View,
    /// The signed-in session.
    pub session: Option<AuthSession>,
    /// Bumped at every sign-in and sign-out: answers to older requests are dropped.
    pub epoch: u64,
    /// The feed.
    pub feed: Load<FeedData>,
    /// Favourite, hidden and read items.
    pub marks: Marks,
    /// Shared items.
    pub shared: Load<Vec<SharedItem>>,
    /// The stories of Drops and TV mode: the feed as it was when the view opened, so
    /// marking a story read does not move the one under the reader.
    pub stories: Vec<NewsItem>,
    /// The selected row of each view.
    pub selected: [usize; 7],
    /// Drops.
    pub drops: DropsState,
    /// TV mode.
    pub tv: TvState,
    /// What is drawn over the view.
    pub overlay: Overlay,
    /// The bottom line's message.
    pub status: Option<Status>,
    /// Work queued for the runtime.
    pub requests: Vec<Request>,
    /// The wall clock, for relative times and token expiry (set by the runtime).
    pub clock: DateTime<Utc>,
    /// Whether a refresh is on its way.
    refreshing: bool,
    /// Reload everything when the refresh on its way succeeds.
    reload_after_refresh: bool,
    /// No timed refresh before this.
    refresh_after: Option<Instant>,
    /// Mark changes the server refused for an expired token, sent again after a refresh.
    retry_after_refresh: Vec<Request>,
    /// Mark changes on their way to the server.
    mark_writes: usize,
    /// Lists to fetch again once no mark change is on its way: the server's answer is
    /// the truth then, and an answer read while changes were in flight could be stale.
    stale_lists: Vec<Mark>,
    /// When the last tick came.
    last_tick: Option<Instant>,
    /// Set by `q`: the runtime ends.
    pub quit: bool,
}

impl App {
    /// A reader of `server`, signed in when `session` is given.
    pub fn new(server: &str, session: Option<AuthSession>, theme: Theme) -> Self {
        Self {
            server: server.trim_end_matches('/').to_string(),
            theme,
            view: View::Feed,
            session,
            epoch: 0,
            feed: Load::Idle,
            marks: Marks::default(),
            shared: Load::Idle,
            stories: Vec::new(),
            selected: [0; 7],
            drops: DropsState::default(),
            tv: TvState::default(),
            overlay: Overlay::None,
            status: None,
            requests: Vec::new(),
            clock: Utc::now(),
            refreshing: false,
            reload_after_refresh: false,
            refresh_after: None,
            retry_after_refresh: Vec::new(),
            mark_writes: 0,
            stale_lists: Vec::new(),
            last_tick: None,
            quit: false,
        }
    }

    /// The first requests: refresh a stale session first, then load.
    pub fn start(&mut self) {
        match &self.session {
            Some(s) if needs_refresh(s, self.clock.timestamp()) => {
                self.feed = Load::Loading;
                self.reload_after_refresh = true;
                self.request_refresh();
            }
            _ => self.load_all(),
        }
    }

    /// Takes the queued work.
    pub fn take_requests(&mut self) -> Vec<Request> {
        std::mem::take(&mut self.requests)
    }

    /// The access token, when signed in.
    pub fn token(&self) -> Option<&str> {
        self.session.as_ref().map(|s| s.access_token.as_str())
    }

    /// Whether someone is signed in.
    pub fn signed_in(&self) -> bool {
        self.session.is_some()
    }

    /// Whether the reader is a subscriber, as the server said in its last feed answer.
    pub fn subscriber(&self) -> bool {
        self.feed.data().is_some_and(|f| f.subscriber)
    }

    /// Whether the server said the reader may not read past the loaded stories: more
    /// exist, but no cursor was given.
    pub fn allowance_reached(&self) -> bool {
        self.feed
            .data()
            .is_some_and(|f| f.has_more && f.next_cursor.is_none())
    }

    /// The tabs this reader has.
    pub fn tabs(&self) -> Vec<View> {
        View::ALL
            .into_iter()
            .filter(|v| self.signed_in() || !v.needs_sign_in())
            .collect()
    }

    /// The feed as shown: the server's items, without those marked here since.
    pub fn feed_items(&self) -> Vec<&NewsItem> {
        let Some(feed) = self.feed.data() else {
            return Vec::new();
        };
        feed.items
            .iter()
            .filter(|i| self.marks.in_feed(&i.id))
            .collect()
    }

    /// The stories TV mode cycles through: what the server gave.
    pub fn tv_stories(&self) -> &[NewsItem] {
        &self.stories
    }

    /// The items of a list view.
    pub fn list_items(&self, view: View) -> Vec<&NewsItem> {
        match view {
            View::Feed => self.feed_items(),
            View::Shared => self
                .shared
                .data()
                .map(|s| s.iter().map(|i| &i.item).collect())
                .unwrap_or_default(),
            View::Drops | View::Tv => self.stories.iter().collect(),
            _ => {
                let mark = view.mark().expect("list views with marks");
                self.marks
                    .list(mark)
                    .data()
                    .map(|l| l.iter().collect())
                    .unwrap_or_default()
            }
        }
    }

    /// The selected row of a list view, kept inside the list.
    pub fn selection(&self, view: View) -> usize {
        let len = self.list_items(view).len();
        self.selected[view.index()].min(len.saturating_sub(1))
    }

    /// The item the next key acts on.
    pub fn current_item(&self) -> Option<NewsItem> {
        match self.view {
            View::Drops => self.stories.get(self.drops.index).cloned(),
            View::Tv => self.tv_stories().get(self.tv.index).cloned(),
            v => self
                .list_items(v)
                .get(self.selection(v))
                .map(|i| (*i).clone()),
        }
    }

    /// Applies one event. `now` is the monotonic time of the event.
    pub fn update(&mut self, action: Action, now: Instant) {
        match action {
            Action::Key(key) => self.on_key(key, now),
            Action::Resize => {}
            Action::Tick => self.on_tick(now),
            Action::FeedLoaded {
                epoch,
                append,
                result,
            } if epoch == self.epoch => self.on_feed(append, result, now),
            Action::MarksLoaded {
                epoch,
                mark,
                result,
            } if epoch == self.epoch => self.on_marks(mark, result),
            Action::SharedLoaded { epoch, result } if epoch == self.epoch => self.on_shared(result),
            Action::MarkSaved {
                epoch,
                mark,
                id,
                on,
                result,
            } if epoch == self.epoch => self.on_mark_saved(mark, &id, on, result, now),
            Action::ShareSaved {
                epoch,
                result: Ok(()),
            } if epoch == self.epoch && self.shared.data().is_some() => {
                self.requests.push(Request::LoadShared);
            }
            Action::SignedIn(result) => self.on_signed_in(result, now),
            Action::Refreshed { epoch, result } if epoch == self.epoch => {
                self.on_refreshed(result, now)
            }
            Action::SignedOut(result) => self.on_signed_out(result, now),
            Action::SessionSaved(Err(e)) => {
                self.say(strings::session_not_saved(&e), StatusKind::Warning, now)
            }
            Action::Opened(Err(e)) => self.say(strings::cannot_open(&e), StatusKind::Error, now),
            // Answers to requests of an earlier session, and quiet successes.
            _ => {}
        }
    }

    fn say(&mut self, text: impl Into<String>, kind: StatusKind, now: Instant) {
        self.status = Some(Status {
            text: text.into(),
            kind,
            until: now + STATUS_FOR,
        });
    }

    // ---- Keys ----

    fn on_key(&mut self, key: KeyEvent, now: Instant) {
        // Release and repeat events (kitty keyboard protocol, Windows) would double keys.
        if key.kind != KeyEventKind::Press {
            return;
        }
        if key.modifiers.contains(KeyModifiers::CONTROL) && matches!(key.code, KeyCode::Char('c')) {
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
                    KeyCode::Esc | KeyCode::Enter | KeyCode::Char('t') | KeyCode::Char('q')
                ) {
                    self.overlay = Overlay::None;
                }
                return;
            }
            Overlay::Help => {
                if matches!(
                    key.code,
                    KeyCode::Esc | KeyCode::Char('?') | KeyCode::Char('q') | KeyCode::Enter
                ) {
                    self.overlay = Overlay::None;
                }
                return;
            }
            Overlay::None => {}
        }
        if self.global_key(key, now) {
            return;
        }
        match self.view {
            View::Drops => self.drops_key(key, now),
            View::Tv => self.tv_key(key),
            _ => self.list_key(key, now),
        }
    }

    /// Keys that mean the same in every view; answers whether the key was used.
    fn global_key(&mut self, key: KeyEvent, now: Instant) -> bool {
        match key.code {
            KeyCode::Char('q') => self.quit = true,
            KeyCode::Char('?') => self.overlay = Overlay::Help,
            KeyCode::Char(c @ '1'..='7') => {
                let view = View::ALL[c as usize - '1' as usize];
                self.switch_to(view, now);
            }
            KeyCode::Tab | KeyCode::Right | KeyCode::Char('l') => self.step_tab(1, now),
            KeyCode::BackTab | KeyCode::Left | KeyCode::Char('h') => self.step_tab(-1, now),
            KeyCode::Char('R') | KeyCode::F(5) => self.reload(),
            KeyCode::Char('i') => match &self.session {
                Some(s) => {
                    let text = strings::signed_in_as(&s.user.email);
                    self.say(text, StatusKind::Info, now)
                }
                None => self.overlay = Overlay::SignIn(SignInState::default()),
            },
            KeyCode::Char('O') => match &self.session {
                Some(s) => self.requests.push(Request::SignOut(s.access_token.clone())),
                None => self.say(strings::SIGNED_OUT_HINT, StatusKind::Info, now),
            },
            KeyCode::Esc if self.view == View::Tv => self.switch_to(View::Drops, now),
            KeyCode::Esc => self.status = None,
            _ => return false,
        }
        true
    }

    fn step_tab(&mut self, by: isize, now: Instant) {
        let tabs = self.tabs();
        let at = tabs.iter().position(|v| *v == self.view).unwrap_or(0) as isize;
        let next = (at + by).rem_euclid(tabs.len() as isize) as usize;
        self.switch_to(tabs[next], now);
    }

    /// Opens a view. Lists reload in the background; Drops and TV start from the first
    /// story, as the web app's views do when opened.
    pub fn switch_to(&mut self, view: View, now: Instant) {
        if view.needs_sign_in() && !self.signed_in() {
            self.say(strings::sign_in_to_see(view.label()), StatusKind::Info, now);
            return;
        }
        if view == self.view {
            return;
        }
        self.view = view;
        match view {
            View::Drops => {
                self.snapshot_stories();
                self.drops.reset();
            }
            View::Tv => {
                self.snapshot_stories();
                self.tv = TvState::default();
            }
            View::Shared => {
                self.shared.start();
                self.requests.push(Request::LoadShared);
            }
            View::Feed => {}
            _ => {
                let mark = view.mark().expect("mark views");
                self.marks.loading(mark);
                self.requests.push(Request::LoadMarks(mark));
            }
        }
    }

    fn snapshot_stories(&mut self) {
        self.stories = self
            .feed
            .data()
            .map(|f| {
                f.items
                    .iter()
                    .filter(|i| self.marks.in_feed(&i.id))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        self.drops.clamp(self.stories.len());
    }

    fn reload(&mut self) {
        match self.view {
            View::Feed | View::Drops | View::Tv => self.load_feed(),
            View::Shared => {
                self.shared.start();
                self.requests.push(Request::LoadShared);
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

    fn list_key(&mut self, key: KeyEvent, now: Instant) {
        let view = self.view;
        let len = self.list_items(view).len();
        let sel = &mut self.selected[view.index()];
        *sel = (*sel).min(len.saturating_sub(1));
        match key.code {
            KeyCode::Char('j') | KeyCode::Down => *sel = (*sel + 1).min(len.saturating_sub(1)),
            KeyCode::Char('k') | KeyCode::Up => *sel = sel.saturating_sub(1),
            KeyCode::Char('g') | KeyCode::Home => *sel = 0,
            KeyCode::Char('G') | KeyCode::End => *sel = len.saturating_sub(1),
            KeyCode::PageDown => *sel = (*sel + 10).min(len.saturating_sub(1)),
            KeyCode::PageUp => *sel = sel.saturating_sub(10),
            KeyCode::Enter | KeyCode::Char('o') => self.item_action(ItemAction::Open, now),
            KeyCode::Char('f') => self.item_action(ItemAction::Favorite, now),
            KeyCode::Char('r') => self.item_action(ItemAction::Read, now),
            KeyCode::Char('x') if view == View::Trash => self.item_action(ItemAction::Restore, now),
            KeyCode::Char('x') => self.item_action(ItemAction::Hide, now),
            KeyCode::Char('u') => self.item_action(ItemAction::Restore, now),
            KeyCode::Char('s') => self.item_action(ItemAction::Share, now),
            KeyCode::Char('m') if view == View::Feed => self.more(now),
            KeyCode::Char('t') if view == View::Feed => self.show_takeaways(now),
            _ => {}
        }
    }

    fn drops_key(&mut self, key: KeyEvent, now: Instant) {
        match key.code {
            KeyCode::Char(' ') | KeyCode::Char('j') | KeyCode::Down | KeyCode::Enter => {
                let step = self
                    .drops
                    .next(self.stories.len(), self.allowance_reached(), now);
                if step == Step::Advanced {
                    self.more_stories_if_near_end();
                }
            }
            KeyCode::Char('k') | KeyCode::Up => self.drops.back(),
            KeyCode::Char('o') if !self.drops.paywall => self.item_action(ItemAction::Open, now),
            KeyCode::Char('r') if !self.drops.paywall => self.item_action(ItemAction::Read, now),
            KeyCode::Char('s') if !self.drops.paywall => self.item_action(ItemAction::Share, now),
            _ => {}
        }
    }

    /// Subscribers read on past the first page: fetch the next one two stories early.
    fn more_stories_if_near_end(&mut self) {
        if !self.subscriber() || self.drops.index + 2 < self.stories.len() {
            return;
        }
        if let Some(feed) = self.feed.data_mut()
            && let (Some(cursor), false) = (feed.next_cursor.clone(), feed.loading_more)
        {
            feed.loading_more = true;
            self.requests.push(Request::LoadFeed {
                cursor: Some(cursor),
            });
        }
    }

    fn tv_key(&mut self, key: KeyEvent) {
        let count = self.tv_stories().len();
        match key.code {
            KeyCode::Char(' ') => self.tv.toggle_pause(),
            KeyCode::Char('t') => self.tv.cycle_interval(),
            KeyCode::Char('n') | KeyCode::Char('j') | KeyCode::Down => self.tv.next(count),
            KeyCode::Char('p') | KeyCode::Char('k') | KeyCode::Up => self.tv.previous(count),
            _ => {}
        }
    }

    /// Key takeaways are feed-only, for subscribers (spec section 4).
    fn show_takeaways(&mut self, now: Instant) {
        if !self.subscriber() {
            self.say(strings::TAKEAWAYS_ARE_PREMIUM, StatusKind::Info, now);
            return;
        }
        if let Some(item) = self.current_item() {
            let takeaways = crate::takeaways::takeaways(&item);
            self.overlay = Overlay::Takeaways(Box::new(takeaways));
        }
    }

    fn more(&mut self, now: Instant) {
        if !self.subscriber() {
            self.say(strings::MORE_IS_PREMIUM, StatusKind::Info, now);
            return;
        }
        let Some(feed) = self.feed.data_mut() else {
            return;
        };
        match (&feed.next_cursor, feed.loading_more) {
            (_, true) => {}
            (Some(cursor), false) => {
                let cursor = cursor.clone();
                feed.loading_more = true;
                self.requests.push(Request::LoadFeed {
                    cursor: Some(cursor),
                });
            }
            (None, false) => self.say(strings::NO_MORE, StatusKind::Info, now),
        }
    }

    fn item_action(&mut self, action: ItemAction, now: Instant) {
        if !action.allowed_in(self.view) {
            self.say(strings::NOT_HERE, StatusKind::Info, now);
            return;
        }
        let Some(item) = self.current_item() else {
            return;
        };
        let mark = match action {
            ItemAction::Open => {
                match &item.url {
                    Some(url) => {
                        self.say(strings::opening(url), StatusKind::Info, now);
                        self.requests.push(Request::Open(url.clone()));
                    }
                    None => self.say(strings::NO_SOURCE_URL, StatusKind::Info, now),
                }
                return;
            }
            ItemAction::Share => {
                self.requests
                    .push(Request::Open(crate::format::share_link(&item)));
                if self.signed_in() {
                    self.requests.push(Request::RecordShare(item.id.clone()));
                }
                self.say(strings::SHARED_ON_LINKEDIN, StatusKind::Success, now);
                return;
            }
            ItemAction::Favorite => (Mark::Favorite, None),
            ItemAction::Read => (Mark::Read, None),
            ItemAction::Hide => (Mark::Hidden, Some(true)),
            ItemAction::Restore => (Mark::Hidden, Some(false)),
        };
        if !self.signed_in() {
            self.say(strings::SIGN_IN_TO_MARK, StatusKind::Info, now);
            return;
        }
        let (mark, on) = mark;
        let on = match on {
            Some(true) => {
                self.marks.set(mark, &item);
                true
            }
            Some(false) => {
                self.marks.clear(mark, &item.id);
                false
            }
            None => self.marks.toggle(mark, &item),
        };
        if mark != Mark::Hidden || on {
            self.say(strings::mark_done(mark, on), StatusKind::Success, now);
        }
        self.send_mark(Request::SetMark {
            mark,
            id: item.id,
            on,
        });
    }

    /// Sends a mark change; its list is fetched again when the changes settle (spec
    /// section 7: the matching list is refetched).
    fn send_mark(&mut self, request: Request) {
        if let Request::SetMark { mark, .. } = &request {
            self.mark_writes += 1;
            if !self.stale_lists.contains(mark) {
                self.stale_lists.push(*mark);
            }
        }
        self.requests.push(request);
    }

    // ---- Time ----

    fn on_tick(&mut self, now: Instant) {
        let dt = self
            .last_tick
            .map(|t| now.saturating_duration_since(t))
            .unwrap_or_default();
        self.last_tick = Some(now);
        if self.view == View::Tv {
            let count = self.tv_stories().len();
            self.tv.tick(dt, count);
        }
        if self.status.as_ref().is_some_and(|s| now >= s.until) {
            self.status = None;
        }
        let due = self
            .session
            .as_ref()
            .is_some_and(|s| needs_refresh(s, self.clock.timestamp()));
        if due && !self.refreshing && self.refresh_after.is_none_or(|t| now >= t) {
            self.request_refresh();
        }
    }

    // ---- Loading ----

    fn load_feed(&mut self) {
        self.feed.start();
        if let Some(f) = self.feed.data_mut() {
            f.loading_more = false;
        }
        self.requests.push(Request::LoadFeed { cursor: None });
    }

    fn load_all(&mut self) {
        self.load_feed();
        if self.signed_in() {
            for mark in MARKS {
                self.marks.loading(mark);
                self.requests.push(Request::LoadMarks(mark));
            }
            self.shared.start();
            self.requests.push(Request::LoadShared);
        }
    }

    fn on_feed(&mut self, append: bool, result: ApiResult<FeedPage>, now: Instant) {
        match result {
            Ok(page) => {
                let feed = if append { self.feed.data_mut() } else { None };
                match feed {
                    Some(feed) => {
                        let new: Vec<NewsItem> = page
                            .items
                            .into_iter()
                            .filter(|i| !feed.items.iter().any(|o| o.id == i.id))
                            .collect();
                        self.stories
                            .extend(new.iter().filter(|i| self.marks.in_feed(&i.id)).cloned());
                        feed.items.extend(new);
                        feed.next_cursor = page.next_cursor;
                        feed.has_more = page.has_more;
                        feed.total = page.total;
                        feed.subscriber = page.subscriber;
                        feed.loading_more = false;
                    }
                    None => {
                        self.feed = Load::Loaded(FeedData {
                            items: page.items,
                            next_cursor: page.next_cursor,
                            has_more: page.has_more,
                            limit: page.limit,
                            total: page.total,
                            subscriber: page.subscriber,
                            loading_more: false,
                        });
                        if matches!(self.view, View::Drops | View::Tv) || self.stories.is_empty() {
                            self.snapshot_stories();
                        }
                    }
                }
            }
            Err(e) if e.is_unauthorized() && self.signed_in() => self.on_unauthorized(),
            Err(e) => {
                if let Some(feed) = self.feed.data_mut() {
                    feed.loading_more = false;
                    self.say(
                        format!("{} {}", e, strings::RETRY_HINT),
                        StatusKind::Error,
                        now,
                    );
                } else {
                    self.feed = Load::Failed(e.to_string());
                }
            }
        }
    }

    fn on_marks(&mut self, mark: Mark, result: ApiResult<Vec<NewsItem>>) {
        match result {
            Ok(_) if self.mark_writes > 0 => {
                if !self.stale_lists.contains(&mark) {
                    self.stale_lists.push(mark);
                }
            }
            Ok(items) => self.marks.loaded(mark, items),
            Err(e) if e.is_unauthorized() => self.on_unauthorized(),
            Err(e) => self.marks.failed(mark, e.message),
        }
    }

    fn on_shared(&mut self, result: ApiResult<Vec<SharedItem>>) {
        match result {
            Ok(items) => self.shared = Load::Loaded(items),
            Err(e) if e.is_unauthorized() => self.on_unauthorized(),
            Err(e) => self.shared = Load::Failed(e.message),
        }
    }

    fn on_mark_saved(
        &mut self,
        mark: Mark,
        id: &str,
        on: bool,
        result: ApiResult<()>,
        now: Instant,
    ) {
        let restore = mark == Mark::Hidden && !on;
        self.mark_writes = self.mark_writes.saturating_sub(1);
        // After a failure the local change stays (spec section 8), so the server's list,
        // which lacks it, is fetched only where nothing is on screen yet. After a 401 the
        // change is retried once the session is refreshed.
        if self.mark_writes == 0 && !result.as_ref().is_err_and(ApiError::is_unauthorized) {
            for stale in std::mem::take(&mut self.stale_lists) {
                if result.is_ok() || self.marks.list(stale).data().is_none() {
                    self.marks.loading(stale);
                    self.requests.push(Request::LoadMarks(stale));
                }
            }
        }
        match result {
            Ok(()) if restore => {
                self.say(strings::ITEM_RESTORED, StatusKind::Success, now);
                // An item hidden before the feed loaded is not in it: ask the server.
                if !self
                    .feed
                    .data()
                    .is_some_and(|f| f.items.iter().any(|i| i.id == id))
                {
                    self.load_feed();
                }
            }
            Ok(()) => {}
            Err(e) if e.is_unauthorized() && self.signed_in() => {
                self.retry_after_refresh.push(Request::SetMark {
                    mark,
                    id: id.to_string(),
                    on,
                });
                self.on_unauthorized();
            }
            Err(_) if restore => self.say(strings::RESTORE_FAILED, StatusKind::Error, now),
            Err(_) => self.say(strings::mark_warning(mark, on), StatusKind::Warning, now),
        }
    }

    // ---- Session ----

    fn request_refresh(&mut self) {
        if let Some(s) = &self.session {
            self.refreshing = true;
            self.requests
                .push(Request::Refresh(s.refresh_token.clone()));
        }
    }

    /// The server refused the token: try a refresh once, then give up the session.
    fn on_unauthorized(&mut self) {
        if !self.refreshing {
            self.reload_after_refresh = true;
            self.request_refresh();
        }
    }

    fn on_signed_in(&mut self, result: ApiResult<AuthSession>, now: Instant) {
        let Overlay::SignIn(form) = &mut self.overlay else {
            return;
        };
        match result {
            Ok(session) => {
                self.overlay = Overlay::None;
                self.begin_session(session);
                self.say(strings::WELCOME_BACK, StatusKind::Success, now);
            }
            Err(e) => form.failed(strings::sign_in_failed(&e.message)),
        }
    }

    fn begin_session(&mut self, session: AuthSession) {
        self.epoch += 1;
        self.requests
            .push(Request::SaveSession(Box::new(session.clone())));
        self.session = Some(session);
        self.marks = Marks::default();
        self.shared = Load::Idle;
        self.feed = Load::Loading;
        self.refreshing = false;
        self.load_all();
    }

    fn end_session(&mut self) {
        self.epoch += 1;
        self.retry_after_refresh.clear();
        self.mark_writes = 0;
        self.stale_lists.clear();
        self.session = None;
        self.refreshing = false;
        self.reload_after_refresh = false;
        self.requests.push(Request::ForgetSession);
        self.marks = Marks::default();
        self.shared = Load::Idle;
        self.feed = Load::Loading;
        if self.view.needs_sign_in() {
            self.view = View::Feed;
        }
        self.load_all();
    }

    fn on_refreshed(&mut self, result: ApiResult<AuthSession>, now: Instant) {
        self.refreshing = false;
        let reload = std::mem::take(&mut self.reload_after_refresh);
        match result {
            Ok(session) => {
                self.requests
                    .push(Request::SaveSession(Box::new(session.clone())));
                self.session = Some(session);
                self.refresh_after = None;
                if reload {
                    self.load_all();
                }
                for retry in std::mem::take(&mut self.retry_after_refresh) {
                    self.send_mark(retry);
                }
            }
            // No answer: keep the session and try again later.
            Err(ApiError {
                status: None,
                message,
            }) => {
                self.refresh_after = Some(now + REFRESH_RETRY);
                if reload && self.feed.data().is_none() {
                    self.feed = Load::Failed(message);
                }
            }
            // The refresh token is spent or revoked: the session is over.
            Err(_) => {
                self.end_session();
                self.say(strings::SESSION_EXPIRED, StatusKind::Warning, now);
            }
        }
    }

    fn on_signed_out(&mut self, result: ApiResult<()>, now: Instant) {
        if self.session.is_none() {
            return;
        }
        match result {
            // A token the server no longer knows is as signed out as it gets.
            Ok(())
            | Err(ApiError {
                status: Some(401 | 403 | 404),
                ..
            }) => {
                self.end_session();
                self.say(strings::SIGNED_OUT, StatusKind::Success, now);
            }
            Err(_) => self.say(strings::SIGN_OUT_FAILED, StatusKind::Error, now),
        }
    }
}

#[cfg(test)]
#[path = "app_tests.rs"]
mod tests;
