//! Loading: the feed (first page, paging on, refills after marks), the lists, key
//! takeaways and the subscription. Every answer is the server's truth; the reader only
//! lays the changes the server does not have yet over it (see [`super::marking`]).

use std::time::Instant;

use radar_api::account::UserMetadata;
use radar_api::alerts::{AlertHits, AlertList};
use radar_api::trends::TrendsPage;
use radar_api::{FeedPage, Mark, NewsItem, SharedItem, Takeaways};

use super::{App, FeedData, FeedFetch, Overlay, Request, StatusKind, View};
use crate::api::ApiResult;
use crate::keys::{Command, Context};
use crate::load::Load;
use crate::marks::MARKS;
use crate::strings;

impl App {
    /// Loads the feed from its first page; Drops and TV take their stories from it.
    pub(super) fn load_feed(&mut self) {
        self.feed.start();
        if let Some(f) = self.feed.data_mut() {
            f.loading_more = false;
        }
        if matches!(self.view, View::Drops | View::Tv) {
            self.stories_pending = true;
        }
        self.requests.push(Request::LoadFeed(FeedFetch::First));
    }

    /// Fetches the loaded pages again, so the feed is refilled after marks (the
    /// server's `FeedPage` contract).
    pub(super) fn refill_feed(&mut self) {
        // One refill at a time: an answer asked for before this change must not be the last
        // one shown, so this one is asked for once that answer is in (see `refill_again`).
        if self.feed_refilling {
            self.refill_again = true;
            return;
        }
        let pages = self.feed.data().map_or(1, |f| f.pages.max(1));
        self.feed_refilling = true;
        self.requests
            .push(Request::LoadFeed(FeedFetch::Refill(pages)));
    }

    pub(super) fn load_all(&mut self) {
        self.load_feed();
        if self.searching() {
            self.send_search();
        }
        if self.signed_in() {
            for mark in MARKS {
                self.marks.loading(mark);
                self.requests.push(Request::LoadMarks(mark));
            }
            self.shared.start();
            self.requests.push(Request::LoadShared);
            self.requests.push(Request::LoadAlertCount);
        }
    }

    /// Drops and TV take the feed as shown now as their stories; while marks are still
    /// on their way (the feed is about to be refilled), from the refilled feed instead.
    pub(super) fn take_stories(&mut self) {
        if self.feed_stale || self.feed_refilling || !matches!(self.feed, Load::Loaded(_)) {
            self.stories_pending = true;
            self.stories.clear();
        } else {
            self.snapshot_stories();
        }
    }

    fn snapshot_stories(&mut self) {
        self.stories_pending = false;
        self.stories = self.feed_items().into_iter().cloned().collect();
        self.drops.clamp(self.stories.len());
        self.tv.index = self.tv.index.min(self.stories.len().saturating_sub(1));
    }

    /// After paging on: the stories gain every feed item they lack, in order.
    fn extend_stories(&mut self) {
        let new: Vec<NewsItem> = self
            .feed_items()
            .into_iter()
            .filter(|i| !self.stories.iter().any(|s| s.id == i.id))
            .cloned()
            .collect();
        self.stories.extend(new);
    }

    /// Drops and TV read on past the loaded stories: the next page is fetched two
    /// stories before the end, when the server offers one.
    pub(super) fn more_stories_if_near_end(&mut self, index: usize) {
        if index + 2 < self.stories.len() {
            return;
        }
        self.next_feed_page();
    }

    /// Asks for the feed's next page when the server offers one and none is on its way;
    /// says nothing otherwise (Read More is the command that explains why there is none).
    pub(super) fn next_feed_page(&mut self) {
        if let Some(feed) = self.feed.data_mut()
            && let (Some(cursor), false) = (feed.next_cursor.clone(), feed.loading_more)
        {
            feed.loading_more = true;
            self.requests
                .push(Request::LoadFeed(FeedFetch::Next(cursor)));
        }
    }

