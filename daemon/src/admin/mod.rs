//! The admin operations, defined once and run the same way live and offline.
//!
//! `radar users|waitlist|subscribers|items|feeds|summaries|outbox ...` turn into one
//! [`AdminRequest`]; [`execute`] carries it out against the store and answers an
//! [`AdminResponse`]. When `radar serve` runs, the command line sends the request over the
//! daemon's Unix socket (`DATA/admin.sock`, mode 0600, see [`socket`]) and the daemon
//! executes it; when nothing listens there, the command line opens the store itself and
//! calls the same function. So there is only ever one writer, and only someone who may
//! open the data directory's socket reaches the admin path.

mod content;
pub mod dates;
mod people;
pub mod socket;

use std::sync::Arc;
use std::time::Duration;

use radar_store::{
    Feed, ImportStatus, Mail, NewItem, NewsItem, Store, Subscription, User, WaitlistEntry,
    WeeklySummary,
};
use serde::{Deserialize, Serialize};

use crate::ingest::{self, FetchReport, InFlight};
use crate::summarize::llm::LlmConfig;

pub use content::{ImportReport, InvalidLine, OpmlReport};

/// One admin operation.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum AdminRequest {
    /// Every account.
    UsersList,
    /// One account.
    UsersShow {
        /// Its e-mail.
        email: String,
    },
    /// Creates a confirmed account with a password.
    UsersCreate {
        /// E-mail.
        email: String,
        /// Password (hashed with the auth service's argon2id scheme; never logged).
        password: Secret,
    },
    /// Deletes an account and every record of it.
    UsersDelete {
        /// Its e-mail.
        email: String,
    },
    /// Waitlist entries in join order; approved ones only with `all`.
    WaitlistList {
        /// Include entries already approved.
        #[serde(default)]
        all: bool,
    },
    /// Grants the subscription and takes the entry off the pending list.
    WaitlistApprove {
        /// E-mail of the waitlisted user.
        email: String,
        /// When the granted subscription ends (none: until revoked).
        #[serde(default)]
        until: Option<chrono::DateTime<chrono::Utc>>,
    },
    /// Removes a waitlist entry without granting anything.
    WaitlistRemove {
        /// E-mail of the waitlisted user.
        email: String,
    },
    /// Every subscriber.
    SubscribersList,
    /// Grants a subscription.
    SubscribersGrant {
        /// E-mail.
        email: String,
        /// When it ends (none: until revoked).
        #[serde(default)]
        until: Option<chrono::DateTime<chrono::Utc>>,
    },
    /// Ends a granted subscription.
    SubscribersRevoke {
        /// E-mail.
        email: String,
    },
    /// Adds or updates one item.
    ItemsAdd {
        /// The item.
        item: NewItem,
    },
    /// Imports a JSON array or JSON Lines document.
    ItemsImport {
        /// The document.
        content: String,
    },
    /// Imports a file like [`AdminRequest::ItemsImport`], reading it as it goes: for a
    /// store opened by the command itself. Never sent to a daemon, which may not be able
    /// to read the file: the command reads it and sends an `ItemsImport` instead.
    #[serde(skip)]
    ItemsImportFile {
        /// The file.
        path: std::path::PathBuf,
    },
    /// The newest items.
    ItemsList {
        /// How many.
        limit: usize,
    },
    /// Removes an item.
    ItemsRemove {
        /// Its id.
        id: String,
    },
    /// Rebuilds the search index from every item.
    ItemsReindex,
    /// Subscribes to a feed.
    FeedsAdd {
        /// Its URL.
        url: String,
        /// Display name.
        #[serde(default)]
        name: Option<String>,
    },
    /// Every feed and its state.
    FeedsList,
    /// Unsubscribes from a feed (its items stay).
    FeedsRemove {
        /// Its id (or URL).
        id: String,
    },
    /// Fetches the given feeds now (all when empty).
    FeedsFetch {
        /// Feed ids (or URLs).
        #[serde(default)]
        ids: Vec<String>,
        /// Per-feed timeout in seconds (default: the configured one).
        #[serde(default)]
        timeout_secs: Option<u64>,
    },
    /// Adds the feeds of an OPML document.
    FeedsImportOpml {
        /// The document.
        content: String,
    },
    /// Every feed as an OPML document.
    FeedsExportOpml,
    /// Writes the summary of an ISO week.
    SummariesGenerate {
        /// `YYYY-Www`; default the previous full week.
        #[serde(default)]
        week: Option<String>,
        /// Replace an existing summary of that week.
        #[serde(default)]
        force: bool,
    },
    /// Every summary, newest week first.
    SummariesList,
    /// One summary.
    SummariesShow {
        /// Its id.
        id: String,
    },
    /// Removes a summary.
    SummariesRemove {
        /// Its id.
        id: String,
    },
    /// Every kept e-mail, newest first.
    OutboxList,
    /// One kept e-mail.
    OutboxShow {
        /// Its id.
        id: String,
    },
}

