//! Sends an admin request where it can be carried out: to the running daemon over its
//! Unix socket `DATA/admin.sock`, or, when no daemon listens there, to the store opened
//! here. Either way the same `radar_daemon::admin::execute` does the work, so there is
//! never a second writer and never a "lock held" failure.

use std::io::IsTerminal;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use indicatif::{ProgressBar, ProgressStyle};
use radar_daemon::admin::{
    AdminCtx, AdminError, AdminRequest, AdminResponse, Progress, execute, socket::socket_path,
};

/// How long to wait for a daemon that holds the store but does not answer yet
/// (`RADAR_ADMIN_WAIT_MS` overrides it).
const STARTUP_WAIT: Duration = Duration::from_secs(10);

/// The default of `--admin-timeout`.
pub const DEFAULT_SILENCE: Duration = Duration::from_secs(30);

/// How long a command waits for the next byte from a running daemon (`--admin-timeout`).
/// Set once by `crate::run` before any request: one global flag serves every command,
/// so it is kept here rather than threaded through each command's arguments.
static SILENCE: std::sync::OnceLock<Duration> = std::sync::OnceLock::new();

/// Sets how long a running daemon may stay silent before a command gives up.
pub fn set_silence_limit(limit: Duration) {
    let _ = SILENCE.set(limit);
}

fn silence_limit() -> Duration {
    SILENCE.get().copied().unwrap_or(DEFAULT_SILENCE)
}

/// The shared database named by the global `--store`, if any. Set once by `crate::run`
/// before any request, as [`SILENCE`] is.
static DATABASE: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();

/// Makes every command work on the shared database at `url` (none: the data directory).
pub fn use_database(url: Option<String>) {
    let _ = DATABASE.set(url);
}