    pub(super) fn on_feed(&mut self, fetch: FeedFetch, result: ApiResult<FeedPage>, now: Instant) {
        let refill = matches!(fetch, FeedFetch::Refill(_));
        self.apply_feed(fetch, result, now);
        if refill && !self.feed_refilling && std::mem::take(&mut self.refill_again) {
            self.refill_feed();
        }
    }

    fn apply_feed(&mut self, fetch: FeedFetch, result: ApiResult<FeedPage>, now: Instant) {
        if fetch == FeedFetch::First {
            self.feed_refilling = false;
        } else {
            self.feed_refilling &= !matches!(fetch, FeedFetch::Refill(_));
        }
        let page = match result {
            Ok(page) => page,
            Err(e) if e.is_unauthorized() && self.signed_in() => return self.on_unauthorized(),
            Err(e) => {
                if e.is_subscription_required() {
                    self.requests.push(Request::LoadMetadata);
                }
                if self.stories_pending && fetch != FeedFetch::First {
                    self.snapshot_stories();
                }
                match self.feed.data_mut() {
                    Some(feed) => {
                        feed.loading_more = false;
                        let reload = self.keys.first_key(Context::Global, Command::Reload);
                        let text = format!("{} {}", e, strings::retry_hint(&reload));
                        self.say(text, StatusKind::Error, now);
                    }
                    None => self.feed = Load::Failed(e.to_string()),
                }
                return;
            }
        };
        self.on_success();
        let changed = page.subscriber != self.subscriber;
        self.subscriber = page.subscriber;
        if self.signed_in() {
            self.unread = Some(page.total);
        }
        match (fetch, self.feed.data_mut()) {
            // A page after a change of subscription belongs to another list: start over.
            (FeedFetch::Next(_), Some(_)) if changed => self.load_feed(),
            (FeedFetch::Next(_), Some(feed)) => {
                let new: Vec<NewsItem> = page
                    .items
                    .into_iter()
                    .filter(|i| !feed.items.iter().any(|o| o.id == i.id))
                    .collect();
                feed.items.extend(new);
                feed.next_cursor = page.next_cursor;
                feed.has_more = page.has_more;
                feed.total = page.total;
                feed.pages += 1;
                feed.loading_more = false;
                if !self.stories_pending && !self.stories.is_empty() {
                    self.extend_stories();
                }
            }
            (FeedFetch::Next(_), None) => {}
            (fetch, _) => {
                let pages = match fetch {
                    FeedFetch::Refill(n) => n,
                    _ => 1,
                };
                let selected = self.current_list_item_id(View::Feed);
                // The server's list leaves out what was read by opening it.
                self.read_on_open.clear();
                self.feed = Load::Loaded(FeedData {
                    items: page.items,
                    next_cursor: page.next_cursor,
                    has_more: page.has_more,
                    total: page.total,
                    pages,
                    loading_more: false,
                });
                self.keep_selection(View::Feed, selected);
                if self.stories_pending || fetch == FeedFetch::First || self.stories.is_empty() {
                    self.snapshot_stories();
                    if fetch == FeedFetch::First && matches!(self.view, View::Drops | View::Tv) {
                        self.drops.reset();
                        self.tv.index = 0;
                    }
                }
            }
        }
    }

    /// The id of the selected row of a list view.
    fn current_list_item_id(&self, view: View) -> Option<String> {
        self.list_items(view)
            .get(self.selection(view))
            .map(|i| i.id.clone())
    }

    /// After a list changed under the reader: the same item stays selected when it is
    /// still there, else the same row.
    fn keep_selection(&mut self, view: View, id: Option<String>) {
        if let Some(id) = id
            && let Some(at) = self.list_items(view).iter().position(|i| i.id == id)
        {
            self.selected[view.index()] = at;
        }
    }

