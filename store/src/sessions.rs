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
use sled::Transactional;
use sled::transaction::{ConflictableTransactionError, TransactionalTree};

use crate::{Error, Result, Store, User, from_json, keys, to_json};

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

/// Removes, inside a transaction, a session with its index entry and the refresh
/// tokens listed (collected before the transaction, since sled cannot scan in one).
fn remove_session_tx(
    sessions: &TransactionalTree,
    userid_sessions: &TransactionalTree,
    refresh: &TransactionalTree,
    sessionid_refresh: &TransactionalTree,
    session: &Session,
    token_keys: &[Vec<u8>],
) -> std::result::Result<(), ConflictableTransactionError<Error>> {
    sessions.remove(session.id.as_bytes())?;
    userid_sessions.remove(keys::join(
        session.user_id.as_bytes(),
        session.id.as_bytes(),
    ))?;
    for k in token_keys {
        sessionid_refresh.remove(k.as_slice())?;
        if let Some(hash) = k.get(k.len().saturating_sub(32)..) {
            refresh.remove(hash)?;
        }
    }
    Ok(())
}

impl Store {
    /// Starts a session for a user, without a refresh token (tests and tools).
    pub fn create_session(&self, user_id: &str) -> Result<Session> {
        Ok(self.sign_in(user_id, "password")?.session)
    }

    /// Starts a session with its first refresh token and records the sign-in time, all
    /// in one transaction. `method` is `password` or `otp`.
    pub fn sign_in(&self, user_id: &str, method: &str) -> Result<SessionGrant> {
        self.writable()?;
        let now = Utc::now();
        let session = Session {
            id: uuid::Uuid::new_v4().to_string(),
            user_id: user_id.to_string(),
            created_at: now,
            method: method.to_string(),
            refreshed_at: None,
        };
        let token = new_secret();
        let hash = keys::secret(&token);
        let record = RefreshRecord {
            session_id: session.id.clone(),
            created_at: now,
            used_at: None,
            child: None,
        };
        let t = &self.t;
        let user = (
            &t.users,
            &t.sessions,
            &t.userid_sessions,
            &t.refresh_tokens,
            &t.sessionid_refresh,
        )
            .transaction(
                |(users, sessions, userid_sessions, refresh, sessionid_refresh)| {
                    let Some(raw) = users.get(user_id.as_bytes())? else {
                        return Err(Error::NotFound("user").into());
                    };
                    let mut user: User = from_json(&raw)?;
                    user.last_sign_in_at = Some(now);
                    users.insert(user_id.as_bytes(), to_json(&user))?;
                    sessions.insert(session.id.as_bytes(), to_json(&session))?;
                    userid_sessions
                        .insert(keys::join(user_id.as_bytes(), session.id.as_bytes()), &[])?;
                    refresh.insert(&hash, to_json(&record))?;
                    sessionid_refresh.insert(keys::join(session.id.as_bytes(), &hash), &[])?;
                    Ok(user)
                },
            )?;
        self.flush()?;
        Ok(SessionGrant {
            session,
            user,
            refresh_token: token,
        })
    }

