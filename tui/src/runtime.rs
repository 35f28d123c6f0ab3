//! Runs the app's requests: each in a spawned task that answers with an `Action`.

use std::process::{Command, Stdio};
use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;

use crate::api::Api;
use crate::app::{Action, App, FeedFetch, Request};
use crate::pending::PendingFile;
use crate::session::SessionFile;

/// What the tasks need.
#[derive(Clone)]
pub struct Runtime {
    /// The daemon.
    pub api: Arc<Api>,
    /// Where the session is kept (none without a home or config directory).
    pub session_file: Option<SessionFile>,
    /// Where marks waiting for the server are kept.
    pub pending_file: Option<PendingFile>,
    /// Where answers go.
    pub tx: UnboundedSender<Action>,
}

impl Runtime {
    /// Starts every request the app queued, with the app's current token and epoch.
    /// Answers whether the reader asked to be suspended (the caller owns the terminal).
    pub fn run(&self, app: &mut App) -> bool {
        let mut suspend = false;
        for request in app.take_requests() {
            match request {
                Request::Suspend => suspend = true,
                request => self.spawn(request, app.token().map(str::to_string), app.epoch),
            }
        }
        suspend
    }

    fn spawn(&self, request: Request, token: Option<String>, epoch: u64) {
        let rt = self.clone();
        match request {
            Request::SaveSession(session) => {
                let result = match &self.session_file {
                    Some(f) => f
                        .save(&session)
                        .map_err(|e| format!("{}: {e}", f.path().display())),
                    None => Err("no config directory (set RADAR_CONFIG_DIR)".into()),
                };
                let _ = self.tx.send(Action::SessionSaved(result));
            }
            Request::ForgetSession => {
                if let Some(f) = &self.session_file {
                    let _ = f.remove();
                }
            }
            Request::SavePending(pending) => {
                let result = match &self.pending_file {
                    Some(f) => f
                        .save(&pending)
                        .map_err(|e| format!("{}: {e}", f.path().display())),
                    None => Err("no config directory (set RADAR_CONFIG_DIR)".into()),
                };
                let _ = self.tx.send(Action::PendingSaved(result));
            }
            Request::Open(url) => open_in_browser(url, self.tx.clone()),
            request => {
                tokio::spawn(async move {
                    let action = rt.call(request, token, epoch).await;
                    let _ = rt.tx.send(action);
                });
            }
        }
    }

    async fn call(&self, request: Request, token: Option<String>, epoch: u64) -> Action {
        let api = &self.api;
        let token = token.unwrap_or_default();
        match request {
            Request::LoadFeed(fetch) => {
                let bearer = (!token.is_empty()).then_some(token.as_str());
                let result = match &fetch {
                    FeedFetch::First => api.feed(bearer, None).await,
                    FeedFetch::Next(cursor) => api.feed(bearer, Some(cursor)).await,
                    FeedFetch::Refill(pages) => api.feed_pages(bearer, *pages).await,
                };
                Action::FeedLoaded {
                    epoch,
                    fetch,
                    result,
                }
            }
            Request::Search { query, cursor } => {
                let result = api.search(&token, &query, cursor.as_deref()).await;
                Action::SearchLoaded {
                    epoch,
                    query,
                    cursor,
                    result,
                }
            }
            Request::LoadMetadata => Action::MetadataLoaded {
                epoch,
                result: api.metadata(&token).await,
            },
            Request::LoadTrends => Action::TrendsLoaded {
                epoch,
                result: api.trends(&token).await,
            },
            Request::LoadTakeaways(id) => {
                let result = api.takeaways(&token, &id).await;
                Action::TakeawaysLoaded { epoch, id, result }
            }
            Request::LoadMarks(mark) => Action::MarksLoaded {
                epoch,
                mark,
                result: api.marked(&token, mark).await,
            },
            Request::LoadShared => Action::SharedLoaded {
                epoch,
                result: api.shared(&token).await,
            },
            Request::LoadAlertHits => Action::AlertHitsLoaded {
                epoch,
                result: api.alert_hits(&token).await,
            },
            Request::LoadAlertCount => Action::AlertCountLoaded {
                epoch,
                result: api.alerts(&token).await,
            },
            Request::SetMark { mark, id, on } => {
                let result = api.set_mark(&token, mark, &id, on).await;
                Action::MarkSaved {
                    epoch,
                    mark,
                    id,
                    on,
                    result,
                }
            }
            Request::OpenItem { id, from } => {
                let result = api.open_item(&token, &id, from).await;
                Action::ItemOpened { epoch, id, result }
            }
            Request::LoadUnread => Action::UnreadLoaded {
                epoch,
                result: api.unread(&token).await,
            },
            Request::MarkFeedRead => Action::ReadBeforeSaved {
                epoch,
                undo: false,
                result: api.mark_feed_read(&token).await,
            },
            Request::PutReadBefore(at) => Action::ReadBeforeSaved {
                epoch,
                undo: true,
                result: api.put_read_before(&token, at).await,
            },
            Request::RecordShare(id) => Action::ShareSaved {
                epoch,
                result: api.share(&token, &id).await,
            },
            Request::SignIn { email, password } => {
                Action::SignedIn(api.sign_in(&email, &password).await)
            }
            Request::Refresh(refresh_token) => Action::Refreshed {
                epoch,
                result: api.refresh(&refresh_token).await,
            },
            Request::SignOut(access) => Action::SignedOut(api.sign_out(&access).await),
            Request::SaveSession(_)
            | Request::ForgetSession
            | Request::SavePending(_)
            | Request::Open(_)
            | Request::Suspend => unreachable!("handled without a task"),
        }
    }
}

/// Opens a URL with `$BROWSER` or the platform's opener ([`crate::browser`]): the first
/// command of the list that starts. On a thread of its own: a browser command may run
/// until the browser closes.
fn open_in_browser(url: String, tx: UnboundedSender<Action>) {
    std::thread::spawn(move || {
        let browser = std::env::var("BROWSER").ok();
        let launches = match crate::browser::commands(browser.as_deref(), &url) {
            Ok(launches) => launches,
            Err(e) => {
                let _ = tx.send(Action::Opened(Err(e)));
                return;
            }
        };
        let mut failed = String::new();
        for launch in launches {
            let child = Command::new(&launch[0])
                .args(&launch[1..])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn();
            match child {
                Ok(mut child) => {
                    let _ = tx.send(Action::Opened(Ok(())));
                    let _ = child.wait();
                    return;
                }
                Err(e) => failed = format!("{}: {e}", launch[0]),
            }
        }
        let _ = tx.send(Action::Opened(Err(failed)));
    });
}