    pub(super) fn on_marks(&mut self, mark: Mark, result: ApiResult<Vec<NewsItem>>) {
        match result {
            Ok(_) if self.mark_writes > 0 => {
                if !self.stale_lists.contains(&mark) {
                    self.stale_lists.push(mark);
                }
            }
            Ok(items) => {
                let view = View::of_mark(mark);
                let selected = view.and_then(|v| self.current_list_item_id(v));
                self.marks.loaded(mark, items);
                self.apply_pending();
                if let Some(view) = view {
                    self.keep_selection(view, selected);
                }
                self.on_success();
            }
            Err(e) if e.is_unauthorized() => self.on_unauthorized(),
            Err(e) => self.marks.failed(mark, e.message),
        }
    }

    /// What the alerts found: shown, and counted seen (the server did so on answering).
    pub(super) fn on_alert_hits(&mut self, result: ApiResult<AlertHits>) {
        match result {
            Ok(hits) => {
                self.alert_hits = Load::Loaded(hits.items);
                self.alerts_unseen = Some(0);
                self.on_success();
            }
            Err(e) if e.is_unauthorized() => self.on_unauthorized(),
            Err(e) => self.alert_hits = Load::Failed(e.message),
        }
    }

    /// The count of what the alerts found unseen: the tab's badge. A failure keeps the
    /// last count (it is asked again at the next recheck).
    pub(super) fn on_alert_count(&mut self, result: ApiResult<AlertList>) {
        match result {
            Ok(list) => self.alerts_unseen = Some(list.unseen),
            Err(e) if e.is_unauthorized() => self.on_unauthorized(),
            Err(_) => {}
        }
    }

    pub(super) fn on_shared(&mut self, result: ApiResult<Vec<SharedItem>>) {
        match result {
            Ok(items) => {
                self.shared = Load::Loaded(items);
                self.on_success();
            }
            Err(e) if e.is_unauthorized() => self.on_unauthorized(),
            Err(e) => self.shared = Load::Failed(e.message),
        }
    }

    /// The subscription changed: the header follows, the reader is told, and the feed and
    /// any search are asked again under the new allowance.
    pub(super) fn subscription_changed(&mut self, subscriber: bool, now: Instant) {
        self.subscriber = subscriber;
        let text = if subscriber {
            strings::NOW_PREMIUM
        } else {
            strings::NO_LONGER_PREMIUM
        };
        self.say(text, StatusKind::Info, now);
        self.load_feed();
        if self.searching() {
            self.send_search();
        }
    }

    /// The server's word on the subscription: when it changed, the feed is loaded again
    /// (its allowance changed), and the header follows.
    pub(super) fn on_metadata(&mut self, result: ApiResult<UserMetadata>, now: Instant) {
        match result {
            Ok(meta) => {
                self.on_success();
                let subscriber = meta.subscription.is_active;
                if subscriber != self.subscriber {
                    self.subscription_changed(subscriber, now);
                }
            }
            Err(e) if e.is_unauthorized() => self.on_unauthorized(),
            // No answer: the next re-check asks again.
            Err(_) => {}
        }
    }

    pub(super) fn on_trends(&mut self, result: ApiResult<TrendsPage>) {
        if result
            .as_ref()
            .is_err_and(crate::api::ApiError::is_unauthorized)
        {
            self.on_unauthorized();
        }
        let Overlay::Trends(overlay) = &mut self.overlay else {
            return;
        };
        overlay.trends = match result {
            Ok(t) => Load::Loaded(t),
            Err(e) => Load::Failed(e.to_string()),
        };
    }

    pub(super) fn on_takeaways(&mut self, id: &str, result: ApiResult<Takeaways>) {
        if result
            .as_ref()
            .is_err_and(crate::api::ApiError::is_subscription_required)
        {
            self.requests.push(Request::LoadMetadata);
        }
        if result
            .as_ref()
            .is_err_and(super::super::api::ApiError::is_unauthorized)
        {
            self.on_unauthorized();
        }
        let Overlay::Takeaways(overlay) = &mut self.overlay else {
            return;
        };
        if overlay.item_id != id {
            return;
        }
        overlay.takeaways = match result {
            Ok(t) => Load::Loaded(t),
            Err(e) => Load::Failed(e.to_string()),
        };
    }
}