    /// Spends a refresh token and issues the next one (see the module doc for the grace
    /// window and reuse detection).
    pub fn refresh_session(&self, token: &str, grace: Duration) -> Result<Refresh> {
        self.writable()?;
        let hash = keys::secret(token);
        let Some(raw) = self.t.refresh_tokens.get(hash)? else {
            return Ok(Refresh::NotFound);
        };
        let found: RefreshRecord = from_json(&raw)?;
        let token_keys = self.session_token_keys(&found.session_id)?;
        let next = new_secret();
        let next_hash = keys::secret(&next);
        let now = Utc::now();
        let stale = self.stale_token_keys(&token_keys, now)?;
        enum Outcome {
            /// The session, the user and the refresh token to answer.
            Rotated(Box<(Session, User, String)>),
            NotFound,
            AlreadyUsed,
        }
        let t = &self.t;
        let outcome = (
            &t.users,
            &t.sessions,
            &t.userid_sessions,
            &t.refresh_tokens,
            &t.sessionid_refresh,
        )
            .transaction(
                |(users, sessions, userid_sessions, refresh, sessionid_refresh)| {
                    let Some(raw) = refresh.get(hash)? else {
                        return Ok(Outcome::NotFound);
                    };
                    let mut record: RefreshRecord = from_json(&raw)?;
                    let Some(raw) = sessions.get(record.session_id.as_bytes())? else {
                        refresh.remove(&hash)?;
                        return Ok(Outcome::NotFound);
                    };
                    let mut session: Session = from_json(&raw)?;
                    let Some(raw) = users.get(session.user_id.as_bytes())? else {
                        return Ok(Outcome::NotFound);
                    };
                    let user: User = from_json(&raw)?;
                    if let Some(used) = record.used_at {
                        if let Some(active) = record
                            .child
                            .as_deref()
                            .and_then(|sealed| open_child(token, sealed))
                        {
                            let live = match refresh.get(keys::secret(&active))? {
                                Some(raw) => {
                                    let child: RefreshRecord = from_json(&raw)?;
                                    child.used_at.is_none() && child.session_id == session.id
                                }
                                None => false,
                            };
                            if live {
                                session.refreshed_at = Some(now);
                                sessions.insert(session.id.as_bytes(), to_json(&session))?;
                                return Ok(Outcome::Rotated(Box::new((session, user, active))));
                            }
                        }
                        if now - used > grace {
                            remove_session_tx(
                                sessions,
                                userid_sessions,
                                refresh,
                                sessionid_refresh,
                                &session,
                                &token_keys,
                            )?;
                            return Ok(Outcome::AlreadyUsed);
                        }
                    } else {
                        record.used_at = Some(now);
                    }
                    // The new token becomes this one's child: the one it gets back if
                    // it is presented again while that child is active.
                    record.child = seal_child(token, &next);
                    refresh.insert(&hash, to_json(&record))?;
                    for k in &stale {
                        sessionid_refresh.remove(k.as_slice())?;
                        refresh.remove(&k[k.len() - 32..])?;
                    }
                    let fresh = RefreshRecord {
                        session_id: session.id.clone(),
                        created_at: now,
                        used_at: None,
                        child: None,
                    };
                    refresh.insert(&next_hash, to_json(&fresh))?;
                    sessionid_refresh.insert(keys::join(session.id.as_bytes(), &next_hash), &[])?;
                    session.refreshed_at = Some(now);
                    sessions.insert(session.id.as_bytes(), to_json(&session))?;
                    Ok(Outcome::Rotated(Box::new((session, user, next.clone()))))
                },
            )?;
        self.flush()?;
        Ok(match outcome {
            Outcome::Rotated(b) => {
                let (session, user, refresh_token) = *b;
                Refresh::Rotated(Box::new(SessionGrant {
                    session,
                    user,
                    refresh_token,
                }))
            }
            Outcome::NotFound => Refresh::NotFound,
            Outcome::AlreadyUsed => {
                tracing::warn!(session = %found.session_id, "a spent refresh token was presented again; session ended");
                Refresh::AlreadyUsed
            }
        })
    }

    /// A live session by id; none once ended.
    pub fn session(&self, id: &str) -> Result<Option<Session>> {
        Ok(self.session_shared(id)?.map(Arc::unwrap_or_clone))
    }

    /// One session by id, shared with the cache of parsed sessions (see `parsed`): what
    /// a request's sign-in check reads.
    pub fn session_shared(&self, id: &str) -> Result<Option<Arc<Session>>> {
        self.mem.sessions.get(&self.t.sessions, id)
    }

    /// Ends one session and every refresh token of it.
    pub fn revoke_session(&self, id: &str) -> Result<()> {
        self.writable()?;
        let Some(session) = self.session(id)? else {
            return Ok(());
        };
        let token_keys = self.session_token_keys(id)?;
        let t = &self.t;
        (
            &t.sessions,
            &t.userid_sessions,
            &t.refresh_tokens,
            &t.sessionid_refresh,
        )
            .transaction(|(sessions, userid_sessions, refresh, sessionid_refresh)| {
                remove_session_tx(
                    sessions,
                    userid_sessions,
                    refresh,
                    sessionid_refresh,
                    &session,
                    &token_keys,
                )
            })?;
        self.flush()
    }

    /// Signs out: ends the sessions `scope` names, relative to the caller's `current`
    /// session. Answers how many sessions ended.
    pub fn sign_out(&self, user_id: &str, current: &str, scope: LogoutScope) -> Result<usize> {
        self.writable()?;
        let ids = match scope {
            LogoutScope::Local => vec![current.to_string()],
            LogoutScope::Global => self.user_session_ids(user_id)?,
            LogoutScope::Others => self
                .user_session_ids(user_id)?
                .into_iter()
                .filter(|id| id != current)
                .collect(),
        };
        let mut ended = 0;
        for id in ids {
            if self.session(&id)?.is_some_and(|s| s.user_id == user_id) {
                self.revoke_session(&id)?;
                ended += 1;
            }
        }
        Ok(ended)
    }

    /// The ids of a user's live sessions.
    pub fn user_session_ids(&self, user_id: &str) -> Result<Vec<String>> {
        let mut ids = Vec::new();
        for key in self
            .t
            .userid_sessions
            .scan_prefix(keys::prefix(user_id))
            .keys()
        {
            if let Some(id) = keys::last_part(&key?) {
                ids.push(id.to_string());
            }
        }
        Ok(ids)
    }

