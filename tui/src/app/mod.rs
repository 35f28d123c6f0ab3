//! The reader's state and its one entry point, [`App::update`]: every event (a key, a
//! tick, an answer from the server) arrives as an [`Action`]; work that leaves the
//! process (HTTP calls, files, the browser) is queued as a [`Request`] that the runtime
//! runs in a spawned task, which answers with another `Action`. Nothing here blocks or
//! awaits, so every transition is a plain function call in the tests.
//!
//! The transitions are split by what they are about: [`commands`] (what keys do),
//! [`loading`] (the feed, lists, takeaways and the subscription), [`marking`] (marks and
//! the ones waiting for the server), [`reading`] (opening reads an item; the unread
//! count), [`searching`] (`/` and its results) and [`signing`] (the session).

mod commands;
mod loading;
mod marking;
mod reading;
mod searching;
mod signing;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use radar_api::account::UserMetadata;
use radar_api::alerts::{AlertHit, AlertHits, AlertList};
use radar_api::auth::AuthSession;
use radar_api::search::SearchPage;
use radar_api::trends::TrendsPage;
use radar_api::{
    FeedPage, Mark, MarkResult, NewsItem, Opened, OpenedFrom, ReadBeforeState, SharedItem,
    Takeaways, UnreadCount,
};
use ratatui::crossterm::event::{KeyEvent, KeyEventKind};

use crate::api::ApiResult;
use crate::drops::DropsState;
use crate::keys::{Command, Context, KeyMap};
use crate::load::Load;
use crate::marks::Marks;
use crate::pending::PendingMarks;
use crate::search::Search;
use crate::strings;
use crate::theme::Theme;
use crate::tv::TvState;
use crate::widgets::sign_in::SignInState;

/// How long a status message stays (the web app's toasts show for 5 s).
pub const STATUS_FOR: Duration = Duration::from_secs(5);
/// How often a signed-in reader asks the server about its subscription, and sends marks
/// that are waiting for the server again (`radar tui --recheck-secs` changes it).
pub const RECHECK_EVERY: Duration = Duration::from_secs(30);

/// The views, in the order of their number keys (docs/product.md §2; TV mode is a view here).
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
    /// What the reader's alerts found (signed in; docs/product.md §15).
    Alerts,
}

impl View {
    /// Every view, in tab order.
    pub const ALL: [View; 8] = [
        View::Feed,
        View::Drops,
        View::Tv,
        View::Favs,
        View::Read,
        View::Trash,
        View::Shared,
        View::Alerts,
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
            View::Alerts => strings::TAB_ALERTS,
        }
    }

    /// Whether only signed-in readers have this tab.
    pub fn needs_sign_in(self) -> bool {
        matches!(
            self,
            View::Favs | View::Read | View::Trash | View::Shared | View::Alerts
        )
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

    /// The view that lists `mark`, when one does: the inverse of [`View::mark`].
    pub fn of_mark(mark: Mark) -> Option<View> {
        View::ALL.into_iter().find(|v| v.mark() == Some(mark))
    }

    fn index(self) -> usize {
        View::ALL
            .iter()
            .position(|v| *v == self)
            .expect("every view is in ALL")
    }
}

/// What each view offers (docs/product.md §4, "Action visibility").
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
            ItemAction::Favorite => matches!(view, V::Feed | V::Favs | V::Shared | V::Alerts),
            ItemAction::Read => {
                matches!(view, V::Feed | V::Read | V::Shared | V::Drops | V::Alerts)
            }
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
    /// Where the next page starts; none when nothing more may be read now.
    pub next_cursor: Option<String>,
    /// Whether the server has more items than these, readable or not.
    pub has_more: bool,
    /// How many items the reader can reach from the first page.
    pub total: u64,
    /// How many pages are loaded (a refill fetches as many again).
    pub pages: usize,
    /// Whether the next page is on its way.
    pub loading_more: bool,
}

/// Which part of the feed a request asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FeedFetch {
    /// The first page, from scratch: Drops and TV start again from it.
    First,
    /// The page after this cursor (Read More, Drops and TV paging on).
    Next(String),
    /// As many pages as are loaded, after marks changed: the list is refilled, and the
    /// stories of Drops and TV stay as they are.
    Refill(usize),
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