/// A string that never shows in logs or debug output.
#[derive(Clone, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Secret(pub String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("\"***\"")
    }
}

/// An account as operators see it: never the password hash.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserView {
    /// Id.
    pub id: String,
    /// E-mail.
    pub email: String,
    /// Sign-up time.
    pub created_at: chrono::DateTime<chrono::Utc>,
    /// When the e-mail was confirmed.
    pub email_confirmed_at: Option<chrono::DateTime<chrono::Utc>>,
    /// Last sign-in.
    pub last_sign_in_at: Option<chrono::DateTime<chrono::Utc>>,
    /// Whether the subscriber rule holds now.
    pub subscriber: bool,
    /// The stored subscription.
    pub subscription: Subscription,
}

impl UserView {
    fn of(store: &Store, u: &User) -> Self {
        Self {
            id: u.id.clone(),
            email: u.email.clone(),
            created_at: u.created_at,
            email_confirmed_at: u.email_confirmed_at,
            last_sign_in_at: u.last_sign_in_at,
            subscriber: store.is_subscriber(u),
            subscription: u.subscription.clone(),
        }
    }
}

/// What an operation answers. `--json` prints `data`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", content = "data", rename_all = "snake_case")]
pub enum AdminResponse {
    /// Accounts.
    Users(Vec<UserView>),
    /// One account.
    User(UserView),
    /// Waitlist entries.
    Waitlist(Vec<WaitlistEntry>),
    /// One waitlist entry (after approve or remove).
    WaitlistEntry(WaitlistEntry),
    /// Items.
    Items(Vec<NewsItem>),
    /// One item and what storing it did.
    Item {
        /// The stored item.
        item: NewsItem,
        /// Added, updated or unchanged.
        status: ImportStatus,
    },
    /// Something was removed.
    Removed {
        /// What kind of thing.
        what: String,
        /// Its id.
        id: String,
    },
    /// What an import did.
    Import(ImportReport),
    /// The search index was rebuilt.
    Reindexed {
        /// Items indexed.
        items: u64,
        /// How long it took.
        seconds: f64,
    },
    /// Feeds.
    Feeds(Vec<Feed>),
    /// One feed.
    Feed(Feed),
    /// One report per fetched feed.
    Fetch(Vec<FetchReport>),
    /// What an OPML import did.
    OpmlImport(OpmlReport),
    /// An OPML document.
    Opml(String),
    /// Summaries.
    Summaries(Vec<WeeklySummary>),
    /// One summary.
    Summary(WeeklySummary),
    /// A generated summary.
    Generated {
        /// The summary.
        summary: WeeklySummary,
        /// `local` or `llm`.
        method: String,
        /// Set when the LLM failed and the local summariser stood in.
        #[serde(default)]
        warning: Option<String>,
    },
    /// Kept e-mails.
    Outbox(Vec<Mail>),
    /// One kept e-mail.
    Mail(Mail),
}

