//! The daemon's side of the admin path: HTTP/1.1 on the Unix socket `DATA/admin.sock`
//! (mode 0600, so only the data directory's owner connects), one route `POST /admin`
//! taking an [`AdminRequest`] as JSON and answering an [`AdminResponse`], or an
//! [`AdminError`] with a 4xx/5xx status. It also runs the background pipeline (feed
//! polling, the summary schedule), which shares the admin context's in-flight set.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use anyhow::Context;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use radar_store::Store;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::{AdminCtx, AdminError, AdminRequest, execute};
use crate::ingest::{IngestConfig, scheduler};

/// Largest admin request (an item import carries the whole file).
const MAX_REQUEST: usize = 512 * 1024 * 1024;

/// The admin socket of a data directory.
pub fn socket_path(data_dir: &Path) -> PathBuf {
    data_dir.join("admin.sock")
}

/// The admin router (exposed for tests that call it without a socket).
pub fn router(ctx: AdminCtx) -> Router {
    Router::new()
        .route("/admin", post(post_admin))
        .layer(DefaultBodyLimit::max(MAX_REQUEST))
        .with_state(ctx)
}

async fn post_admin(State(ctx): State<AdminCtx>, body: Bytes) -> Response {
    let req: AdminRequest = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(e) => {
            let err = AdminError::new(
                "invalid",
                format!(
                    "not an admin request: {e}; is this `radar` the same version as the daemon?"
                ),
            );
            return (StatusCode::BAD_REQUEST, axum::Json(err)).into_response();
        }
    };
    match execute(&ctx, req).await {
        Ok(answer) => axum::Json(answer).into_response(),
        Err(e) => {
            let status = match e.error.as_str() {
                "not_found" => StatusCode::NOT_FOUND,
                "invalid" => StatusCode::BAD_REQUEST,
                "conflict" => StatusCode::CONFLICT,
                "forbidden" => StatusCode::FORBIDDEN,
                "empty_week" => StatusCode::UNPROCESSABLE_ENTITY,
                "storage_full" => StatusCode::INSUFFICIENT_STORAGE,
                _ => StatusCode::INTERNAL_SERVER_ERROR,
            };
            if status.is_server_error() {
                tracing::error!(error = %e, "admin request failed");
            }
            (status, axum::Json(e)).into_response()
        }
    }
}

