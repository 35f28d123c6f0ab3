//! Passwords: the strength rule (docs/product.md §9: at least 6 characters) and argon2id
//! hashing on a bounded pool.
//!
//! Each argon2id hash or check holds 19 MiB (argon2's default memory cost) on a
//! blocking thread for tens of milliseconds. Unbounded, a crowd of sign-ins multiplies
//! that until the machine runs out of memory, so the routes go through [`PasswordPool`]:
//! at most `--hash-concurrency` run at once (default: one per core), at most
//! `--hash-queue` more wait, each no longer than `--hash-wait`; past either, the request
//! is answered 503 with Retry-After instead of queueing memory. Peak memory for hashing
//! is thus `--hash-concurrency` × 19 MiB, whatever the number of clients. Freed hashing
//! memory goes back to the system at once (see [`crate::memory`]).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use argon2::Argon2;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use axum::http::StatusCode;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::error::{AuthError, AuthResult};

/// How many password hashes may run and wait.
#[derive(Debug, Clone, clap::Args)]
pub struct PasswordConfig {
    /// Password hashes computed at once (each holds 19 MiB while it runs); 0 means one
    /// per CPU core.
    #[arg(long, env = "RADAR_HASH_CONCURRENCY", default_value_t = 0)]
    pub hash_concurrency: usize,

    /// Sign-ins that may wait for a hashing slot; more are answered 503 at once.
    #[arg(long, env = "RADAR_HASH_QUEUE", default_value_t = 64)]
    pub hash_queue: usize,

    /// Longest wait for a hashing slot before a 503 answer (e.g. `5s`).
    #[arg(long, env = "RADAR_HASH_WAIT", default_value = "5s", value_parser = crate::config::parse_duration)]
    pub hash_wait: Duration,
}

/// The bounded pool the auth routes hash and check passwords on.
#[derive(Debug)]
pub struct PasswordPool {
    slots: Arc<Semaphore>,
    size: usize,
    waiting: AtomicUsize,
    queue: usize,
    wait: Duration,
}

impl PasswordPool {
    /// A pool sized by the settings.
    pub fn new(config: &PasswordConfig) -> Self {
        let size = match config.hash_concurrency {
            0 => std::thread::available_parallelism().map_or(2, std::num::NonZero::get),
            n => n,
        };
        Self {
            slots: Arc::new(Semaphore::new(size)),
            size,
            waiting: AtomicUsize::new(0),
            queue: config.hash_queue,
            wait: config.hash_wait,
        }
    }

    /// Hashes run at once, at most.
    pub fn size(&self) -> usize {
        self.size
    }

    /// An argon2id PHC string for a password.
    pub async fn hash(&self, password: String) -> AuthResult<String> {
        self.run(move || hash_now(&password)).await?
    }

    /// Whether `password` matches `stored`; with no stored hash, spends the same time and
    /// answers false.
    pub async fn verify(&self, password: String, stored: Option<String>) -> AuthResult<bool> {
        self.run(move || verify_now(&password, stored)).await
    }

    /// Runs `work` on the blocking pool once a slot is free; the slot is held until the
    /// work ends, even if the client has gone.
    async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> AuthResult<T> {
        let slot = self.admit().await?;
        let slots = self.slots.clone();
        let size = self.size;
        tokio::task::spawn_blocking(move || {
            let out = work();
            drop(slot);
            if slots.available_permits() == size {
                // The burst is over: hand the freed memory back to the system.
                crate::memory::release_free_memory();
            }
            out
        })
        .await
        .map_err(AuthError::internal)
    }

    async fn admit(&self) -> AuthResult<OwnedSemaphorePermit> {
        if let Ok(slot) = self.slots.clone().try_acquire_owned() {
            return Ok(slot);
        }
        let queued = Queued::join(&self.waiting);
        if queued.ahead >= self.queue {
            return Err(busy(1));
        }
        match tokio::time::timeout(self.wait, self.slots.clone().acquire_owned()).await {
            Ok(Ok(slot)) => Ok(slot),
            _ => Err(busy(self.wait.as_secs().max(1))),
        }
    }
}

/// A place in the queue, given back when the wait ends either way.
struct Queued<'a> {
    waiting: &'a AtomicUsize,
    ahead: usize,
}

impl<'a> Queued<'a> {
    fn join(waiting: &'a AtomicUsize) -> Self {
        let ahead = waiting.fetch_add(1, Ordering::SeqCst);
        Self { waiting, ahead }
    }
}

impl Drop for Queued<'_> {
    fn drop(&mut self) {
        self.waiting.fetch_sub(1, Ordering::SeqCst);
    }
}

/// 503 with Retry-After: every hashing slot and queue place is taken.
fn busy(retry_after: u64) -> AuthError {
    tracing::warn!("password hashing is at capacity; answering 503");
    let mut e = AuthError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "over_capacity",
        format!("Too many sign-ins at once. Please try again in {retry_after} seconds."),
    );
    e.inner.retry_after = Some(retry_after);
    e
}

