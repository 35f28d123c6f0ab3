//! The daemon's own HTTP/1.1 accept loop, so the open internet cannot hold its
//! connections: `axum::serve` has no timeouts and no connection cap.
//!
//! - At most `--max-connections` at once. Past it, new connections wait in the kernel's
//!   backlog (one warning in the log says so) instead of failing with "Too many open
//!   files"; the soft open-file limit is raised to fit at start.
//! - At most `--max-connections-per-peer` at once from one client address: past it a
//!   connection is answered 429 `too_many_connections` with Retry-After and closed, so
//!   one client cannot take every slot ([`peers`]).
//! - A connection waiting for a request (new, or after an answer with keep-alive) is
//!   closed after `--idle-timeout`; once a request's first byte is in, its head must
//!   be complete within `--header-timeout`. A watchdog per connection keeps both: the
//!   socket tells it when bytes arrive, the service when a request starts and ends
//!   ([`activity`]).
//! - A request body may pause at most `--body-timeout` between two pieces, and a
//!   `Content-Length` over `--max-body` is refused with 413 before any of it is read
//!   ([`guard`], in [`crate::app`]).
//! - hyper's own refusals of a malformed head (400, 414, 431) carry the JSON error of
//!   their surface like every other answer ([`answers`]).
//! - On SIGTERM every request read before it is answered ([`drain`]).

mod activity;
mod answers;
mod drain;
mod guard;
mod peers;

pub(crate) use guard::GuardLayer;
pub(crate) use guard::declares_body;

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::time::Duration;

use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use crate::config::parse_duration;
use crate::front::Front;
use activity::{Activity, Phase, Watched};

/// Limits of client connections.
#[derive(Debug, Clone, clap::Args)]
pub struct ConnectionConfig {
    /// Connections served at once; more wait until one closes.
    #[arg(long, env = "RADAR_MAX_CONNECTIONS", default_value_t = 1000)]
    pub max_connections: usize,

