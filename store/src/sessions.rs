//! Sign-in sessions and their refresh tokens. An access token names its session; ending
//! the session (sign-out, password change, refresh-token reuse) makes every access and
//! refresh token of it invalid at once.
//!
//! Refresh tokens rotate: each is spent by one refresh, which hands out the next. The
//! store keeps only their SHA-256 ([`keys::secret`]), so a copy of the database cannot
//! resume anyone's session. A spent token presented again is answered as GoTrue answers
//! it (`internal/api/token_refresh.go`):
//! - if it is the parent of the session's active token (a client that lost the answer to
//!   its refresh, or two tabs refreshing at once), it gets that active token back, at any
//!   time, and no new token is made;
//! - otherwise, within the reuse interval, it gets a new token of the same session;
//! - otherwise it is taken as stolen and the whole session ends (reuse detection).
//!
//! To send the active token again without storing it, a spent token's record keeps its
//! child sealed with a key derived from the spent token itself ([`seal_child`]): whoever
//! presents the spent token can open it, a copy of the database alone cannot.

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use crate::secrets::secret_hash;
use crate::{Result, Store, User};

/// A signed-in session of one user on one device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    /// UUID, carried in the access token's `session_id` claim.
    pub id: String,
    /// Whose session.
    pub user_id: String,
    /// When it began.
    pub created_at: DateTime<Utc>,
    /// How it was authenticated: `password`, or `otp` for an e-mailed link.
    #[serde(default = "password_method")]
    pub method: String,
    /// The last refresh, if any.
    #[serde(default)]
    pub refreshed_at: Option<DateTime<Utc>>,
}

/// A session keeps every spent refresh token (for reuse detection) until it has more
/// than this many records...
const KEEP_TOKENS: usize = 32;
/// ...and then forgets those spent longer ago than this.
const KEEP_SPENT: Duration = Duration::days(1);

fn password_method() -> String {
    "password".into()
}

/// A refresh token as stored under its hash.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RefreshRecord {
    /// The session it belongs to.
    pub session_id: String,
    /// When it was issued.
    pub created_at: DateTime<Utc>,
    /// When it was first spent; spent tokens stay for reuse detection until their
    /// session ends.
    #[serde(default)]
    pub used_at: Option<DateTime<Utc>>,
    /// The token its refresh handed out, sealed with this token (see [`seal_child`]).
    #[serde(default)]
    pub child: Option<String>,
}

/// What the refresh rule decides from: the token presented, its session with every
/// token of it, and the account (see [`crate::backend::SessionStore::refresh`]).
#[derive(Debug, Clone)]
pub struct RefreshView {
    /// The presented token's record.
    pub presented: RefreshRecord,
    /// Its session.
    pub session: Session,
    /// The session's account.
    pub user: User,
    /// Every token of the session, by hash (the presented one among them).
    pub tokens: Vec<([u8; 32], RefreshRecord)>,
}

/// What the refresh rule answers: the outcome, and the writes that make it so, which
/// the backend applies in the step in which it read the view.
#[derive(Debug, Clone, Default)]
pub struct RefreshPlan {
    /// What the caller gets.
    pub outcome: RefreshOutcome,
    /// Token records to write (new or changed), by hash.
    pub put: Vec<([u8; 32], RefreshRecord)>,
    /// Token records to delete, by hash.
    pub remove: Vec<[u8; 32]>,
    /// The session record to write back (its refresh time).
    pub session: Option<Session>,
    /// End the session with every token of it.
    pub end_session: bool,
}

/// The outcome of a refresh, before it becomes a [`Refresh`].
#[derive(Debug, Clone, Default)]
pub enum RefreshOutcome {
    /// The session, its account, and the refresh token to hand out.
    Rotated(Box<(Session, User, String)>),
    /// Unknown token, or its session has ended.
    #[default]
    NotFound,
    /// A spent token presented again outside the grace window: the session ends.
    AlreadyUsed,
}

/// The pad that seals a token's child: SHA-256 of a label and the parent token, so only
/// a holder of the parent can open it.
fn child_pad(parent: &str) -> [u8; 32] {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    h.update(b"radar refresh child\0");
    h.update(parent.as_bytes());
    h.finalize().into()
}

