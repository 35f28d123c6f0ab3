//! Marks: a change shows at once, is written to the file of waiting marks before it is
//! sent (so neither a server that is down nor a closed reader loses it), and leaves that
//! file when the server stored it or refused it (which the status line says). Waiting
//! changes are sent again on the next successful answer and on every re-check tick, and
//! lie over the server's lists until then. Once no change is on its way, the lists and
//! the feed are fetched again: the server's answer is the truth.

use std::time::Instant;

use radar_api::{Mark, MarkResult};

use super::{App, ItemAction, Request, StatusKind, View};
use crate::api::{ApiError, ApiResult};
use crate::keys::{Command, Context};
use crate::marks::MARKS;
use crate::pending::PendingMark;
use crate::strings;

impl App {
    pub(super) fn item_action(&mut self, action: ItemAction, now: Instant) {
        // Search results act as the feed does.
        let view = match &self.reader {
            Some(r) => r.from,
            None if self.searching() => View::Feed,
            None => self.view,
        };
        if !action.allowed_in(view) {
            self.say(strings::NOT_HERE, StatusKind::Info, now);
            return;
        }
        let Some(item) = self.current_item() else {
            return;
        };
        let (mark, on) = match action {
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
        let Some(user_id) = self.user_id().map(str::to_string) else {
            let text = strings::sign_in_to_mark(&self.key(Context::Global, Command::SignIn));
            self.say(text, StatusKind::Info, now);
            return;
        };
        let was_in_feed = self.marks.in_feed(&item.id);
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
        if was_in_feed != self.marks.in_feed(&item.id) {
            self.feed_stale = true;
        }
        if mark != Mark::Hidden || on {
            self.say(strings::mark_done(mark, on), StatusKind::Success, now);
        }
        let id = item.id.clone();
        self.pending.add(PendingMark {
            user_id,
            mark,
            on,
            item,
        });
        self.save_pending();
        self.send_mark(Request::SetMark { mark, id, on });
    }

    fn save_pending(&mut self) {
        self.requests
            .push(Request::SavePending(self.pending.clone()));
    }

    /// Sends a mark change; the lists it touches are fetched again when the changes
    /// settle (docs/product.md §7: the matching list is refetched). Setting a mark clears
    /// the other two, so it touches all three lists.
    pub(super) fn send_mark(&mut self, request: Request) {
        if let Request::SetMark { mark, on, .. } = &request {
            self.mark_writes += 1;
            let touched: &[Mark] = if *on {
                &MARKS
            } else {
                std::slice::from_ref(mark)
            };
            for m in touched {
                if !self.stale_lists.contains(m) {
                    self.stale_lists.push(*m);
                }
            }
        }
        self.requests.push(request);
    }

    /// Sends every waiting change of this account again, unless some are on their way.
    pub(super) fn send_pending(&mut self) {
        let Some(user) = self.user_id() else {
            return;
        };
        if self.mark_writes > 0 || self.refreshing {
            return;
        }
        let sends: Vec<Request> = self
            .pending
            .of(user)
            .map(|p| Request::SetMark {
                mark: p.mark,
                id: p.item.id.clone(),
                on: p.on,
            })
            .collect();
        if !sends.is_empty() {
            // Marks the feed did not see: fetch it again once they are stored.
            self.feed_stale = true;
        }
        for request in sends {
            self.send_mark(request);
        }
    }

    /// The server answered a request: waiting changes can go now.
    pub(super) fn on_success(&mut self) {
        if self.user_id().is_some_and(|u| self.pending.has_any(u)) {
            self.send_pending();
        }
    }

    /// Lays the waiting changes over the server's lists, oldest first.
    pub(super) fn apply_pending(&mut self) {
        let Some(user) = self.user_id().map(str::to_string) else {
            return;
        };
        for p in self.pending.of(&user) {
            if p.on {
                self.marks.set(p.mark, &p.item);
            } else {
                self.marks.clear(p.mark, &p.item.id);
            }
        }
    }

    pub(super) fn on_mark_saved(
        &mut self,
        mark: Mark,
        id: &str,
        on: bool,
        result: ApiResult<MarkResult>,
        now: Instant,
    ) {
        let restore = mark == Mark::Hidden && !on;
        self.mark_writes = self.mark_writes.saturating_sub(1);
        let user = self.user_id().unwrap_or_default().to_string();
        // The change leaves the waiting file once the server stored or refused it, unless
        // a newer change of the same mark replaced it meanwhile.
        let settled = match &result {
            Ok(_) => true,
            Err(e) => !e.is_unauthorized() && !e.is_unsent(),
        };
        let same = self
            .pending
            .of(&user)
            .any(|p| p.mark == mark && p.item.id == id && p.on == on);
        if settled && same {
            self.pending.remove(&user, mark, id);
            self.save_pending();
        }
        let reached = result.as_ref().is_ok() || settled;
        match &result {
            Ok(_) => self.on_success_after_mark(),
            Err(e) if e.is_unauthorized() && self.signed_in() => {
                self.retry_after_refresh.push(Request::SetMark {
                    mark,
                    id: id.to_string(),
                    on,
                });
                self.on_unauthorized();
            }
            Err(e) if e.is_unsent() => {
                self.say(strings::kept_locally(mark, on), StatusKind::Warning, now);
            }
            Err(_) if restore => self.say(strings::RESTORE_FAILED, StatusKind::Error, now),
            Err(e) => self.say(
                strings::mark_refused(mark, on, &e.to_string()),
                StatusKind::Warning,
                now,
            ),
        }
        if result.as_ref().is_ok() && restore {
            self.say(strings::ITEM_RESTORED, StatusKind::Success, now);
        }
        if self.mark_writes > 0 || result.as_ref().is_err_and(ApiError::is_unauthorized) {
            return;
        }
        // Settled: the server's lists are the truth again, where it could be reached.
        for stale in std::mem::take(&mut self.stale_lists) {
            if reached || self.marks.list(stale).data().is_none() {
                self.marks.loading(stale);
                self.requests.push(Request::LoadMarks(stale));
            }
        }
        if reached && std::mem::take(&mut self.feed_stale) {
            self.refill_feed();
        }
    }

    /// A mark reached the server: anything else waiting goes after it.
    fn on_success_after_mark(&mut self) {
        if self.mark_writes == 0 {
            self.on_success();
        }
    }
}