/// Carries out `req` on the data directory `data`, or on the shared database when the
/// command line names one. A daemon serving `data` carries it out when one runs (it
/// joins a feed fetch it has under way, and a reindex rebuilds its search replica);
/// otherwise, on a database, the command works on it directly (there is no lock to wait
/// for: every daemon reads what the database holds), and a reindex rebuilds the replica
/// in `data` for the daemon that starts there next. `slow` operations show a spinner
/// while the daemon works, or a progress bar when they run here.
pub async fn run(data: &Path, req: AdminRequest, slow: bool) -> anyhow::Result<AdminResponse> {
    let wait = std::env::var("RADAR_ADMIN_WAIT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(STARTUP_WAIT, Duration::from_millis);
    if let Some(Some(url)) = DATABASE.get() {
        if let Some(answer) = try_daemon(data, &req, slow).await? {
            return answer.map_err(explain);
        }
        let replica = matches!(req, AdminRequest::ItemsReindex);
        return run_here(open_store(data, Some((url, replica))).await?, req).await;
    }
    let deadline = Instant::now() + wait;
    let mut waiting: Option<LockWait> = None;
    loop {
        if let Some(answer) = try_daemon(data, &req, slow).await? {
            return answer.map_err(explain);
        }
        match open_store(data, None).await {
            Ok(store) => return run_here(store, req).await,
            Err(e) if is_lock_error(&e) && Instant::now() < deadline => {
                // A daemon has the store but its socket is not up yet (it is starting or
                // stopping), or another command works on it: say so, ask again shortly.
                waiting.get_or_insert_with(|| LockWait::show(data, wait));
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(e) if is_lock_error(&e) => bail!(
                "the store in {} is in use by another process, but no daemon answers on {}. \
                 Another radar command may still be running (a long import), or `radar serve` is starting or \
                 stopping: try again in a moment; otherwise look for a stuck radar process",
                data.display(),
                socket_path(data).display()
            ),
            // Its message names the cause first (a full disk, a permission, a file where
            // a folder belongs), with the path and what to do.
            Err(e @ radar_store::Error::Open(_)) => return Err(anyhow!(e)),
            Err(e) => {
                return Err(anyhow!(e))
                    .with_context(|| format!("cannot open the store in {}", data.display()));
            }
        }
    }
}

/// Carries out `req` on a store opened in this process, with a progress bar.
async fn run_here(store: radar_store::Store, req: AdminRequest) -> anyhow::Result<AdminResponse> {
    let mut ctx = AdminCtx::new(store);
    ctx.progress = Arc::new(Bar::default());
    let answer = execute(&ctx, req).await;
    ctx.progress.end();
    answer.map_err(explain)
}

/// What the user sees while a command waits for the store's lock: a spinner on a
/// terminal, else one line on stderr, so the wait is never silent.
struct LockWait(Option<ProgressBar>);

impl LockWait {
    fn show(data: &Path, wait: Duration) -> Self {
        let what = format!(
            "waiting up to {} s for the store lock on {}: another radar process holds it",
            wait.as_secs_f32(),
            data.join("db").display()
        );
        if std::io::stderr().is_terminal() {
            let s = ProgressBar::new_spinner().with_message(what);
            s.enable_steady_tick(Duration::from_millis(120));
            Self(Some(s))
        } else {
            eprintln!("{what}");
            Self(None)
        }
    }
}

impl Drop for LockWait {
    fn drop(&mut self) {
        if let Some(s) = self.0.take() {
            s.finish_and_clear();
        }
    }
}

fn explain(e: AdminError) -> anyhow::Error {
    anyhow!(e.message)
}

fn is_lock_error(e: &radar_store::Error) -> bool {
    matches!(e, radar_store::Error::Locked(_))
}

/// The global `--accept-journal-loss`, for the store a command opens here.
static ACCEPT_JOURNAL_LOSS: AtomicBool = AtomicBool::new(false);

/// Sets whether a store opened here may go on without journal records it lacks (see
/// `radar_store::Options::accept_journal_loss`); the command line's global flag.
pub fn accept_journal_loss(accept: bool) {
    ACCEPT_JOURNAL_LOSS.store(accept, Ordering::Relaxed);
}

/// Opens the store in `data`, or the shared database at `url`, with a search replica in
/// `data` only when asked (otherwise the daemons' replicas follow what it writes).
async fn open_store(
    data: &Path,
    database: Option<(&str, bool)>,
) -> radar_store::Result<radar_store::Store> {
    // The same complimentary accounts as the daemon, so subscriber status reads the same.
    let complimentary = std::env::var("RADAR_COMPLIMENTARY")
        .map(|v| {
            v.split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let opts = radar_store::Options {
        complimentary,
        // `run` waits for a held store itself, showing that it does.
        lock_wait: std::time::Duration::ZERO,
        accept_journal_loss: ACCEPT_JOURNAL_LOSS.load(Ordering::Relaxed),
        // Trends are the daemon's to serve.
        trends: false,
        ..Default::default()
    };
    match database {
        Some((url, replica)) => {
            radar_store::Store::open_shared(url, replica.then_some(data), opts).await
        }
        None => radar_store::Store::open(data, opts).await,
    }
}

/// The daemon's answer, or `None` when no daemon listens on the socket.
///
/// A daemon that stays silent for `--admin-timeout` is given up on: one that is stopped
/// (SIGSTOP) still accepts the connection, so without a deadline the command would hang
/// with no output. Long work does not trip it: the daemon sends a space every quarter
/// second while it works on a request (see `radar_daemon::admin::socket`), so only
/// silence counts, never the total time.
async fn try_daemon(
    data: &Path,
    req: &AdminRequest,
    slow: bool,
) -> anyhow::Result<Option<Result<AdminResponse, AdminError>>> {
    let path = socket_path(data);
    let limit = silence_limit();
    let connected = tokio::time::timeout(limit, tokio::net::UnixStream::connect(&path)).await;
    let stream = match connected {
        Err(_) => bail!("{}", silent(&path, None, limit)),
        Ok(Ok(s)) => s,
        Ok(Err(e))
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused
            ) =>
        {
            return Ok(None);
        }
        Ok(Err(e)) => {
            return Err(e).with_context(|| {
                format!(
                    "cannot reach the daemon's admin socket {}; run this as the data directory's owner",
                    path.display()
                )
            });
        }
    };
    let pid = stream.peer_cred().ok().and_then(|c| c.pid());
    // The daemon is sent the file's text: it may not be able to read the file itself.
    let read;
    let req = match req {
        AdminRequest::ItemsImportFile { path } => {
            let content = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            read = AdminRequest::ItemsImport { content };
            &read
        }
        req => req,
    };
    let spinner = slow.then(|| {
        let s = ProgressBar::new_spinner().with_message("the daemon is working on it");
        s.enable_steady_tick(Duration::from_millis(120));
        s
    });
    let answer = send(stream, req, limit).await;
    if let Some(s) = spinner {
        s.finish_and_clear();
    }
    match answer {
        Ok(answer) => Ok(Some(answer)),
        Err(e) if e.is::<Silent>() => bail!("{}", silent(&path, pid, limit)),
        Err(e) => Err(e)
            .with_context(|| format!("the daemon on {} did not answer properly", path.display())),
    }
}

/// The daemon sent nothing for the whole `--admin-timeout`.
#[derive(Debug)]
struct Silent;

impl std::fmt::Display for Silent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the daemon sent nothing in time")
    }
}

impl std::error::Error for Silent {}

/// What to say when the daemon stays silent: what happened, and what to check.
fn silent(path: &Path, pid: Option<i32>, limit: Duration) -> String {
    let (who, resume, check) = match pid {
        Some(pid) => (
            format!("the daemon (pid {pid})"),
            format!("`kill -CONT {pid}`"),
            format!("`ps -o pid,stat,cmd -p {pid}` (state T: stopped)"),
        ),
        None => (
            "the daemon".to_string(),
            "`kill -CONT <pid of radar serve>`".to_string(),
            "`ps` (state T: stopped)".to_string(),
        ),
    };
    format!(
        "{who} did not answer on {} within {} s. Is it stopped or overloaded? Check it with \
         {check}; resume a stopped daemon with {resume}, or restart `radar serve`. \
         --admin-timeout (RADAR_ADMIN_TIMEOUT) sets how long to wait",
        path.display(),
        limit.as_secs_f32()
    )
}

/// `fut`, unless it takes longer than `limit`.
async fn within<T>(
    limit: Duration,
    fut: impl std::future::Future<Output = T>,
) -> Result<T, Silent> {
    tokio::time::timeout(limit, fut).await.map_err(|_| Silent)
}

async fn send(
    stream: tokio::net::UnixStream,
    req: &AdminRequest,
    limit: Duration,
) -> anyhow::Result<Result<AdminResponse, AdminError>> {
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    tokio::spawn(async move {
        let _ = conn.await;
    });
    let body = serde_json::to_vec(req)?;
    let request = hyper::Request::post("/admin")
        .header(hyper::header::HOST, "radar-admin")
        .header(hyper::header::CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(body)))?;
    let res = within(limit, sender.send_request(request)).await??;
    let status = res.status();
    let mut body = res.into_body();
    let mut bytes = Vec::new();
    // Each frame, the daemon's keep-alive spaces included, must come within the limit.
    while let Some(frame) = within(limit, body.frame()).await? {
        if let Ok(data) = frame?.into_data() {
            bytes.extend_from_slice(&data);
        }
    }
    if status.is_success() {
        // A slow request's failure comes after its keep-alive spaces, in a 200 answer
        // whose JSON is an error's: an answer is never in that shape.
        match serde_json::from_slice::<AdminResponse>(&bytes) {
            Ok(answer) => Ok(Ok(answer)),
            Err(e) => match serde_json::from_slice::<AdminError>(&bytes) {
                Ok(err) => Ok(Err(err)),
                Err(_) => Err(e).context("unexpected answer"),
            },
        }
    } else {
        let err: AdminError = serde_json::from_slice(&bytes).unwrap_or_else(|_| {
            AdminError::new("internal", format!("the daemon answered {status}"))
        });
        Ok(Err(err))
    }
}

/// A progress bar on stderr for work done here (hidden when stderr is not a terminal).
#[derive(Default)]
struct Bar(std::sync::Mutex<Option<ProgressBar>>);

impl Progress for Bar {
    fn begin(&self, len: u64, what: &str) {
        // Small jobs finish before a bar is worth drawing.
        if len < 2 {
            return;
        }
        let bar = ProgressBar::new(len).with_message(what.to_string());
        bar.set_style(
            ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        *self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(bar);
    }

    fn step(&self, _note: &str) {
        if let Some(bar) = &*self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
        {
            bar.inc(1);
        }
    }

    fn end(&self) {
        if let Some(bar) = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
        {
            bar.finish_and_clear();
        }
    }
}
