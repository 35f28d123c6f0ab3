//! The daemon's own HTTP/1.1 accept loop, so the open internet cannot hold its
//! connections: `axum::serve` has no timeouts and no connection cap.
//!
//! - At most `--max-connections` at once. Past it, new connections wait in the kernel's
//!   backlog (one warning in the log says so) instead of failing with "Too many open
//!   files"; the soft open-file limit is raised to fit at start.
//! - A connection waiting for a request (new, or after an answer with keep-alive) is
//!   closed after `--idle-timeout`; once a request's first byte is in, its head must
//!   be complete within `--header-timeout`. A watchdog per connection keeps both: the
//!   socket tells it when bytes arrive, the service when a request starts and ends.
//! - A request body may pause at most `--body-timeout` between two pieces
//!   (tower-http's `RequestBodyTimeoutLayer`, in [`crate::app`]); a `Content-Length`
//!   over `--max-body` is refused with 413 before any of it is read.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use crate::compression::WithCompression;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::time::Instant;

use crate::ingest::parse_duration;

/// Limits of client connections.
#[derive(Debug, Clone, clap::Args)]
pub struct ConnectionConfig {
    /// Connections served at once; more wait until one closes.
    #[arg(long, env = "RADAR_MAX_CONNECTIONS", default_value_t = 1000)]
    pub max_connections: usize,

    /// Longest wait for the rest of a request's head once its first byte arrived.
    #[arg(long, env = "RADAR_HEADER_TIMEOUT", default_value = "10s", value_parser = parse_duration)]
    pub header_timeout: Duration,

    /// Longest pause inside a request body.
    #[arg(long, env = "RADAR_BODY_TIMEOUT", default_value = "30s", value_parser = parse_duration)]
    pub body_timeout: Duration,

    /// How long a connection may wait for its next request (keep-alive) before it is closed.
    #[arg(long, env = "RADAR_IDLE_TIMEOUT", default_value = "60s", value_parser = parse_duration)]
    pub idle_timeout: Duration,

    /// Largest request body in bytes; a larger Content-Length is refused with 413 at once.
    #[arg(long, env = "RADAR_MAX_BODY", default_value_t = 2 * 1024 * 1024)]
    pub max_body: usize,
}

/// Serves `app` on `listener` until `shutdown` resolves, then lets open requests finish
/// for up to 10 seconds.
pub async fn serve(
    listener: TcpListener,
    app: WithCompression,
    config: &ConnectionConfig,
    shutdown: impl Future<Output = ()>,
) {
    let cap = fit_open_file_limit(config.max_connections);
    let slots = Arc::new(Semaphore::new(cap));
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    // Header and idle limits are kept by each connection's `Activity`, which can tell the two
    // apart (hyper's own header timer also runs while a connection is idle).
    http.timer(TokioTimer::new())
        .header_read_timeout(None)
        .keep_alive(true);
    tokio::pin!(shutdown);
    let mut warned = false;
    loop {
        let slot = match slots.clone().try_acquire_owned() {
            Ok(slot) => slot,
            Err(_) => {
                if !warned {
                    tracing::warn!(
                        max_connections = cap,
                        "connection limit reached: new connections wait until one closes \
                         (raise --max-connections if the machine has room)"
                    );
                    warned = true;
                }
                tokio::select! {
                    slot = slots.clone().acquire_owned() => slot.expect("the semaphore is never closed"),
                    () = &mut shutdown => break,
                }
            }
        };
        if slots.available_permits() > cap / 2 {
            warned = false;
        }
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of descriptors or memory: wait for some to free instead of spinning.
                    tracing::warn!(error = %e, "accept failed; retrying shortly");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let activity = Activity::new(config);
        let io = Watched {
            stream,
            activity: activity.clone(),
        };
        let app = app.clone();
        let watch = activity.clone();
        let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
            req.extensions_mut().insert(ConnectInfo(peer));
            let activity = activity.clone();
            activity.set(Phase::Busy);
            let answer = app.answer(req.map(axum::body::Body::new));
            async move {
                let res = answer.await;
                activity.set(Phase::Idle(Instant::now()));
                res
            }
        });
        let conn = graceful.watch(http.serve_connection(TokioIo::new(io), service));
        tokio::spawn(async move {
            tokio::select! {
                // A closed connection is the client's business, not an error of ours.
                ended = conn => if let Err(e) = ended {
                    tracing::debug!(%peer, error = %e, "connection ended");
                },
                why = watch.expired() => tracing::debug!(%peer, why, "connection closed"),
            }
            drop(slot);
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(Duration::from_secs(10)) => {
            tracing::warn!("open requests did not finish within 10 s of the shutdown");
        }
    }
}