/// A failed operation: a stable code and a sentence saying what was wrong and what to do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("{message}")]
pub struct AdminError {
    /// `not_found`, `invalid`, `conflict`, `empty_week`, `storage_full`, `storage`...
    pub error: String,
    /// For people.
    pub message: String,
}

impl AdminError {
    /// An error with a code and a message.
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        Self {
            error: code.to_string(),
            message: message.into(),
        }
    }
    fn invalid(message: impl Into<String>) -> Self {
        Self::new("invalid", message)
    }
}

impl From<crate::summarize::SummaryError> for AdminError {
    fn from(e: crate::summarize::SummaryError) -> Self {
        use crate::summarize::SummaryError as E;
        let code = match e {
            E::Store(store) => return store.into(),
            E::Exists(_) => "conflict",
            E::EmptyWeek { .. } => "empty_week",
            E::Internal(_) => "internal",
        };
        AdminError::new(code, e.to_string())
    }
}

impl From<radar_store::Error> for AdminError {
    fn from(e: radar_store::Error) -> Self {
        use radar_store::Error as E;
        let code = match &e {
            E::NotFound(_) => "not_found",
            E::Invalid(_) => "invalid",
            E::Conflict(_) => "conflict",
            E::Forbidden(_) => "forbidden",
            E::StorageFull(_) => "storage_full",
            E::Locked(_)
            | E::Unavailable(_)
            | E::Unreachable(_)
            | E::Open(_)
            | E::Storage(_)
            | E::Io(_)
            | E::Corrupt(_)
            | E::Index(_)
            | E::JournalLoss(_) => "storage",
        };
        // The operator owns the data: storage errors are shown in full.
        Self::new(code, e.to_string())
    }
}

/// Progress of slow operations (imports, fetching several feeds). The command line shows
/// a bar when it runs an operation itself; the daemon reports nothing.
pub trait Progress: Send + Sync {
    /// Work of `len` steps begins.
    fn begin(&self, _len: u64, _what: &str) {}
    /// One step is done; `note` says which.
    fn step(&self, _note: &str) {}
    /// The work is over.
    fn end(&self) {}
}

/// Reports nothing.
pub struct Quiet;
impl Progress for Quiet {}

/// What [`execute`] works with: the store, an HTTP client for feeds and the LLM, and the
/// pipeline's settings.
#[derive(Clone)]
pub struct AdminCtx {
    /// The store.
    pub store: Store,
    /// For feeds and the LLM.
    pub http: reqwest::Client,
    /// Feeds being fetched right now (shared with the scheduler).
    pub in_flight: InFlight,
    /// Per-feed fetch timeout.
    pub feed_timeout: Duration,
    /// The polling interval, clock and per-host budget (shared with the scheduler).
    pub polling: ingest::Polling,
    /// The LLM summariser, when configured.
    pub llm: Option<LlmConfig>,
    /// Where progress goes.
    pub progress: Arc<dyn Progress>,
    /// Wakes the scheduler when feeds were added, so they are fetched at once.
    pub wake: Arc<tokio::sync::Notify>,
    /// Bounds how many feeds are fetched at once (scheduler and commands together).
    pub fetch_slots: Arc<tokio::sync::Semaphore>,
}

/// Most feeds fetched at the same time.
pub const PARALLEL_FETCHES: usize = 8;

impl AdminCtx {
    /// A context with default pipeline settings and the LLM from the environment.
    pub fn new(store: Store) -> Self {
        Self::with_config(store, &ingest::IngestConfig::default())
    }

    /// A context with the daemon's pipeline settings.
    pub fn with_config(store: Store, config: &ingest::IngestConfig) -> Self {
        let http = reqwest::Client::builder()
            .user_agent(concat!(
                "radar/",
                env!("CARGO_PKG_VERSION"),
                " (feed reader)"
            ))
            .connect_timeout(Duration::from_secs(10))
            .build()
            .expect("the HTTP client builds with static settings");
        Self {
            store,
            http,
            in_flight: InFlight::default(),
            feed_timeout: config.feed_timeout,
            polling: ingest::Polling::new(config.feed_interval, config.host_limits()),
            llm: LlmConfig::from_env(),
            progress: Arc::new(Quiet),
            wake: Arc::new(tokio::sync::Notify::new()),
            fetch_slots: Arc::new(tokio::sync::Semaphore::new(PARALLEL_FETCHES)),
        }
    }
}