    /// Of a long-lived session's token keys, those spent more than [`KEEP_SPENT`] ago:
    /// they are forgotten so a session's records stay bounded. (Presenting one later is
    /// then refused as unknown rather than as reuse.)
    fn stale_token_keys(&self, token_keys: &[Vec<u8>], now: DateTime<Utc>) -> Result<Vec<Vec<u8>>> {
        if token_keys.len() <= KEEP_TOKENS {
            return Ok(Vec::new());
        }
        let mut stale = Vec::new();
        for k in token_keys {
            let Some(hash) = k.get(k.len().saturating_sub(32)..) else {
                continue;
            };
            let Some(raw) = self.t.refresh_tokens.get(hash)? else {
                continue;
            };
            let record: RefreshRecord = from_json(&raw)?;
            if record.used_at.is_some_and(|used| now - used > KEEP_SPENT) {
                stale.push(k.clone());
            }
        }
        Ok(stale)
    }

    /// The `sessionid_refresh` keys of one session.
    fn session_token_keys(&self, session_id: &str) -> Result<Vec<Vec<u8>>> {
        let mut out = Vec::new();
        for key in self
            .t
            .sessionid_refresh
            .scan_prefix(keys::prefix(session_id))
            .keys()
        {
            out.push(key?.to_vec());
        }
        Ok(out)
    }

    /// Sets a new password hash and ends every other session of the user (all of them
    /// when `keep` is none), in one transaction.
    pub fn change_password(
        &self,
        user_id: &str,
        password_hash: String,
        keep: Option<&str>,
    ) -> Result<User> {
        self.writable()?;
        let mut doomed = Vec::new();
        for id in self.user_session_ids(user_id)? {
            if Some(id.as_str()) == keep {
                continue;
            }
            if let Some(s) = self.session(&id)? {
                let token_keys = self.session_token_keys(&id)?;
                doomed.push((s, token_keys));
            }
        }
        let t = &self.t;
        let user = (
            &t.users,
            &t.sessions,
            &t.userid_sessions,
            &t.refresh_tokens,
            &t.sessionid_refresh,
        )
            .transaction(
                |(users, sessions, userid_sessions, refresh, sessionid_refresh)| {
                    let Some(raw) = users.get(user_id.as_bytes())? else {
                        return Err(Error::NotFound("user").into());
                    };
                    let mut user: User = from_json(&raw)?;
                    user.password_hash = password_hash.clone();
                    user.updated_at = Utc::now();
                    users.insert(user_id.as_bytes(), to_json(&user))?;
                    for (s, token_keys) in &doomed {
                        remove_session_tx(
                            sessions,
                            userid_sessions,
                            refresh,
                            sessionid_refresh,
                            s,
                            token_keys,
                        )?;
                    }
                    Ok(user)
                },
            )?;
        self.flush()?;
        Ok(user)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_store;

    fn user(store: &Store) -> User {
        store
            .create_user("s@example.com", "h".into(), Default::default(), true)
            .unwrap()
    }

    fn rotate(store: &Store, token: &str, grace: Duration) -> Option<SessionGrant> {
        match store.refresh_session(token, grace).unwrap() {
            Refresh::Rotated(g) => Some(*g),
            _ => None,
        }
    }

    /// Presents a spent token again once the (zero) reuse interval is over: whether it is
    /// refused as reused.
    fn refused_later(store: &Store, token: &str) -> bool {
        std::thread::sleep(std::time::Duration::from_millis(5));
        matches!(
            store.refresh_session(token, Duration::zero()).unwrap(),
            Refresh::AlreadyUsed
        )
    }

    #[test]
    fn refresh_tokens_rotate_and_an_older_spent_one_ends_the_session() {
        let (_d, store) = test_store();
        let u = user(&store);
        let first = store.sign_in(&u.id, "password").unwrap();
        assert!(
            store
                .user(&u.id)
                .unwrap()
                .unwrap()
                .last_sign_in_at
                .is_some()
        );
        let second = rotate(&store, &first.refresh_token, Duration::zero()).unwrap();
        assert_eq!(second.session.id, first.session.id);
        assert_ne!(second.refresh_token, first.refresh_token);
        let third = rotate(&store, &second.refresh_token, Duration::zero()).unwrap();
        // Spent, not the parent of the active token, past the (zero) interval: reuse
        // ends the session.
        assert!(refused_later(&store, &first.refresh_token));
        assert!(store.session(&first.session.id).unwrap().is_none());
        assert!(matches!(
            store
                .refresh_session(&third.refresh_token, Duration::zero())
                .unwrap(),
            Refresh::NotFound
        ));
        assert!(matches!(
            store.refresh_session("nonsense", Duration::zero()).unwrap(),
            Refresh::NotFound
        ));
    }

    #[test]
    fn the_parent_of_the_active_token_gets_that_token_back_at_any_time() {
        let (_d, store) = test_store();
        let u = user(&store);
        let first = store.sign_in(&u.id, "password").unwrap();
        let active = rotate(&store, &first.refresh_token, Duration::zero()).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(5));
        // The client lost the answer and asks again with the spent token, past the interval.
        let again = rotate(&store, &first.refresh_token, Duration::zero()).unwrap();
        assert_eq!(again.refresh_token, active.refresh_token);
        assert_eq!(again.session.id, first.session.id);
        // The active token still works once, and then the first is only a grandparent.
        let next = rotate(&store, &active.refresh_token, Duration::zero()).unwrap();
        assert_ne!(next.refresh_token, active.refresh_token);
        assert!(refused_later(&store, &first.refresh_token));
    }

