//! Radar's daemon: an axum server over the store. It serves the JSON API, the embedded
//! auth service, the public news API and the web app.
//!
//! Handlers are thin: they read the caller and the request, call one store method and
//! shape the answer. Rules live in `radar_store`.

pub mod admin;
pub(crate) mod alerts;
pub(crate) mod api_key;
pub(crate) mod auth;
pub(crate) mod client_config;
pub(crate) mod compression;
pub mod config;
pub(crate) mod connections;
pub(crate) mod error;
pub(crate) mod extract;
pub(crate) mod front;
pub(crate) mod health;
pub mod ingest;
pub(crate) mod insights;
pub(crate) mod mail;
pub(crate) mod marks;
pub mod memory;
pub(crate) mod news;
pub(crate) mod openapi;
pub(crate) mod payments;
pub(crate) mod profile;
pub(crate) mod public_api;
pub(crate) mod search;
pub(crate) mod state;
pub mod summarize;
pub(crate) mod trends;
pub(crate) mod unsubscribe;
pub(crate) mod user_metadata;
pub(crate) mod waitlist;
pub(crate) mod web;
pub(crate) mod weekly;

use std::sync::Arc;

use anyhow::Context;
use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::{Extension, Router};
use tower_http::trace::TraceLayer;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;

pub use config::Config;
pub(crate) use error::{ApiError, Result};
pub(crate) use state::AppState;

/// Every documented route: the reader's API, payments, the public news API and the auth
/// service. Each resource's router declares a route and its OpenAPI entry together.
pub fn api_router() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(openapi::ApiDoc::openapi())
        .merge(client_config::router())
        .merge(health::router())
        .merge(news::router())
        .merge(marks::router())
        .merge(waitlist::router())
        .merge(profile::router())
        .merge(api_key::router())
        .merge(user_metadata::router())
        .merge(alerts::router())
        .merge(unsubscribe::router())
        .merge(weekly::router())
        .merge(insights::router())
        .merge(payments::router())
        .merge(public_api::router())
        .merge(search::router())
        .merge(trends::router())
        .merge(openapi::router())
        .nest("/auth/v1", auth::router())
}

/// The whole HTTP application for a state: the documented routes and the web app. It is
/// served through [`front::Front`], which adds CORS and compression for the requests
/// that need them and answers the hot reads without the router.
pub fn app(state: AppState) -> Router {
    let (api, doc) = api_router().split_for_parts();
    let app = api
        .layer(Extension(Arc::new(openapi::finish(doc))))
        .merge(web::router())
        .method_not_allowed_fallback(|| async {
            ApiError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "method_not_allowed",
                "This endpoint does not accept that method.",
            )
        })
        .layer(DefaultBodyLimit::max(state.config.connections.max_body))
        // Body limits, body timeouts and panics, in one layer: see `connections::guard`.
        .layer(connections::GuardLayer {
            max_body: state.config.connections.max_body,
            body_timeout: state.config.connections.body_timeout,
        });
    // A span and a log line per request, at debug level: only when that level is on, as
    // the layer costs about a tenth of a small read's time even when it logs nothing.
    let app = if tracing::enabled!(tracing::Level::DEBUG) {
        app.layer(TraceLayer::new_for_http())
    } else {
        app
    };
    app.with_state(state)
}

/// Opens the store, binds the address and serves until Ctrl-C or SIGTERM; the store is
/// flushed before returning.
pub async fn serve(config: Config) -> anyhow::Result<()> {
    config.payments.validate()?;
    let store = open_store(&config).await?;
    if !config.no_demo {
        match store.load_demo_if_empty().await {
            Ok(0) => {}
            Ok(n) => tracing::info!(items = n, "loaded the demo data set"),
            // Said in the store's log line; the demo loads on a later start with room.
            Err(radar_store::Error::StorageFull(_)) => {}
            Err(e) => return Err(e.into()),
        }
    }
    let tokens = auth::tokens::Tokens::load(&store, config.auth.jwt_secret.as_deref()).await?;
    let listener = tokio::net::TcpListener::bind(config.addr)
        .await
        .with_context(|| format!("cannot listen on {}", config.addr))?;
    let bound = listener.local_addr()?;
    // The admin socket is up before the address line, so a command run right after it goes through the daemon.
    let background =
        admin::socket::Background::start(&config.data_dir, store.clone(), &config.ingest).await?;
    let upkeep = tokio::spawn(upkeep(store.clone()));
    // The stories' index of the last fortnight, read now rather than on the first arrival.
    let warming = store.clone();
    tokio::spawn(async move {
        if let Err(e) = warming.prepare_stories().await {
            tracing::warn!(error = %e, "cannot read the recent stories; the first new item will");
        }
        // The start's threads have finished with what they read.
        tokio::task::spawn_blocking(memory::release_free_memory);
    });
    let state = AppState::new(config, store.clone(), tokens, bound);
    let mail_jobs = tokio::spawn(mail::jobs(
        state.clone(),
        std::time::Duration::from_secs(state.config.mail_every_secs.max(1)),
    ));
    // Handlers are installed before the address is announced, so a signal sent by anyone
    // who has read that line stops the daemon cleanly instead of killing it.
    let shutdown = shutdown_signal()?;

    // Tests and scripts read these two lines to find the port and the key. A reader that
    // stops reading (`radar serve | head -1`) must not stop the daemon: write errors are
    // ignored, where `println!` would panic.
    {
        use std::io::Write as _;
        let mut stdout = std::io::stdout();
        let _ = writeln!(stdout, "listening on http://{bound}");
        let _ = writeln!(stdout, "anon key: {}", state.tokens.anon_key);
    }
    let workers = tokio::runtime::Handle::current().metrics().num_workers();
    tracing::info!(%bound, site_url = %state.site_url, workers, "radar is serving");

    let limits = state.config.connections.clone();
    connections::serve(listener, front::Front::new(state), &limits, shutdown).await;
    background.stop().await;
    upkeep.abort();
    mail_jobs.abort();
    // Every acknowledged write was durable before its answer, so a failure here (a full
    // disk, a store that met an I/O error) loses nothing acknowledged: it is logged and
    // the exit stays clean. The quota counts of the last second are what may be lost.
    if let Err(e) = store.upkeep().await {
        tracing::warn!(error = %e, "the API quota counts of the last moments were not saved");
    }
    match store.flush().await {
        Ok(()) => tracing::info!("stopped; store flushed"),
        Err(e) => tracing::warn!(
            error = %e,
            "stopped; the final flush failed, but every acknowledged write was already on disk"
        ),
    }
    Ok(())
}

