//! The drain after SIGTERM (or Ctrl-C): every request the daemon has read, or started
//! to read, before the signal is answered; then its connection closes.
//!
//! - A connection answering a request finishes that answer, with `Connection: close`.
//! - A connection whose next request has started to arrive (bytes read by hyper, or
//!   waiting in the socket) reads it, answers it and closes. hyper's own graceful
//!   shutdown would close it at once, as it counts a connection idle until a whole head
//!   is in: this was the race in which requests sent just before the signal got no answer.
//! - A connection with nothing under way and nothing waiting closes at once.
//! - Connections the kernel has completed but the daemon not yet taken (the listen
//!   backlog) were opened before the signal too: they are taken and served by the same
//!   rules before the listening socket closes. Connections opened after that are refused.
//!
//! The whole drain lasts at most [`DRAIN_LIMIT`]; a client still sending a head then is
//! cut off, as `--header-timeout` would have done.

use std::os::fd::RawFd;
use std::time::Duration;

use super::activity::{Activity, Phase};

/// Longest drain; past it the daemon stops with whatever is still open.
pub(super) const DRAIN_LIMIT: Duration = Duration::from_secs(10);

/// How often a draining connection with a request still arriving looks again whether it
/// may close. Only draining connections look, so it costs nothing the rest of the time.
pub(super) const LOOK_EVERY: Duration = Duration::from_millis(5);

/// Whether a draining connection may be told to close: hyper then finishes the answer
/// under way, if any, and closes. `fd` is the connection's socket.
pub(super) fn may_close(activity: &Activity, fd: RawFd) -> bool {
    match activity.phase() {
        // The request's head is in: hyper answers it before closing.
        Phase::Busy => true,
        // A head is arriving; it closes once the head is in and the request answered.
        Phase::Head(_) => false,
        Phase::Idle(_) => !bytes_waiting(fd),
    }
}

/// Whether the client has sent bytes the daemon has not read yet.
fn bytes_waiting(fd: RawFd) -> bool {
    let mut byte = 0u8;
    // SAFETY: recv writes at most one byte into `byte`; MSG_PEEK leaves the data in the
    // socket for hyper, MSG_DONTWAIT keeps it from blocking. `fd` is open: the caller
    // owns the connection that holds it.
    let n = unsafe {
        libc::recv(
            fd,
            (&raw mut byte).cast(),
            1,
            libc::MSG_PEEK | libc::MSG_DONTWAIT,
        )
    };
    n > 0
}
