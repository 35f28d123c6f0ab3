//! The daemon's side of the admin path: HTTP/1.1 on the Unix socket `DATA/admin.sock`
//! (mode 0600, so only the data directory's owner connects), one route `POST /admin`
//! taking an [`AdminRequest`] as JSON and answering an [`AdminResponse`], or an
//! [`AdminError`] with a 4xx/5xx status. A request still at work after [`KEEPALIVE`]
//! answers 200 at once and sends a space every [`KEEPALIVE`] until its JSON (answer or
//! error) follows, so the command line can tell a busy daemon from a stopped one. It also
//! runs the background pipeline (feed polling, the summary schedule), which shares the
//! admin context's in-flight set.

use std::convert::Infallible;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use radar_store::Store;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::{AdminCtx, AdminError, AdminRequest, AdminResponse, execute};
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

/// How often a request still being worked on sends a keep-alive space. The command line
/// gives up on a daemon that sends nothing for its `--admin-timeout` (a stopped or hung
/// daemon), so long work (an import, a reindex) must show it is alive.
pub const KEEPALIVE: Duration = Duration::from_millis(250);

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
    // In a task of its own, so a client that gives up does not cut the work short.
    let mut work = tokio::spawn(async move { execute(&ctx, req).await });
    // A quick answer keeps its status code.
    if let Ok(done) = tokio::time::timeout(KEEPALIVE, &mut work).await {
        return answer(flatten(done));
    }
    // A slow one answers 200 at once, then a space every KEEPALIVE while it works, then
    // the JSON of the answer or of the error (leading spaces are valid JSON whitespace).
    let ticks = tokio::time::interval_at(tokio::time::Instant::now() + KEEPALIVE, KEEPALIVE);
    let frames = futures_util::stream::unfold(Some((work, ticks)), |state| async move {
        let (mut work, mut ticks) = state?;
        tokio::select! {
            done = &mut work => {
                let json = match flatten(done) {
                    Ok(answer) => serde_json::to_vec(&answer),
                    Err(e) => {
                        log_failure(&e);
                        serde_json::to_vec(&e)
                    }
                };
                let json = json.unwrap_or_else(|e| {
                    format!(r#"{{"error":"internal","message":"cannot write the answer: {e}"}}"#)
                        .into_bytes()
                });
                Some((Ok::<_, Infallible>(Bytes::from(json)), None))
            }
            _ = ticks.tick() => Some((Ok(Bytes::from_static(b" ")), Some((work, ticks)))),
        }
    });
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        Body::from_stream(frames),
    )
        .into_response()
}

/// The outcome of the request's task (a panic in it is an internal error).
fn flatten(
    done: Result<Result<AdminResponse, AdminError>, tokio::task::JoinError>,
) -> Result<AdminResponse, AdminError> {
    done.unwrap_or_else(|e| Err(AdminError::new("internal", e.to_string())))
}

fn log_failure(e: &AdminError) {
    if status_of(e).is_server_error() {
        tracing::error!(error = %e, "admin request failed");
    }
}

fn status_of(e: &AdminError) -> StatusCode {
    match e.error.as_str() {
        "not_found" => StatusCode::NOT_FOUND,
        "invalid" => StatusCode::BAD_REQUEST,
        "conflict" => StatusCode::CONFLICT,
        "forbidden" => StatusCode::FORBIDDEN,
        "empty_week" => StatusCode::UNPROCESSABLE_ENTITY,
        "storage_full" => StatusCode::INSUFFICIENT_STORAGE,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

fn answer(done: Result<AdminResponse, AdminError>) -> Response {
    match done {
        Ok(answer) => axum::Json(answer).into_response(),
        Err(e) => {
            log_failure(&e);
            (status_of(&e), axum::Json(e)).into_response()
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
    #[allow(
        clippy::unused_async,
        reason = "it spawns tasks: being async keeps it inside a runtime"
    )]
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
        // Always runs: the reading totals are counted whether or not feeds are polled.
        tasks.push(tokio::spawn(scheduler::run(
            ctx,
            poll,
            schedule,
            config.reading_totals_every,
            stopped,
        )));
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
        let store = Store::open(dir.path(), Default::default()).await.unwrap();
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
    async fn a_slow_request_sends_keep_alive_spaces_then_its_answer() {
        // A feed server that takes the connection and never answers: the fetch lasts
        // its 1 s timeout, four keep-alive periods.
        let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/feed.xml", silent.local_addr().unwrap());
        tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((conn, _)) = silent.accept().await {
                held.push(conn);
            }
        });
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), Default::default()).await.unwrap();
        let feed = store.add_feed(&url, None).await.unwrap();
        let app = router(AdminCtx::new(store));
        let body = json!({"op": "feeds_fetch", "ids": [feed.id], "timeout_secs": 1});
        let req = Request::post("/admin")
            .header("content-type", "application/json")
            .body(Body::from(body.to_string()))
            .unwrap();
        let started = std::time::Instant::now();
        let res = app.oneshot(req).await.unwrap();
        assert!(
            started.elapsed() < Duration::from_millis(900),
            "the answer's head comes before the work is done"
        );
        assert_eq!(res.status(), StatusCode::OK);
        let mut body = res.into_body();
        let mut frames = Vec::new();
        while let Some(frame) = body.frame().await {
            frames.push(frame.unwrap().into_data().unwrap());
        }
        let spaces = frames.iter().filter(|f| f.as_ref() == b" ").count();
        assert!(spaces >= 2, "{frames:?}");
        let all: Vec<u8> = frames.concat();
        let answer: Value = serde_json::from_slice(&all).unwrap();
        assert_eq!(answer["kind"], "fetch", "{answer}");
        assert_eq!(answer["data"][0]["status"], "error", "{answer}");
    }

    #[tokio::test]
    async fn the_socket_is_private_and_removed_on_stop() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), Default::default()).await.unwrap();
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