    /// Connections open at once from one client address (IPv6: one /64); more are
    /// answered 429 and closed. Behind a reverse proxy the proxy is that one client:
    /// raise it to the proxy's connection pool, or 0 turns the cap off.
    #[arg(long, env = "RADAR_MAX_CONNECTIONS_PER_PEER", default_value_t = 64)]
    pub max_connections_per_peer: usize,

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

/// Refusals of connections past their peer's cap being written at once; past this many
/// a refused connection is closed without an answer. Each holds a descriptor for at most
/// [`REFUSAL_LINGER`].
const REFUSALS_AT_ONCE: usize = 64;

/// How long a refused connection stays open after its answer, reading what the client
/// sends meanwhile, so closing it does not reset the connection before the client has
/// read the answer.
const REFUSAL_LINGER: Duration = Duration::from_secs(1);

/// At most one warning about clients at their cap per this long, saying how many
/// connections were refused meanwhile.
const CAP_WARNING_EVERY: Duration = Duration::from_secs(10);

/// Serves `app` on `listener` until `shutdown` resolves, then drains: see [`drain`].
pub(crate) async fn serve(
    listener: TcpListener,
    app: Front,
    config: &ConnectionConfig,
    shutdown: impl Future<Output = ()>,
) {
    let cap = fit_open_file_limit(config.max_connections);
    let slots = Arc::new(Semaphore::new(cap));
    let mut server = Server::new(app, config);
    tokio::pin!(shutdown);
    let mut warned = false;
    // A slot taken for a connection that was then refused serves the next one.
    let mut spare = None;
    loop {
        let slot = match spare.take() {
            Some(slot) => slot,
            None => {
                if let Ok(slot) = slots.clone().try_acquire_owned() {
                    slot
                } else {
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
                    spare = Some(slot);
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        spare = server.open(stream, peer, slot).err();
    }

    // The drain.
    let deadline = Instant::now() + drain::DRAIN_LIMIT;
    server.draining.send_replace(true);
    // Connections already completed by the kernel were opened before the signal: take
    // them before closing the listening socket, which would reset them.
    match listener.into_std() {
        Ok(listener) => loop {
            let slot = match tokio::time::timeout_at(deadline, slots.clone().acquire_owned()).await
            {
                Ok(slot) => slot.expect("the semaphore is never closed"),
                Err(_) => break,
            };
            // Non-blocking, as tokio left it: WouldBlock is an empty backlog.
            match listener.accept() {
                Ok((stream, peer)) => {
                    let stream = stream
                        .set_nonblocking(true)
                        .and_then(|()| TcpStream::from_std(stream));
                    match stream {
                        Ok(stream) => drop(server.open(stream, peer, slot)),
                        Err(e) => tracing::warn!(error = %e, "cannot serve a waiting connection"),
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) => {
                    tracing::warn!(error = %e, "cannot take the waiting connections");
                    break;
                }
            }
        },
        Err(e) => tracing::warn!(error = %e, "cannot take the waiting connections"),
    }
    // Every connection holds a slot until it ends.
    if tokio::time::timeout_at(
        deadline,
        slots.acquire_many(u32::try_from(cap).unwrap_or(u32::MAX)),
    )
    .await
    .is_err()
    {
        tracing::warn!(
            "open requests did not finish within {} s of the shutdown",
            drain::DRAIN_LIMIT.as_secs()
        );
    }
}

/// What every connection is served with.
struct Server {
    app: Front,
    http: hyper::server::conn::http1::Builder,
    config: ConnectionConfig,
    /// Turns true when the drain starts.
    draining: tokio::sync::watch::Sender<bool>,
    peers: Arc<peers::Peers>,
    /// The answer to a connection past its peer's cap.
    refusal: Arc<[u8]>,
    refusing: Arc<Semaphore>,
    /// Connections refused since the last warning, and when that was.
    refused: u64,
    warned_at: Option<Instant>,
}

impl Server {
    fn new(app: Front, config: &ConnectionConfig) -> Self {
        let mut http = hyper::server::conn::http1::Builder::new();
        // Header and idle limits are kept by each connection's `Activity`, which can tell the two
        // apart (hyper's own header timer also runs while a connection is idle).
        http.timer(TokioTimer::new())
            .header_read_timeout(None)
            .keep_alive(true)
            .max_headers(answers::MAX_HEADERS)
            .max_buf_size(answers::MAX_HEAD_BYTES);
        Self {
            app,
            http,
            config: config.clone(),
            draining: tokio::sync::watch::Sender::new(false),
            peers: peers::Peers::new(config.max_connections_per_peer),
            refusal: answers::too_many_connections(config.max_connections_per_peer).into(),
            refusing: Arc::new(Semaphore::new(REFUSALS_AT_ONCE)),
            refused: 0,
            warned_at: None,
        }
    }

    /// Serves a new connection in a task of its own, holding `slot` until it ends; or
    /// refuses it when its peer is at its cap, and gives `slot` back.
    fn open(
        &mut self,
        stream: TcpStream,
        peer: SocketAddr,
        slot: OwnedSemaphorePermit,
    ) -> Result<(), OwnedSemaphorePermit> {
        let Some(peer_slot) = self.peers.take(peer.ip()) else {
            self.refuse(stream, peer);
            return Err(slot);
        };
        let _ = stream.set_nodelay(true);
        let fd = stream.as_raw_fd();
        let activity = Activity::new(&self.config);
        let io = Watched::new(stream, activity.clone());
        let app = self.app.clone();
        let watch = activity.clone();
        let service = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
            let activity = activity.clone();
            activity.set(Phase::Busy);
            let answer = app.answer(req, Some(peer));
            async move {
                let res = answer.await;
                activity.set(Phase::Idle(Instant::now()));
                res
            }
        });
        let conn = self.http.serve_connection(TokioIo::new(io), service);
        let mut draining = self.draining.subscribe();
        tokio::spawn(async move {
            let mut conn = std::pin::pin!(conn);
            let drain_started = async move {
                let _ = draining.wait_for(|&d| d).await;
            };
            let mut drain_started = std::pin::pin!(drain_started);
            let (mut drained, mut closing) = (false, false);
            loop {
                tokio::select! {
                    // A closed connection is the client's business, not an error of ours.
                    ended = conn.as_mut() => {
                        if let Err(e) = ended {
                            tracing::debug!(%peer, error = %e, "connection ended");
                        }
                        break;
                    }
                    why = watch.expired() => {
                        tracing::debug!(%peer, why, "connection closed");
                        break;
                    }
                    () = &mut drain_started, if !drained => drained = true,
                    () = tokio::time::sleep(drain::LOOK_EVERY), if drained && !closing => {}
                }
                if drained && !closing && drain::may_close(&watch, fd) {
                    conn.as_mut().graceful_shutdown();
                    closing = true;
                }
            }
            drop((slot, peer_slot));
        });
        Ok(())
    }

    /// Answers a connection past its peer's cap with 429 and closes it; says so in the
    /// log at most once per [`CAP_WARNING_EVERY`].
    fn refuse(&mut self, stream: TcpStream, peer: SocketAddr) {
        self.refused += 1;
        if self
            .warned_at
            .is_none_or(|at| at.elapsed() >= CAP_WARNING_EVERY)
        {
            tracing::warn!(
                peer = %peer.ip(),
                max_connections_per_peer = self.config.max_connections_per_peer,
                refused = self.refused,
                "a client reached its connection cap: its further connections are answered 429 \
                 (behind a reverse proxy, raise --max-connections-per-peer to the proxy's pool \
                 size, or 0 turns it off)"
            );
            self.warned_at = Some(Instant::now());
            self.refused = 0;
        }
        // Past that many refusals at once the client gets no answer, only the close.
        let Ok(permit) = self.refusing.clone().try_acquire_owned() else {
            return;
        };
        let answer = self.refusal.clone();
        tokio::spawn(async move {
            let _ = tokio::time::timeout(REFUSAL_LINGER, linger(stream, &answer)).await;
            drop(permit);
        });
    }
}

/// Writes `answer`, ends the sending side, then reads what the client sends until it
/// closes (at most 64 KiB): closing a socket with unread data resets the connection, and
/// the client would lose the answer.
async fn linger(mut stream: TcpStream, answer: &[u8]) -> io::Result<()> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    stream.write_all(answer).await?;
    stream.shutdown().await?;
    let mut sink = [0u8; 4096];
    let mut read = 0;
    while read < 64 * 1024 {
        match stream.read(&mut sink).await? {
            0 => break,
            n => read += n,
        }
    }
    Ok(())
}

/// Raises the soft open-file limit towards the hard one so `wanted` connections fit
/// beside the store's own files; answers the connection cap that fits.
fn fit_open_file_limit(wanted: usize) -> usize {
    /// Descriptors kept for the store, the admin socket, feeds and mail, and refusals
    /// being answered.
    const RESERVED: u64 = 128 + REFUSALS_AT_ONCE as u64;
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit read and write the struct we pass, nothing else.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &raw mut lim) != 0 {
            return wanted;
        }
        let need = wanted as u64 + RESERVED;
        if lim.rlim_cur < need {
            lim.rlim_cur = need.min(lim.rlim_max);
            libc::setrlimit(libc::RLIMIT_NOFILE, &raw const lim);
            libc::getrlimit(libc::RLIMIT_NOFILE, &raw mut lim);
        }
    }
    let fits = usize::try_from(lim.rlim_cur.saturating_sub(RESERVED).max(1)).unwrap_or(usize::MAX);
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
