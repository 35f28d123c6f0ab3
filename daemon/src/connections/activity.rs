//! What each connection is doing, so a watchdog can close the ones that keep it waiting
//! and the drain can tell a connection with a request under way from an idle one.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Instant;

use super::ConnectionConfig;
use super::answers;

/// What a connection is doing, as the service and the socket see it.
///
/// Kept in one atomic word (the phase in the low two bits, the milliseconds since the
/// connection opened above them), so the hot path of every request is two stores and
/// wakes nobody: the watchdog ([`Activity::expired`]) reads the word when its timer fires
/// and sleeps again until the next possible deadline, at most `--header-timeout` later.
pub(super) struct Activity {
    word: AtomicU64,
    opened: Instant,
    idle: Duration,
    header: Duration,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
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
    pub(super) fn new(config: &ConnectionConfig) -> Arc<Self> {
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
        #[expect(
            clippy::cast_possible_truncation,
            reason = "a connection's age in ms stays far below 2^62"
        )]
        let at = |t: Instant| (t.saturating_duration_since(self.opened).as_millis() as u64) << 2;
        match phase {
            Phase::Idle(t) => at(t) | IDLE,
            Phase::Head(t) => at(t) | HEAD,
            Phase::Busy => BUSY,
        }
    }

    pub(super) fn set(&self, phase: Phase) {
        self.word.store(self.encode(phase), Ordering::Release);
    }

    pub(super) fn phase(&self) -> Phase {
        let word = self.word.load(Ordering::Acquire);
        let at = self.opened + Duration::from_millis(word >> 2);
        match word & 3 {
            IDLE => Phase::Idle(at),
            HEAD => Phase::Head(at),
            _ => Phase::Busy,
        }
    }

    /// Bytes arrived while no request was in progress: a head has started. Answers
    /// whether these bytes are the start of a head.
    fn bytes_arrived(&self) -> bool {
        let word = self.word.load(Ordering::Acquire);
        if word & 3 != IDLE {
            return false;
        }
        // Lost only to the service marking the connection busy, which is later news.
        self.word
            .compare_exchange(
                word,
                self.encode(Phase::Head(Instant::now())),
                Ordering::AcqRel,
                Ordering::Acquire,
            )
            .is_ok()
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
    pub(super) async fn expired(&self) -> &'static str {
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

/// How many bytes of a request's start are kept: enough for the method and the first
/// segments of the path, which say which surface's error shape a refusal takes.
const START_KEPT: usize = 64;

/// A client socket that reports arriving bytes to its [`Activity`], and gives hyper's
/// own refusals of a malformed head a JSON body (see [`answers::replace_automatic`]).
pub(super) struct Watched {
    stream: TcpStream,
    activity: Arc<Activity>,
    /// The first bytes of the request head now arriving.
    start: [u8; START_KEPT],
    start_len: usize,
    /// An answer written in place of one of hyper's, with how much of it is out and how
    /// many of hyper's bytes it stands for.
    replacing: Option<(Vec<u8>, usize, usize)>,
}

impl Watched {
    pub(super) fn new(stream: TcpStream, activity: Arc<Activity>) -> Self {
        Self {
            stream,
            activity,
            start: [0; START_KEPT],
            start_len: 0,
            replacing: None,
        }
    }

    /// Writes `head`, or the answer that stands for it when it is hyper's refusal of a
    /// malformed request. `Ok(n)` counts `head`'s bytes, as hyper expects.
    fn poll_write_head(
        &mut self,
        cx: &mut Context<'_>,
        head: &[u8],
    ) -> Option<Poll<io::Result<usize>>> {
        if self.replacing.is_none() {
            // While the application answers, every write is its own.
            let phase = self.activity.phase();
            if phase == Phase::Busy {
                return None;
            }
            // The request start is only known while its head is still the one arriving.
            let start = matches!(phase, Phase::Head(_)).then(|| &self.start[..self.start_len]);
            let answer = answers::replace_automatic(head, start)?;
            self.replacing = Some((answer, 0, head.len()));
        }
        let (answer, sent, stands_for) = self.replacing.as_mut().expect("set above");
        while *sent < answer.len() {
            match Pin::new(&mut self.stream).poll_write(cx, &answer[*sent..]) {
                Poll::Ready(Ok(0)) => {
                    return Some(Poll::Ready(Err(io::ErrorKind::WriteZero.into())));
                }
                Poll::Ready(Ok(n)) => *sent += n,
                Poll::Ready(Err(e)) => return Some(Poll::Ready(Err(e))),
                Poll::Pending => return Some(Poll::Pending),
            }
        }
        let n = *stands_for;
        self.replacing = None;
        Some(Poll::Ready(Ok(n)))
    }
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
            let this = &mut *self;
            if this.activity.bytes_arrived() {
                this.start_len = 0;
            }
            if this.start_len < START_KEPT {
                let new = &buf.filled()[before..];
                let n = new.len().min(START_KEPT - this.start_len);
                this.start[this.start_len..this.start_len + n].copy_from_slice(&new[..n]);
                this.start_len += n;
            }
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
        if let Some(done) = self.poll_write_head(cx, buf) {
            return done;
        }
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
        // hyper's refusal is one head and no body, so it is the only slice.
        if let [head] = bufs
            && let Some(done) = self.poll_write_head(cx, head)
        {
            return done;
        }
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}