/// Binds the socket where nobody else can reach it (a fresh 0700 directory), restricts it
/// to 0600, then renames it into place: there is no moment when the socket exists with
/// looser permissions, and a stale socket left by a crash is replaced in one step.
fn bind_private(data_dir: &Path, path: &Path) -> anyhow::Result<tokio::net::UnixListener> {
    use std::os::unix::fs::DirBuilderExt;
    // Short names: a socket path must fit in 108 bytes.
    let private = data_dir.join(format!(".as{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&private);
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&private)
        .with_context(|| format!("cannot create {}", private.display()))?;
    let staged = private.join("s");
    let bound = (|| {
        let listener = tokio::net::UnixListener::bind(&staged)
            .with_context(|| format!("cannot create the admin socket {}", staged.display()))?;
        std::fs::set_permissions(&staged, std::fs::Permissions::from_mode(0o600))
            .with_context(|| format!("cannot restrict the admin socket {}", staged.display()))?;
        if path.exists() {
            tracing::info!(path = %path.display(), "replacing a stale admin socket");
        }
        std::fs::rename(&staged, path)
            .with_context(|| format!("cannot place the admin socket at {}", path.display()))?;
        Ok(listener)
    })();
    let _ = std::fs::remove_dir_all(&private);
    bound
}

/// The admin socket and the background pipeline of a running daemon.
pub struct Background {
    socket: Option<PathBuf>,
    stop: watch::Sender<bool>,
    tasks: Vec<JoinHandle<()>>,
}

impl Background {
    /// Binds `DATA/admin.sock` (a stale file from a crash is replaced: the caller holds
    /// the store's lock, so no other daemon owns it) and starts the pipeline. Must be
    /// called inside a tokio runtime.
    pub async fn start(
        data_dir: &Path,
        store: Store,
        config: &IngestConfig,
    ) -> anyhow::Result<Background> {
        let ctx = AdminCtx::with_config(store, config);
        let (stop, stopped) = watch::channel(false);
        let mut tasks = Vec::new();
        let path = socket_path(data_dir);
        // Without the socket the daemon still serves readers; admin commands then say
        // that the store is in use and no daemon answers.
        let listener = bind_private(data_dir, &path)
            .inspect_err(|e| tracing::error!(error = %format!("{e:#}"), "admin commands cannot reach this daemon"))
            .ok();
        if let Some(listener) = listener {
            let app = router(ctx.clone());
            let mut rx = stopped.clone();
            tasks.push(tokio::spawn(async move {
                let shutdown = async move {
                    let _ = rx.wait_for(|s| *s).await;
                };
                if let Err(e) = axum::serve(listener, app)
                    .with_graceful_shutdown(shutdown)
                    .await
                {
                    tracing::error!(error = %e, "the admin socket stopped");
                }
            }));
        }
        let (poll, schedule) = (!config.no_feed_polling, config.summary_schedule);
        if poll || schedule {
            tasks.push(tokio::spawn(scheduler::run(ctx, poll, schedule, stopped)));
        }
        Ok(Background {
            socket: Some(path),
            stop,
            tasks,
        })
    }

    /// Stops the pipeline, lets running admin requests finish and removes the socket.
    pub async fn stop(mut self) {
        let _ = self.stop.send(true);
        for t in self.tasks.drain(..) {
            let _ = tokio::time::timeout(std::time::Duration::from_secs(10), t).await;
        }
        if let Some(p) = self.socket.take() {
            let _ = std::fs::remove_file(p);
        }
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        // An error return from `serve` skips `stop`; the socket must not outlive us.
        if let Some(p) = self.socket.take() {
            let _ = std::fs::remove_file(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::http::Request;
    use http_body_util::BodyExt;
    use serde_json::{Value, json};
    use tower::ServiceExt;

    async fn post(app: &Router, body: &str) -> (StatusCode, Value) {
        let req = Request::post("/admin")
            .header("content-type", "application/json")
            .body(Body::from(body.to_string()));
        let res = app.clone().oneshot(req.unwrap()).await.unwrap();
        let status = res.status();
        let bytes = res.into_body().collect().await.unwrap().to_bytes();
        (status, serde_json::from_slice(&bytes).unwrap())
    }

    #[tokio::test]
    async fn answers_requests_and_errors_as_json() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), Default::default()).unwrap();
        let app = router(AdminCtx::new(store));
        assert_eq!(
            post(&app, r#"{"op":"users_list"}"#).await,
            (StatusCode::OK, json!({"kind": "users", "data": []}))
        );
        let (status, body) =
            post(&app, r#"{"op":"users_show","email":"nobody@example.com"}"#).await;
        assert_eq!(
            (status, body["error"].as_str()),
            (StatusCode::NOT_FOUND, Some("not_found"))
        );
        let (status, body) = post(&app, r#"{"op":"self_destruct"}"#).await;
        assert_eq!(
            (status, body["error"].as_str()),
            (StatusCode::BAD_REQUEST, Some("invalid"))
        );
        let (status, body) = post(&app, r#"{"op":"summaries_generate","week":"2020-W10"}"#).await;
        assert_eq!(
            (status, body["error"].as_str()),
            (StatusCode::UNPROCESSABLE_ENTITY, Some("empty_week"))
        );
    }

    #[tokio::test]
    async fn the_socket_is_private_and_removed_on_stop() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), Default::default()).unwrap();
        std::fs::write(socket_path(dir.path()), b"stale").unwrap();
        let config = IngestConfig {
            no_feed_polling: true,
            ..Default::default()
        };
        let bg = Background::start(dir.path(), store, &config).await.unwrap();
        let meta = std::fs::metadata(socket_path(dir.path())).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
        assert!(
            std::os::unix::fs::FileTypeExt::is_socket(&meta.file_type()),
            "the stale file was replaced"
        );
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(
            !leftovers
                .iter()
                .any(|n| n.to_string_lossy().starts_with(".as")),
            "{leftovers:?}"
        );
        bg.stop().await;
        assert!(!socket_path(dir.path()).exists());
    }
}