/// The key takeaways overlay: the item's title and the server's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct TakeawaysOverlay {
    /// Which item.
    pub item_id: String,
    /// Its title, shown while the answer loads.
    pub title: String,
    /// The server's answer.
    pub takeaways: Load<Takeaways>,
}

/// The trends overlay: the server's answer, scrolled this many rows.
#[derive(Debug, Clone, PartialEq)]
pub struct TrendsOverlay {
    /// The server's answer.
    pub trends: Load<TrendsPage>,
    /// Rows scrolled past.
    pub scroll: u16,
}

/// What is drawn over the view.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Overlay {
    /// Nothing.
    #[default]
    None,
    /// The key list, scrolled this many rows.
    Help(u16),
    /// The sign-in form.
    SignIn(SignInState),
    /// Key takeaways of the selected item.
    Takeaways(Box<TakeawaysOverlay>),
    /// This week's trends.
    Trends(Box<TrendsOverlay>),
}

/// The full text of one item, over the view it was opened from.
#[derive(Debug, Clone, PartialEq)]
pub struct ReaderState {
    /// The item.
    pub item: NewsItem,
    /// The view it came from (its actions apply).
    pub from: View,
    /// The first row shown.
    pub scroll: u16,
    /// The words the search it was opened from matched, marked in its text.
    pub matched: Vec<String>,
}

/// Work for the runtime. Calls to the server carry the session's token when there is one.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// `GET /api/news`, as much of it as asked for.
    LoadFeed(FeedFetch),
    /// `GET /api/favorites|hidden|read`.
    LoadMarks(Mark),
    /// `GET /api/shared`.
    LoadShared,
    /// `GET /api/alerts/matches`: what the alerts found (the server then counts it seen).
    LoadAlertHits,
    /// `GET /api/alerts`: the count of what the alerts found and the reader has not seen.
    LoadAlertCount,
    /// `GET /api/user/metadata`.
    LoadMetadata,
    /// `GET /api/search`: the first page of `query`, or the one after `cursor`.
    Search {
        /// The query, as typed.
        query: String,
        /// `nextCursor` of the last page loaded.
        cursor: Option<String>,
    },
    /// `GET /api/news/{id}/takeaways`.
    LoadTakeaways(String),
    /// `GET /api/trends`.
    LoadTrends,
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
    /// `POST /api/news/{id}/open`.
    OpenItem {
        /// Which item.
        id: String,
        /// The list it was opened from.
        from: OpenedFrom,
    },
    /// `GET /api/unread`.
    LoadUnread,
    /// `POST /api/read-before` with `{"olderThan":"all"}`: the whole feed counts as read.
    MarkFeedRead,
    /// `PUT /api/read-before`: puts a cut-off back (an undo).
    PutReadBefore(Option<DateTime<Utc>>),
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
    /// Write the marks waiting for the server to their file.
    SavePending(PendingMarks),
    /// Open a URL in the browser.
    Open(String),
    /// Give the terminal back to the shell until it resumes the reader (Ctrl-Z).
    Suspend,
}