/// Seals `child` (a token from [`new_secret`]) so that only `parent` opens it.
fn seal_child(parent: &str, child: &str) -> Option<String> {
    use base64::Engine;
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let raw: [u8; 32] = b64.decode(child).ok()?.try_into().ok()?;
    let pad = child_pad(parent);
    Some(b64.encode(std::array::from_fn::<u8, 32, _>(|i| raw[i] ^ pad[i])))
}

/// Opens what [`seal_child`] sealed, with the parent token (the pad undoes itself).
fn open_child(parent: &str, sealed: &str) -> Option<String> {
    seal_child(parent, sealed)
}

/// A session with a new refresh token, which exists only here (the store keeps its hash).
#[derive(Debug, Clone)]
pub struct SessionGrant {
    /// The session.
    pub session: Session,
    /// The user, as of the grant.
    pub user: User,
    /// The refresh token to hand to the client.
    pub refresh_token: String,
}

/// What presenting a refresh token gave.
#[derive(Debug, Clone)]
pub enum Refresh {
    /// The token was spent and a new one issued.
    Rotated(Box<SessionGrant>),
    /// Unknown token, or its session has ended.
    NotFound,
    /// The token was spent before, outside the grace window: its session is now ended.
    AlreadyUsed,
}

/// Which sessions a sign-out ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogoutScope {
    /// Only the caller's session.
    Local,
    /// Every session of the user.
    Global,
    /// Every session of the user except the caller's.
    Others,
}

/// A new random secret token: 32 bytes, base64url without padding.
/// Whether `token` has the form of the tokens [`new_secret`] makes (43 base64url
/// characters): anything else cannot be a refresh token, which GoTrue answers 400
/// `validation_failed` rather than "not found".
pub fn is_well_formed_secret(token: &str) -> bool {
    token.len() == 43
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'))
}

pub(crate) fn new_secret() -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(rand::random::<[u8; 32]>())
}

/// The refresh rule (see the module doc): given what the backend read for the token
/// `token` (hash `hash`) presented at `now`, what to answer and write. `next` is the
/// token a rotation hands out.
fn refresh_rule(
    token: &str,
    hash: [u8; 32],
    next: &str,
    grace: Duration,
    now: DateTime<Utc>,
    view: Option<RefreshView>,
) -> RefreshPlan {
    let Some(view) = view else {
        // Unknown, or its session has ended: a token left of an ended session goes too.
        return RefreshPlan {
            remove: vec![hash],
            ..RefreshPlan::default()
        };
    };
    let RefreshView {
        mut presented,
        mut session,
        user,
        tokens,
    } = view;
    if let Some(used) = presented.used_at {
        if let Some(active) = presented
            .child
            .as_deref()
            .and_then(|sealed| open_child(token, sealed))
        {
            let child = secret_hash(&active);
            let live = tokens
                .iter()
                .any(|(h, r)| *h == child && r.used_at.is_none() && r.session_id == session.id);
            if live {
                session.refreshed_at = Some(now);
                return RefreshPlan {
                    outcome: RefreshOutcome::Rotated(Box::new((session.clone(), user, active))),
                    session: Some(session),
                    ..RefreshPlan::default()
                };
            }
        }
        if now - used > grace {
            return RefreshPlan {
                outcome: RefreshOutcome::AlreadyUsed,
                end_session: true,
                ..RefreshPlan::default()
            };
        }
    } else {
        presented.used_at = Some(now);
    }
    // The new token becomes this one's child: the one it gets back if it is presented
    // again while that child is active.
    presented.child = seal_child(token, next);
    // A long-lived session forgets the tokens spent long ago, so its records stay
    // bounded. (Presenting one later is then refused as unknown rather than as reuse.)
    let remove = if tokens.len() > KEEP_TOKENS {
        tokens
            .iter()
            .filter(|(h, r)| *h != hash && r.used_at.is_some_and(|used| now - used > KEEP_SPENT))
            .map(|(h, _)| *h)
            .collect()
    } else {
        Vec::new()
    };
    let fresh = RefreshRecord {
        session_id: session.id.clone(),
        created_at: now,
        used_at: None,
        child: None,
    };
    session.refreshed_at = Some(now);
    RefreshPlan {
        outcome: RefreshOutcome::Rotated(Box::new((session.clone(), user, next.to_string()))),
        put: vec![(hash, presented), (secret_hash(next), fresh)],
        remove,
        session: Some(session),
        end_session: false,
    }
}