/// How long `radar serve` waits for a shared database that cannot be reached when it
/// starts (it may be starting beside the daemon), asking again with growing pauses.
const DATABASE_START_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

/// Opens the store the configuration names: the embedded one in the data directory
/// (which the store makes private, 0700 and files 0600, before anything in it), or the
/// shared database with this daemon's search replica in the data directory.
async fn open_store(config: &Config) -> anyhow::Result<radar_store::Store> {
    let opts = radar_store::Options {
        cache_bytes: config.cache_mb * 1024 * 1024,
        complimentary: config.complimentary.clone(),
        accept_journal_loss: config.accept_journal_loss,
        disk_reserve: config.disk_reserve_mb * 1024 * 1024,
        warm_known_items: true,
        ..Default::default()
    };
    let Some(url) = &config.store_url else {
        return radar_store::Store::open(&config.data_dir, opts)
            .await
            .map_err(|e| open_error(&config.data_dir, e));
    };
    let started = std::time::Instant::now();
    let mut pause = std::time::Duration::from_millis(250);
    loop {
        match radar_store::Store::open_shared(url, Some(&config.data_dir), opts.clone()).await {
            Ok(store) => return Ok(store),
            Err(e @ radar_store::Error::Unreachable(_))
                if started.elapsed() < DATABASE_START_WAIT =>
            {
                tracing::warn!(error = %e, "waiting for the database");
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(std::time::Duration::from_secs(5));
            }
            Err(e) => return Err(open_error(&config.data_dir, e)),
        }
    }
}

/// Why the store did not open, cause first. Only a held lock means another process
/// uses the data directory; the store's own messages name the other causes (a full
/// disk, a permission, a file where a folder belongs) with their paths and fixes.
fn open_error(data: &std::path::Path, e: radar_store::Error) -> anyhow::Error {
    match e {
        radar_store::Error::Locked(_) => anyhow::anyhow!(
            "{e}: is another `radar serve` using this data directory? Stop it, or pick another \
             --data (admin commands reach a running daemon by themselves)"
        ),
        radar_store::Error::Open(_) => anyhow::anyhow!(e),
        e => anyhow::anyhow!("{e} (while opening the store in {})", data.display()),
    }
}

/// The store's upkeep every second (see `radar_store::Store::upkeep`): the embedded
/// backend writes the public API's quota counters to disk, and looks at the free space,
/// so a disk that fills while nobody writes gets its ballast back at once, and one with
/// room again has writes resume; on a shared database, the search replica follows the
/// change log.
async fn upkeep(store: radar_store::Store) {
    let mut tick = tokio::time::interval(radar_store::QUOTA_CHECKPOINT_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if let Err(e) = store.upkeep().await {
            tracing::error!(error = %e, "the store's upkeep failed (API quota counters not saved, or the search replica behind)");
        }
    }
}

/// Resolves on Ctrl-C or SIGTERM. The handlers are registered when this is called, not
/// when the future is first polled.
fn shutdown_signal() -> anyhow::Result<impl std::future::Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut int = signal(SignalKind::interrupt()).context("cannot handle SIGINT")?;
        let mut term = signal(SignalKind::terminate()).context("cannot handle SIGTERM")?;
        Ok(async move {
            tokio::select! { _ = int.recv() => {}, _ = term.recv() => {} }
            tracing::info!("shutting down");
        })
    }
    #[cfg(not(unix))]
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
        tracing::info!("shutting down");
    })
}