/// Everything that can happen to the reader.
#[derive(Debug)]
pub enum Action {
    /// A key event (only presses count).
    Key(KeyEvent),
    /// The terminal is now this many columns and rows.
    Resize(u16, u16),
    /// Time passed (TV mode, status expiry, session refresh, re-checks).
    Tick,
    /// A feed answer arrived.
    FeedLoaded {
        /// The session epoch of the request.
        epoch: u64,
        /// What was asked for.
        fetch: FeedFetch,
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
    /// What the alerts found arrived.
    AlertHitsLoaded {
        /// The session epoch of the request.
        epoch: u64,
        /// The answer.
        result: ApiResult<AlertHits>,
    },
    /// The alerts' count of what the reader has not seen arrived.
    AlertCountLoaded {
        /// The session epoch of the request.
        epoch: u64,
        /// The answer.
        result: ApiResult<AlertList>,
    },
    /// The server moved the reader's read cut-off (`undo`: put the previous one back).
    ReadBeforeSaved {
        /// The session epoch of the request.
        epoch: u64,
        /// Whether this was an undo.
        undo: bool,
        /// The answer.
        result: ApiResult<ReadBeforeState>,
    },
    /// The server decided what opening an item did.
    ItemOpened {
        /// The session epoch of the request.
        epoch: u64,
        /// Which item.
        id: String,
        /// The answer.
        result: ApiResult<Opened>,
    },
    /// The unread count arrived.
    UnreadLoaded {
        /// The session epoch of the request.
        epoch: u64,
        /// The answer.
        result: ApiResult<UnreadCount>,
    },
    /// The account's subscription state arrived.
    MetadataLoaded {
        /// The session epoch of the request.
        epoch: u64,
        /// The answer.
        result: ApiResult<UserMetadata>,
    },
    /// A page of search results arrived.
    SearchLoaded {
        /// The session epoch of the request.
        epoch: u64,
        /// The query it answers.
        query: String,
        /// The cursor it was asked with (none: the first page).
        cursor: Option<String>,
        /// The answer.
        result: ApiResult<SearchPage>,
    },
    /// The trends arrived.
    TrendsLoaded {
        /// The session epoch of the request.
        epoch: u64,
        /// The answer.
        result: ApiResult<TrendsPage>,
    },
    /// An item's takeaways arrived.
    TakeawaysLoaded {
        /// The session epoch of the request.
        epoch: u64,
        /// Which item.
        id: String,
        /// The answer.
        result: ApiResult<Takeaways>,
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
        result: ApiResult<MarkResult>,
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
    /// The file of waiting marks was written (or not).
    PendingSaved(Result<(), String>),
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
    /// The keys in force.
    pub keys: KeyMap,
    /// The view on screen.
    pub view: View,
    /// The signed-in session.
    pub session: Option<AuthSession>,
    /// Bumped at every sign-in and sign-out: answers to older requests are dropped.
    pub epoch: u64,
    /// The feed.
    pub feed: Load<FeedData>,
    /// Whether the server counts the reader as a subscriber: its word in the last feed
    /// answer or account read.
    pub subscriber: bool,
    /// Favourite, hidden and read items, with the changes the server does not have yet.
    pub marks: Marks,
    /// Items read by opening them: they stay in the feed, drawn as read, until the feed
    /// is read again, so the selection and "next" stay where they were.
    pub read_on_open: HashSet<String>,
    /// How many items the signed-in reader may still read in the feed, as the server
    /// counted them last.
    pub unread: Option<u64>,
    /// The cut-off the last "mark the feed as read" replaced, while it can be put back.
    pub undo_read_before: Option<Option<DateTime<Utc>>>,
    /// Shared items.
    pub shared: Load<Vec<SharedItem>>,
    /// What the reader's alerts found, newest first.
    pub alert_hits: Load<Vec<AlertHit>>,
    /// How many of those the reader has not seen, as the server counted them last.
    pub alerts_unseen: Option<u64>,
    /// The stories of Drops and TV mode: the feed as it was when the view opened, so
    /// marking a story read does not move the one under the reader.
    pub stories: Vec<NewsItem>,
    /// The stories are taken from the next feed answer (marks were on their way when
    /// the view opened, so the loaded feed was out of date).
    pub stories_pending: bool,
    /// The selected row of each view.
    pub selected: [usize; 8],
    /// Drops.
    pub drops: DropsState,
    /// TV mode.
    pub tv: TvState,
    /// The full-text reader, when open.
    pub reader: Option<ReaderState>,
    /// The search, while its prompt or results are open: the results are drawn over the
    /// view, and list keys act on them.
    pub search: Option<Search>,
    /// What is drawn over the view.
    pub overlay: Overlay,
    /// The bottom line's message.
    pub status: Option<Status>,
    /// Work queued for the runtime.
    pub requests: Vec<Request>,
    /// The wall clock, for relative times and token expiry (set by the runtime).
    pub clock: DateTime<Utc>,
    /// The terminal's columns and rows, for scrolling by pages.
    pub size: (u16, u16),
    /// Mark changes the server has not stored yet, oldest first (also in a file).
    pub pending: PendingMarks,
    /// How often the subscription is re-read and waiting marks are sent again.
    pub recheck_every: Duration,
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
    /// The feed is refilled once no mark change is on its way.
    feed_stale: bool,
    /// A refill is on its way.
    feed_refilling: bool,
    /// Marks changed while a refill was on its way: its answer may predate them, so the feed
    /// is refilled once more when it arrives (answers can come back out of order, and the
    /// last one shown must be one asked for after the last change).
    refill_again: bool,
    /// When the subscription is read again and waiting marks sent again.
    next_recheck: Option<Instant>,
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
            keys: KeyMap::default(),
            view: View::Feed,
            session,
            epoch: 0,
            feed: Load::Idle,
            subscriber: false,
            marks: Marks::default(),
            read_on_open: HashSet::new(),
            undo_read_before: None,
            unread: None,
            shared: Load::Idle,
            stories: Vec::new(),
            stories_pending: false,
            selected: [0; 8],
            alert_hits: Load::default(),
            alerts_unseen: None,
            drops: DropsState::default(),
            tv: TvState::default(),
            reader: None,
            search: None,
            overlay: Overlay::None,
            status: None,
            requests: Vec::new(),
            clock: Utc::now(),
            size: (80, 24),
            pending: PendingMarks::default(),
            recheck_every: RECHECK_EVERY,
            refreshing: false,
            reload_after_refresh: false,
            refresh_after: None,
            retry_after_refresh: Vec::new(),
            mark_writes: 0,
            stale_lists: Vec::new(),
            feed_stale: false,
            feed_refilling: false,
            refill_again: false,
            next_recheck: None,
            last_tick: None,
            quit: false,
        }
    }