impl Store {
    /// Starts a session with its first refresh token and records the sign-in time, in
    /// one atomic step. `method` is `password` or `otp`.
    pub async fn sign_in(&self, user_id: &str, method: &str) -> Result<SessionGrant> {
        let now = Utc::now();
        let session = Session {
            id: uuid::Uuid::new_v4().to_string(),
            user_id: user_id.to_string(),
            created_at: now,
            method: method.to_string(),
            refreshed_at: None,
        };
        let token = new_secret();
        let record = RefreshRecord {
            session_id: session.id.clone(),
            created_at: now,
            used_at: None,
            child: None,
        };
        let user = self
            .backend()
            .start_session(&session, &secret_hash(&token), &record, &mut |u| {
                u.last_sign_in_at = Some(now);
                Ok(())
            })
            .await?;
        Ok(SessionGrant {
            session,
            user,
            refresh_token: token,
        })
    }

    /// Spends a refresh token and issues the next one (see the module doc for the grace
    /// window and reuse detection).
    pub async fn refresh_session(&self, token: &str, grace: Duration) -> Result<Refresh> {
        let hash = secret_hash(token);
        let next = new_secret();
        let now = Utc::now();
        let plan = self
            .backend()
            .refresh(&hash, &mut |view| {
                refresh_rule(token, hash, &next, grace, now, view)
            })
            .await?;
        Ok(match plan.outcome {
            RefreshOutcome::Rotated(b) => {
                let (session, user, refresh_token) = *b;
                Refresh::Rotated(Box::new(SessionGrant {
                    session,
                    user,
                    refresh_token,
                }))
            }
            RefreshOutcome::NotFound => Refresh::NotFound,
            RefreshOutcome::AlreadyUsed => {
                tracing::warn!("a spent refresh token was presented again; its session ended");
                Refresh::AlreadyUsed
            }
        })
    }

    /// A live session by id; none once ended.
    pub async fn session(&self, id: &str) -> Result<Option<Session>> {
        Ok(self.session_shared(id).await?.map(Arc::unwrap_or_clone))
    }

    /// One session by id, shared: what a request's sign-in check reads.
    pub async fn session_shared(&self, id: &str) -> Result<Option<Arc<Session>>> {
        self.backend().session(id).await
    }

    /// A session with its account, in one lookup of the backend: what a signed-in
    /// request checks its token against. None when either is gone.
    pub async fn session_and_user(&self, id: &str) -> Result<Option<(Arc<Session>, Arc<User>)>> {
        self.backend().session_and_user(id).await
    }

    /// Ends one session and every refresh token of it.
    pub async fn revoke_session(&self, id: &str) -> Result<()> {
        self.backend()
            .end_sessions(&[id.to_string()])
            .await
            .map(drop)
    }

    /// Signs out: ends the sessions `scope` names, relative to the caller's `current`
    /// session. Answers how many sessions ended.
    pub async fn sign_out(
        &self,
        user_id: &str,
        current: &str,
        scope: LogoutScope,
    ) -> Result<usize> {
        let ids: Vec<String> = match scope {
            LogoutScope::Local => vec![current.to_string()],
            LogoutScope::Global => self.user_session_ids(user_id).await?,
            LogoutScope::Others => self
                .user_session_ids(user_id)
                .await?
                .into_iter()
                .filter(|id| id != current)
                .collect(),
        };
        let mut mine = Vec::with_capacity(ids.len());
        for id in ids {
            if self
                .session_shared(&id)
                .await?
                .is_some_and(|s| s.user_id == user_id)
            {
                mine.push(id);
            }
        }
        self.backend().end_sessions(&mine).await
    }

    /// The ids of a user's live sessions.
    pub async fn user_session_ids(&self, user_id: &str) -> Result<Vec<String>> {
        self.backend().user_sessions(user_id).await
    }