    #[test]
    fn within_the_interval_an_older_spent_token_gets_a_new_token_of_the_session() {
        let (_d, store) = test_store();
        let u = user(&store);
        let interval = Duration::seconds(10);
        let first = store.sign_in(&u.id, "password").unwrap();
        let a = rotate(&store, &first.refresh_token, interval).unwrap();
        let b = rotate(&store, &a.refresh_token, interval).unwrap();
        // `a` is the parent of the active `b`: it gets `b` back.
        assert_eq!(
            rotate(&store, &a.refresh_token, interval)
                .unwrap()
                .refresh_token,
            b.refresh_token
        );
        // `first` is not: within the interval it gets a new token of the same session...
        let c = rotate(&store, &first.refresh_token, interval).unwrap();
        assert_eq!(c.session.id, first.session.id);
        assert!(
            ![&first, &a, &b]
                .iter()
                .any(|g| g.refresh_token == c.refresh_token)
        );
        // ...which becomes its child, and both branches work.
        assert_eq!(
            rotate(&store, &first.refresh_token, interval)
                .unwrap()
                .refresh_token,
            c.refresh_token
        );
        assert!(rotate(&store, &b.refresh_token, interval).is_some());
        assert!(rotate(&store, &c.refresh_token, interval).is_some());
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

    #[test]
    fn long_lived_sessions_forget_tokens_spent_long_ago() {
        let (_d, store) = test_store();
        let u = user(&store);
        let mut grant = store.sign_in(&u.id, "password").unwrap();
        let first = grant.refresh_token.clone();
        for _ in 0..KEEP_TOKENS + 2 {
            grant = rotate(&store, &grant.refresh_token, Duration::zero()).unwrap();
        }
        let session_id = grant.session.id.clone();
        let count = || store.session_token_keys(&session_id).unwrap().len();
        assert_eq!(count(), KEEP_TOKENS + 3, "recently spent tokens are kept");
        // Make the first token look spent two days ago.
        let hash = keys::secret(&first);
        let mut record: RefreshRecord =
            from_json(&store.t.refresh_tokens.get(hash).unwrap().unwrap()).unwrap();
        record.used_at = Some(Utc::now() - Duration::days(2));
        store
            .t
            .refresh_tokens
            .insert(hash, to_json(&record))
            .unwrap();
        grant = rotate(&store, &grant.refresh_token, Duration::zero()).unwrap();
        assert_eq!(count(), KEEP_TOKENS + 3, "one forgotten, one added");
        assert!(matches!(
            store.refresh_session(&first, Duration::zero()).unwrap(),
            Refresh::NotFound
        ));
        assert!(store.session(&grant.session.id).unwrap().is_some());
    }

    #[test]
    fn sign_out_scopes_and_password_change() {
        let (_d, store) = test_store();
        let u = user(&store);
        let s: Vec<_> = (0..4)
            .map(|_| store.sign_in(&u.id, "password").unwrap())
            .collect();
        assert_eq!(
            store
                .sign_out(&u.id, &s[0].session.id, LogoutScope::Local)
                .unwrap(),
            1
        );
        assert!(matches!(
            store
                .refresh_session(&s[0].refresh_token, Duration::zero())
                .unwrap(),
            Refresh::NotFound
        ));
        assert_eq!(
            store
                .sign_out(&u.id, &s[1].session.id, LogoutScope::Others)
                .unwrap(),
            2
        );
        assert_eq!(
            store.user_session_ids(&u.id).unwrap(),
            vec![s[1].session.id.clone()]
        );
        let more = store.sign_in(&u.id, "password").unwrap();
        let changed = store
            .change_password(&u.id, "new".into(), Some(&more.session.id))
            .unwrap();
        assert_eq!(changed.password_hash, "new");
        assert_eq!(
            store.user_session_ids(&u.id).unwrap(),
            vec![more.session.id.clone()]
        );
        assert_eq!(
            store
                .sign_out(&u.id, &more.session.id, LogoutScope::Global)
                .unwrap(),
            1
        );
        assert!(store.user_session_ids(&u.id).unwrap().is_empty());
    }
}