    /// The first requests: refresh a stale session first, then load. Marks waiting for
    /// the server lie over everything from the start.
    pub fn start(&mut self) {
        self.apply_pending();
        match &self.session {
            Some(s) if crate::session::needs_refresh(s, self.clock.timestamp()) => {
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

    /// The signed-in account's id.
    pub fn user_id(&self) -> Option<&str> {
        self.session.as_ref().map(|s| s.user.id.as_str())
    }

    /// Whether the reader is a subscriber, as the server last said.
    pub fn subscriber(&self) -> bool {
        self.subscriber
    }

    /// Whether the server said the reader may not read past the loaded stories: more
    /// exist, but no cursor was given.
    pub fn allowance_reached(&self) -> bool {
        self.feed
            .data()
            .is_some_and(|f| f.has_more && f.next_cursor.is_none())
    }

    /// Whether the server has a next page for this reader now.
    pub fn can_page_on(&self) -> bool {
        self.feed.data().is_some_and(|f| f.next_cursor.is_some())
    }

    /// How many stories TV mode counts: all the reader can reach, as the server said,
    /// or the loaded ones when more of them are shown.
    pub fn tv_total(&self) -> usize {
        let total = self
            .feed
            .data()
            .map_or(0, |f| usize::try_from(f.total).unwrap_or(usize::MAX));
        total.max(self.stories.len())
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
            .filter(|i| self.marks.in_feed(&i.id) || self.read_on_open.contains(&i.id))
            .collect()
    }

    /// The stories TV mode cycles through.
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
            View::Alerts => self
                .alert_hits
                .data()
                .map(|h| h.iter().map(|h| &h.item).collect())
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
        if let Some(r) = &self.reader {
            return Some(r.item.clone());
        }
        if self.searching() {
            let at = self.search_selection();
            return self.search_hits().get(at).map(|h| h.item.clone());
        }
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
            Action::Key(key) if key.kind == KeyEventKind::Press => self.on_key(key, now),
            // Release and repeat events (kitty keyboard protocol, Windows) would double keys.
            Action::Key(_) => {}
            Action::Resize(w, h) => {
                self.size = (w, h);
                self.clamp_reader();
            }
            Action::Tick => self.on_tick(now),
            Action::FeedLoaded {
                epoch,
                fetch,
                result,
            } if epoch == self.epoch => self.on_feed(fetch, result, now),
            Action::MarksLoaded {
                epoch,
                mark,
                result,
            } if epoch == self.epoch => self.on_marks(mark, result),
            Action::SharedLoaded { epoch, result } if epoch == self.epoch => self.on_shared(result),
            Action::AlertHitsLoaded { epoch, result } if epoch == self.epoch => {
                self.on_alert_hits(result);
            }
            Action::AlertCountLoaded { epoch, result } if epoch == self.epoch => {
                self.on_alert_count(result);
            }
            Action::ItemOpened { epoch, id, result } if epoch == self.epoch => {
                self.on_item_opened(&id, result);
            }
            Action::UnreadLoaded { epoch, result } if epoch == self.epoch => self.on_unread(result),
            Action::ReadBeforeSaved {
                epoch,
                undo,
                result,
            } if epoch == self.epoch => self.on_read_before(undo, result, now),
            Action::MetadataLoaded { epoch, result } if epoch == self.epoch => {
                self.on_metadata(result, now);
            }
            Action::SearchLoaded {
                epoch,
                query,
                cursor,
                result,
            } if epoch == self.epoch => self.on_search(&query, cursor, result, now),
            Action::TrendsLoaded { epoch, result } if epoch == self.epoch => {
                self.on_trends(result);
            }
            Action::TakeawaysLoaded { epoch, id, result } if epoch == self.epoch => {
                self.on_takeaways(&id, result);
            }
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
                self.on_refreshed(result, now);
            }
            Action::SignedOut(result) => self.on_signed_out(result, now),
            Action::SessionSaved(Err(e)) => {
                self.say(strings::session_not_saved(&e), StatusKind::Warning, now);
            }
            Action::PendingSaved(Err(e)) => {
                self.say(strings::pending_not_saved(&e), StatusKind::Error, now);
            }
            Action::Opened(Err(e)) => self.say(strings::cannot_open(&e), StatusKind::Error, now),
            // Answers to requests of an earlier session, and quiet successes.
            _ => {}
        }
    }