/// The shortest password accepted, in characters.
pub(crate) const MIN_LENGTH: usize = 6;

/// The longest new password, in bytes: GoTrue's `MaxPasswordLength` (bcrypt's limit,
/// which GoTrue keeps for every store). It applies to new passwords only, so accounts
/// whose password is longer keep signing in.
pub(crate) const MAX_NEW_PASSWORD_BYTES: usize = 72;

/// Refuses new passwords that break the rule: too short in the protocol's
/// `weak_password` form; over [`MAX_NEW_PASSWORD_BYTES`] 400 `validation_failed`, as
/// GoTrue's password.go.
pub(crate) fn check_strength(password: &str) -> AuthResult<()> {
    if password.len() > MAX_NEW_PASSWORD_BYTES {
        return Err(AuthError::bad_request(
            "validation_failed",
            format!("Password cannot be longer than {MAX_NEW_PASSWORD_BYTES} characters"),
        ));
    }
    let n = password.chars().count();
    if n < MIN_LENGTH {
        return Err(AuthError::weak_password(
            format!("Password should be at least {MIN_LENGTH} characters."),
            &["length"],
        ));
    }
    Ok(())
}

/// An argon2id PHC string for a password, on the blocking pool without a bound: for
/// the admin commands, which the operator runs one at a time.
pub(crate) async fn hash(password: String) -> AuthResult<String> {
    tokio::task::spawn_blocking(move || hash_now(&password))
        .await
        .map_err(AuthError::internal)?
}

fn hash_now(password: &str) -> AuthResult<String> {
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|h| h.to_string())
        .map_err(AuthError::internal)
}

/// A hash of nothing in particular, verified when the e-mail is unknown so that an
/// unknown address takes as long as a wrong password.
static DECOY: LazyLock<String> = LazyLock::new(|| {
    Argon2::default()
        .hash_password(b"radar decoy password")
        .expect("argon2 hashes with default parameters")
        .to_string()
});

fn verify_now(password: &str, stored: Option<String>) -> bool {
    let known = stored.is_some();
    let hash = stored.unwrap_or_else(|| DECOY.clone());
    let ok = Argon2::default()
        .verify_password(password.as_bytes(), hash.as_str())
        .is_ok();
    ok && known
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(concurrency: usize, queue: usize, wait_ms: u64) -> PasswordPool {
        PasswordPool::new(&PasswordConfig {
            hash_concurrency: concurrency,
            hash_queue: queue,
            hash_wait: Duration::from_millis(wait_ms),
        })
    }

    #[tokio::test]
    async fn hashes_are_argon2id_and_verify() {
        let p = pool(1, 4, 5_000);
        let h = p.hash("correct horse".into()).await.unwrap();
        assert!(h.starts_with("$argon2id$"));
        assert!(
            p.verify("correct horse".into(), Some(h.clone()))
                .await
                .unwrap()
        );
        assert!(!p.verify("wrong horse".into(), Some(h)).await.unwrap());
        assert!(!p.verify("radar decoy password".into(), None).await.unwrap());
        assert!(hash("x".repeat(8)).await.unwrap().starts_with("$argon2id$"));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn past_the_slots_and_the_queue_the_answer_is_503_with_retry_after() {
        let p = Arc::new(pool(1, 1, 60_000));
        // One runs, one waits, and the rest are refused at once.
        let tries: Vec<_> = (0..6)
            .map(|_| {
                let p = p.clone();
                tokio::spawn(async move { p.hash("password".into()).await })
            })
            .collect();
        let mut ok = 0;
        let mut busy = 0;
        for t in tries {
            match t.await.unwrap() {
                Ok(_) => ok += 1,
                Err(e) => {
                    assert_eq!(e.inner.status, StatusCode::SERVICE_UNAVAILABLE);
                    assert_eq!(e.inner.retry_after, Some(1));
                    busy += 1;
                }
            }
        }
        assert!(ok >= 2 && busy >= 1, "{ok} hashed, {busy} refused");
    }

    #[tokio::test]
    async fn a_wait_past_the_deadline_is_refused() {
        let p = pool(1, 8, 1);
        let slot = p.admit().await.unwrap();
        let e = p.hash("password".into()).await.unwrap_err();
        assert_eq!(e.inner.status, StatusCode::SERVICE_UNAVAILABLE);
        drop(slot);
        assert!(p.hash("password".into()).await.is_ok());
    }

    #[test]
    fn strength_counts_characters() {
        assert!(check_strength("12345").is_err());
        assert!(check_strength("éééééé").is_ok());
        assert!(check_strength(&"é".repeat(36)).is_ok());
        assert_eq!(
            check_strength(&"é".repeat(37)).unwrap_err().inner.code,
            "validation_failed",
            "72 bytes, not characters"
        );
        assert_eq!(
            check_strength("abc").unwrap_err().weak_password,
            Some(vec!["length".to_string()])
        );
    }
}
