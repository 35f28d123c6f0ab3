//! The state every handler receives: configuration, the store and the token keys.

use std::net::SocketAddr;
use std::sync::Arc;

use radar_store::Store;

use crate::auth::tokens::Tokens;
use crate::config::Config;

/// Shared by all handlers through `Router::with_state`. axum clones the state for every
/// request (the handler service and each `State` extractor), so it is one `Arc`: a clone
/// is one atomic increment, where cloning each part was some twenty, on counters that
/// every request on every core touches (measured: about 8% of a feed request).
#[derive(Clone)]
pub struct AppState(Arc<Parts>);

/// What the state holds; handlers reach it through `AppState`'s `Deref`.
pub struct Parts {
    /// Settings.
    pub config: Arc<Config>,
    /// The store.
    pub store: Store,
    /// Token keys.
    pub tokens: Arc<Tokens>,
    /// The public origin (site URL), resolved once the address is bound.
    pub site_url: Arc<url::Url>,
    /// Keeps (and with SMTP, sends) e-mails.
    pub mailer: Arc<crate::mail::Mailer>,
    /// Sign-in attempts per e-mail and per client IP.
    pub limiter: Arc<crate::auth::limiter::RateLimiter>,
    /// When each address last asked for a mailed link.
    pub send_pace: Arc<crate::auth::pace::SendPace>,
    /// The bounded pool passwords are hashed and checked on.
    pub passwords: Arc<crate::auth::password::PasswordPool>,
    /// Pages of the public listing kept ready as JSON.
    pub public_pages: Arc<crate::public_api::Pages>,
    /// The web app's page with the configuration inline, compressed, made at first need.
    pub index_page: std::sync::OnceLock<Option<crate::web::IndexPage>>,
}

impl AppState {
    /// State for a bound address.
    pub fn new(config: Config, store: Store, tokens: Tokens, bound: SocketAddr) -> Self {
        let site_url = config.site_url(bound);
        let mailer = crate::mail::Mailer::new(
            store.clone(),
            config.auth.smtp_url.as_ref(),
            &config.auth.mail_from,
        );
        let limiter = crate::auth::limiter::RateLimiter::new(config.auth.sign_in_rate);
        let send_pace = crate::auth::pace::SendPace::new(std::time::Duration::from_secs(
            config.auth.email_max_frequency,
        ));
        let passwords = crate::auth::password::PasswordPool::new(&config.passwords);
        Self(Arc::new(Parts {
            send_pace: Arc::new(send_pace),
            passwords: Arc::new(passwords),
            config: Arc::new(config),
            store,
            tokens: Arc::new(tokens),
            site_url: Arc::new(site_url),
            mailer: Arc::new(mailer),
            limiter: Arc::new(limiter),
            public_pages: Arc::default(),
            index_page: std::sync::OnceLock::new(),
        }))
    }
}

impl std::ops::Deref for AppState {
    type Target = Parts;

    fn deref(&self) -> &Parts {
        &self.0
    }
}