    /// Shows a warning on the bottom line.
    pub fn warn(&mut self, text: impl Into<String>, now: Instant) {
        self.say(text, StatusKind::Warning, now);
    }

    /// The first key of `command` in `context` as texts name it ("i"), from the keys in
    /// force, so hints follow `keys.toml`.
    pub fn key(&self, context: Context, command: Command) -> String {
        self.keys.first_key(context, command)
    }

    fn say(&mut self, text: impl Into<String>, kind: StatusKind, now: Instant) {
        self.status = Some(Status {
            text: text.into(),
            kind,
            until: now + STATUS_FOR,
        });
    }

    fn on_tick(&mut self, now: Instant) {
        let dt = self
            .last_tick
            .map(|t| now.saturating_duration_since(t))
            .unwrap_or_default();
        self.last_tick = Some(now);
        // The slideshow waits while its story is open in the reader, or a search is open.
        if self.view == View::Tv && self.reader.is_none() && !self.searching() {
            let count = self.stories.len();
            let wrap = !self.can_page_on();
            self.tv.tick(dt, count, wrap);
            self.more_stories_if_near_end(self.tv.index);
        }
        if self.status.as_ref().is_some_and(|s| now >= s.until) {
            self.status = None;
        }
        let due = self
            .session
            .as_ref()
            .is_some_and(|s| crate::session::needs_refresh(s, self.clock.timestamp()));
        if due && !self.refreshing && self.refresh_after.is_none_or(|t| now >= t) {
            self.request_refresh();
        }
        if !self.signed_in() {
            self.next_recheck = None;
            return;
        }
        match self.next_recheck {
            None => self.next_recheck = Some(now + self.recheck_every),
            Some(t) if now >= t => {
                self.next_recheck = Some(now + self.recheck_every);
                self.requests.push(Request::LoadMetadata);
                self.requests.push(Request::LoadAlertCount);
                self.send_pending();
            }
            Some(_) => {}
        }
    }
}

#[cfg(test)]
mod tests;
