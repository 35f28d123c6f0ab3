//! The session: sign-in, timed and 401-driven refreshes, sign-out. Each sign-in and
//! sign-out starts a new epoch, so answers meant for the previous account are dropped.

use std::time::{Duration, Instant};

use radar_api::auth::AuthSession;

use super::{App, Overlay, StatusKind, View};
use crate::api::{ApiError, ApiResult};
use crate::keys::{Command, Context};
use crate::load::Load;
use crate::marks::Marks;
use crate::strings;

/// After a refresh failed for want of a connection, wait this long before the next try.
const REFRESH_RETRY: Duration = Duration::from_secs(30);

impl App {
    pub(super) fn request_refresh(&mut self) {
        if let Some(s) = &self.session {
            self.refreshing = true;
            self.requests
                .push(super::Request::Refresh(s.refresh_token.clone()));
        }
    }

    /// The server refused the token: try a refresh once, then give up the session.
    pub(super) fn on_unauthorized(&mut self) {
        if !self.refreshing {
            self.reload_after_refresh = true;
            self.request_refresh();
        }
    }

    pub(super) fn on_signed_in(&mut self, result: ApiResult<AuthSession>, now: Instant) {
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

    /// Forgets what the previous reader saw; the account's waiting marks lie over its
    /// lists from the start.
    fn reset_reading(&mut self) {
        self.epoch += 1;
        self.retry_after_refresh.clear();
        self.mark_writes = 0;
        self.stale_lists.clear();
        self.feed_stale = false;
        self.feed_refilling = false;
        self.refill_again = false;
        self.refreshing = false;
        self.subscriber = false;
        self.marks = Marks::default();
        self.read_on_open.clear();
        self.unread = None;
        self.undo_read_before = None;
        self.shared = Load::Idle;
        self.feed = Load::Loading;
        self.stories.clear();
        self.reader = None;
        self.search = None;
        self.next_recheck = None;
        self.apply_pending();
    }

    fn begin_session(&mut self, session: AuthSession) {
        self.requests
            .push(super::Request::SaveSession(Box::new(session.clone())));
        self.session = Some(session);
        self.reset_reading();
        self.load_all();
    }

    fn end_session(&mut self) {
        self.session = None;
        self.reload_after_refresh = false;
        self.requests.push(super::Request::ForgetSession);
        self.reset_reading();
        if self.view.needs_sign_in() {
            self.view = View::Feed;
        }
        self.load_all();
    }

    pub(super) fn on_refreshed(&mut self, result: ApiResult<AuthSession>, now: Instant) {
        self.refreshing = false;
        let reload = std::mem::take(&mut self.reload_after_refresh);
        match result {
            Ok(session) => {
                self.requests
                    .push(super::Request::SaveSession(Box::new(session.clone())));
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
                let text = strings::session_expired(&self.key(Context::Global, Command::SignIn));
                self.say(text, StatusKind::Warning, now);
            }
        }
    }

    pub(super) fn on_signed_out(&mut self, result: ApiResult<()>, now: Instant) {
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