/// Raises the soft open-file limit towards the hard one so `wanted` connections fit
/// beside the store's own files; answers the connection cap that fits.
fn fit_open_file_limit(wanted: usize) -> usize {
    /// Descriptors kept for the store, the admin socket, feeds and mail.
    const RESERVED: u64 = 128;
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit read and write the struct we pass, nothing else.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return wanted;
        }
        let need = wanted as u64 + RESERVED;
        if lim.rlim_cur < need {
            lim.rlim_cur = need.min(lim.rlim_max);
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
            libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim);
        }
    }
    let fits = lim.rlim_cur.saturating_sub(RESERVED).max(1) as usize;
    if fits < wanted {
        tracing::warn!(
            wanted,
            fits,
            "the open-file limit (ulimit -n) allows fewer connections than --max-connections; \
             serving at most {fits}"
        );
        return fits;
    }
    wanted
}

/// What a connection is doing, as the service and the socket see it.
///
/// Kept in one atomic word (the phase in the low two bits, the milliseconds since the
/// connection opened above them), so the hot path of every request is two stores and
/// wakes nobody: the watchdog ([`Activity::expired`]) reads the word when its timer fires
/// and sleeps again until the next possible deadline, at most `--header-timeout` later.
struct Activity {
    word: AtomicU64,
    opened: Instant,
    idle: Duration,
    header: Duration,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Waiting for a request's first byte since then.
    Idle(Instant),
    /// A request's head started arriving then.
    Head(Instant),
    /// A request is being answered: bodies and handlers have limits of their own.
    Busy,
}

const IDLE: u64 = 0;
const HEAD: u64 = 1;
const BUSY: u64 = 2;

impl Activity {
    fn new(config: &ConnectionConfig) -> Arc<Self> {
        let activity = Arc::new(Self {
            word: AtomicU64::new(IDLE),
            opened: Instant::now(),
            idle: config.idle_timeout,
            header: config.header_timeout,
        });
        activity.set(Phase::Idle(activity.opened));
        activity
    }

    fn encode(&self, phase: Phase) -> u64 {
        let at = |t: Instant| (t.saturating_duration_since(self.opened).as_millis() as u64) << 2;
        match phase {
            Phase::Idle(t) => at(t) | IDLE,
            Phase::Head(t) => at(t) | HEAD,
            Phase::Busy => BUSY,
        }
    }

    fn set(&self, phase: Phase) {
        self.word.store(self.encode(phase), Ordering::Release);
    }

    fn phase(&self) -> Phase {
        let word = self.word.load(Ordering::Acquire);
        let at = self.opened + Duration::from_millis(word >> 2);
        match word & 3 {
            IDLE => Phase::Idle(at),
            HEAD => Phase::Head(at),
            _ => Phase::Busy,
        }
    }

    /// Bytes arrived while no request was in progress: a head has started.
    fn bytes_arrived(&self) {
        let word = self.word.load(Ordering::Acquire);
        if word & 3 == IDLE {
            // Lost only to the service marking the connection busy, which is later news.
            let _ = self.word.compare_exchange(
                word,
                self.encode(Phase::Head(Instant::now())),
                Ordering::AcqRel,
                Ordering::Acquire,
            );
        }
    }

    /// When the wait the connection is in must end, and what it waits for.
    fn deadline(&self) -> Option<(Instant, &'static str)> {
        match self.phase() {
            Phase::Idle(since) => Some((since + self.idle, "no request within --idle-timeout")),
            Phase::Head(since) => Some((
                since + self.header,
                "request head not complete within --header-timeout",
            )),
            Phase::Busy => None,
        }
    }

    /// Resolves when the client has kept the connection waiting too long, saying how.
    /// Nobody wakes it when the phase changes: a phase entered after this look ends no
    /// sooner than the shorter of the two timeouts from now, so looking again that often
    /// is enough, and no deadline is missed.
    async fn expired(&self) -> &'static str {
        loop {
            let now = Instant::now();
            let next_look = now + self.header.min(self.idle).max(Duration::from_millis(1));
            match self.deadline() {
                Some((deadline, what)) if now >= deadline => return what,
                Some((deadline, _)) => tokio::time::sleep_until(deadline.min(next_look)).await,
                None => tokio::time::sleep_until(next_look).await,
            }
        }
    }
}

/// A client socket that reports arriving bytes to its [`Activity`].
struct Watched {
    stream: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let read = Pin::new(&mut self.stream).poll_read(cx, buf);
        if matches!(read, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.bytes_arrived();
        }
        read
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

/// Refuses a request whose declared body is larger than `--max-body` before reading any
/// of it, in the error shape of its surface.
pub async fn refuse_oversized_body(
    axum::extract::State(max): axum::extract::State<usize>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let declared = req
        .headers()
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u128>().ok());
    if declared.is_some_and(|n| n > max as u128) {
        let e = crate::ApiError::new(
            axum::http::StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            format!("The request body is larger than this server accepts ({max} bytes)."),
        );
        return if req.uri().path().starts_with("/auth/v1") {
            crate::auth::error::AuthError::from(e).into_response()
        } else {
            e.into_response()
        };
    }
    next.run(req).await
}