/// Carries out one admin operation.
pub async fn execute(ctx: &AdminCtx, req: AdminRequest) -> Result<AdminResponse, AdminError> {
    use AdminRequest as R;
    match req {
        R::UsersList => people::users_list(ctx).await,
        R::UsersShow { email } => people::users_show(ctx, &email).await,
        R::UsersCreate { email, password } => people::users_create(ctx, &email, password.0).await,
        R::UsersDelete { email } => people::users_delete(ctx, &email).await,
        R::WaitlistList { all } => people::waitlist_list(ctx, all).await,
        R::WaitlistApprove { email, until } => people::waitlist_approve(ctx, &email, until).await,
        R::WaitlistRemove { email } => people::waitlist_remove(ctx, &email).await,
        R::SubscribersList => people::subscribers_list(ctx).await,
        R::SubscribersGrant { email, until } => people::subscribers_grant(ctx, &email, until).await,
        R::SubscribersRevoke { email } => people::subscribers_revoke(ctx, &email).await,
        R::OutboxList => Ok(AdminResponse::Outbox(ctx.store.outbox_list().await?)),
        R::OutboxShow { id } => people::outbox_show(ctx, &id).await,
        R::ItemsAdd { item } => content::items_add(ctx, item).await,
        R::ItemsImport { content } => content::items_import(ctx, content).await,
        R::ItemsImportFile { path } => content::items_import_file(ctx, path).await,
        R::ItemsReindex => content::items_reindex(ctx).await,
        R::ItemsList { limit } => Ok(AdminResponse::Items(ctx.store.newest_items(limit).await?)),
        R::ItemsRemove { id } => content::items_remove(ctx, id).await,
        R::FeedsAdd { url, name } => content::feeds_add(ctx, &url, name).await,
        R::FeedsList => Ok(AdminResponse::Feeds(ctx.store.feeds().await?)),
        R::FeedsRemove { id } => content::feeds_remove(ctx, &id).await,
        R::FeedsFetch { ids, timeout_secs } => content::feeds_fetch(ctx, ids, timeout_secs).await,
        R::FeedsImportOpml { content } => {
            let answer = content::feeds_import_opml(ctx, &content).await;
            ctx.wake.notify_one();
            answer
        }
        R::FeedsExportOpml => Ok(AdminResponse::Opml(ingest::opml::export(
            &ctx.store.feeds().await?,
        ))),
        R::SummariesGenerate { week, force } => {
            content::summaries_generate(ctx, week.as_deref(), force).await
        }
        R::SummariesList => Ok(AdminResponse::Summaries(ctx.store.summaries().await?)),
        R::SummariesShow { id } => content::summaries_show(ctx, &id).await,
        R::SummariesRemove { id } => content::summaries_remove(ctx, id).await,
    }
}

/// Runs long admin work (an import, a reindex, a walk over every account) on the
/// blocking pool, driving its store calls from there, so the daemon's request workers
/// stay free meanwhile: the one place the daemon waits on a future from a thread of
/// its own. `work` makes the future there, so it need not be `Send`.
pub(crate) async fn on_blocking_pool<T, F>(
    work: impl FnOnce() -> F + Send + 'static,
) -> Result<T, AdminError>
where
    T: Send + 'static,
    F: std::future::Future<Output = T>,
{
    let handle = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || handle.block_on(work()))
        .await
        .map_err(|e| AdminError::new("internal", e.to_string()))
}

/// A store error, with a friendlier message when it is `NotFound`.
pub(super) fn not_found_hint(e: radar_store::Error, message: &str) -> AdminError {
    match e {
        radar_store::Error::NotFound(_) => AdminError::new("not_found", message),
        e => e.into(),
    }
}