    /// Sets a new password hash and ends every other session of the user (all of them
    /// when `keep` is none), in one atomic step.
    pub async fn change_password(
        &self,
        user_id: &str,
        password_hash: String,
        keep: Option<&str>,
    ) -> Result<User> {
        self.backend()
            .update_user_ending_sessions(user_id, keep, &mut |u| {
                u.password_hash.clone_from(&password_hash);
                u.updated_at = Utc::now();
                Ok(())
            })
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::store_tests;

    async fn user(store: &Store) -> User {
        store
            .create_user("s@example.com", "h".into(), Default::default(), true)
            .await
            .unwrap()
    }

    async fn rotate(store: &Store, token: &str, grace: Duration) -> Option<SessionGrant> {
        match store.refresh_session(token, grace).await.unwrap() {
            Refresh::Rotated(g) => Some(*g),
            _ => None,
        }
    }

    /// Presents a spent token again once the (zero) reuse interval is over: whether it is
    /// refused as reused.
    async fn refused_later(store: &Store, token: &str) -> bool {
        std::thread::sleep(std::time::Duration::from_millis(5));
        matches!(
            store
                .refresh_session(token, Duration::zero())
                .await
                .unwrap(),
            Refresh::AlreadyUsed
        )
    }

    store_tests! {
        async fn refresh_tokens_rotate_and_an_older_spent_one_ends_the_session(store) {
            let u = user(&store).await;
            let first = store.sign_in(&u.id, "password").await.unwrap();
            assert!(
                store
                    .user(&u.id)
                    .await
                    .unwrap()
                    .unwrap()
                    .last_sign_in_at
                    .is_some()
            );
            let second = rotate(&store, &first.refresh_token, Duration::zero())
                .await
                .unwrap();
            assert_eq!(second.session.id, first.session.id);
            assert_ne!(second.refresh_token, first.refresh_token);
            let third = rotate(&store, &second.refresh_token, Duration::zero())
                .await
                .unwrap();
            // Spent, not the parent of the active token, past the (zero) interval: reuse
            // ends the session.
            assert!(refused_later(&store, &first.refresh_token).await);
            assert!(store.session(&first.session.id).await.unwrap().is_none());
            assert!(matches!(
                store
                    .refresh_session(&third.refresh_token, Duration::zero())
                    .await
                    .unwrap(),
                Refresh::NotFound
            ));
            assert!(matches!(
                store
                    .refresh_session("nonsense", Duration::zero())
                    .await
                    .unwrap(),
                Refresh::NotFound
            ));
        }

        async fn the_parent_of_the_active_token_gets_that_token_back_at_any_time(store) {
            let u = user(&store).await;
            let first = store.sign_in(&u.id, "password").await.unwrap();
            let active = rotate(&store, &first.refresh_token, Duration::zero())
                .await
                .unwrap();
            std::thread::sleep(std::time::Duration::from_millis(5));
            // The client lost the answer and asks again with the spent token, past the interval.
            let again = rotate(&store, &first.refresh_token, Duration::zero())
                .await
                .unwrap();
            assert_eq!(again.refresh_token, active.refresh_token);
            assert_eq!(again.session.id, first.session.id);
            // The active token still works once, and then the first is only a grandparent.
            let next = rotate(&store, &active.refresh_token, Duration::zero())
                .await
                .unwrap();
            assert_ne!(next.refresh_token, active.refresh_token);
            assert!(refused_later(&store, &first.refresh_token).await);
        }

        async fn within_the_interval_an_older_spent_token_gets_a_new_token_of_the_session(store) {
            let u = user(&store).await;
            let interval = Duration::seconds(10);
            let first = store.sign_in(&u.id, "password").await.unwrap();
            let a = rotate(&store, &first.refresh_token, interval)
                .await
                .unwrap();
            let b = rotate(&store, &a.refresh_token, interval).await.unwrap();
            // `a` is the parent of the active `b`: it gets `b` back.
            assert_eq!(
                rotate(&store, &a.refresh_token, interval)
                    .await
                    .unwrap()
                    .refresh_token,
                b.refresh_token
            );
            // `first` is not: within the interval it gets a new token of the same session...
            let c = rotate(&store, &first.refresh_token, interval)
                .await
                .unwrap();
            assert_eq!(c.session.id, first.session.id);
            assert!(
                ![&first, &a, &b]
                    .iter()
                    .any(|g| g.refresh_token == c.refresh_token)
            );
            // ...which becomes its child, and both branches work.
            assert_eq!(
                rotate(&store, &first.refresh_token, interval)
                    .await
                    .unwrap()
                    .refresh_token,
                c.refresh_token
            );
            assert!(rotate(&store, &b.refresh_token, interval).await.is_some());
            assert!(rotate(&store, &c.refresh_token, interval).await.is_some());
        }
    }

    #[test]
    fn a_sealed_child_opens_only_with_its_parent() {
        let (parent, child) = (new_secret(), new_secret());
        let sealed = seal_child(&parent, &child).unwrap();
        assert_ne!(sealed, child);
        assert_eq!(
            open_child(&parent, &sealed).as_deref(),
            Some(child.as_str())
        );
        assert_ne!(
            open_child(&new_secret(), &sealed).as_deref(),
            Some(child.as_str())
        );
        assert_eq!(open_child(&parent, "not base64!"), None);
    }

    store_tests! {
        async fn long_lived_sessions_forget_tokens_spent_long_ago(store) {
            let u = user(&store).await;
            let mut grant = store.sign_in(&u.id, "password").await.unwrap();
            let first = grant.refresh_token.clone();
            for _ in 0..KEEP_TOKENS + 2 {
                grant = rotate(&store, &grant.refresh_token, Duration::zero())
                    .await
                    .unwrap();
            }
            let session_id = grant.session.id.clone();
            // The session's tokens, as the refresh rule sees them (a rule that changes
            // nothing).
            let count = async |token: &str| {
                let mut n = 0;
                store
                    .backend()
                    .refresh(&secret_hash(token), &mut |view| {
                        let view = view.expect("a token of a live session");
                        assert_eq!(view.session.id, session_id);
                        n = view.tokens.len();
                        RefreshPlan::default()
                    })
                    .await
                    .unwrap();
                n
            };
            assert_eq!(
                count(&grant.refresh_token).await,
                KEEP_TOKENS + 3,
                "recently spent tokens are kept"
            );
            // Make the first token look spent two days ago.
            let hash = secret_hash(&first);
            store
                .backend()
                .refresh(&hash, &mut |view| {
                    let mut record = view.expect("a token of a live session").presented;
                    record.used_at = Some(Utc::now() - Duration::days(2));
                    RefreshPlan {
                        put: vec![(hash, record)],
                        ..RefreshPlan::default()
                    }
                })
                .await
                .unwrap();
            grant = rotate(&store, &grant.refresh_token, Duration::zero())
                .await
                .unwrap();
            assert_eq!(
                count(&grant.refresh_token).await,
                KEEP_TOKENS + 3,
                "one forgotten, one added"
            );
            assert!(matches!(
                store
                    .refresh_session(&first, Duration::zero())
                    .await
                    .unwrap(),
                Refresh::NotFound
            ));
            assert!(store.session(&grant.session.id).await.unwrap().is_some());
        }

        async fn sign_out_scopes_and_password_change(store) {
            let u = user(&store).await;
            let mut s = Vec::new();
            for _ in 0..4 {
                s.push(store.sign_in(&u.id, "password").await.unwrap());
            }
            assert_eq!(
                store
                    .sign_out(&u.id, &s[0].session.id, LogoutScope::Local)
                    .await
                    .unwrap(),
                1
            );
            assert!(matches!(
                store
                    .refresh_session(&s[0].refresh_token, Duration::zero())
                    .await
                    .unwrap(),
                Refresh::NotFound
            ));
            assert_eq!(
                store
                    .sign_out(&u.id, &s[1].session.id, LogoutScope::Others)
                    .await
                    .unwrap(),
                2
            );
            assert_eq!(
                store.user_session_ids(&u.id).await.unwrap(),
                vec![s[1].session.id.clone()]
            );
            let more = store.sign_in(&u.id, "password").await.unwrap();
            let changed = store
                .change_password(&u.id, "new".into(), Some(&more.session.id))
                .await
                .unwrap();
            assert_eq!(changed.password_hash, "new");
            assert_eq!(
                store.user_session_ids(&u.id).await.unwrap(),
                vec![more.session.id.clone()]
            );
            assert_eq!(
                store
                    .sign_out(&u.id, &more.session.id, LogoutScope::Global)
                    .await
                    .unwrap(),
                1
            );
            assert!(store.user_session_ids(&u.id).await.unwrap().is_empty());
        }
    }
}
