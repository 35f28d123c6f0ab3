//! Sessions in sled: `sessions` by id, `userid_sessions` per user, refresh tokens in
//! `refresh_tokens` by hash and `sessionid_refresh` per session.

use std::cell::RefCell;
use std::sync::Arc;

use sled::Transactional;
use sled::transaction::{ConflictableTransactionError, TransactionalTree};

use super::accounts::update_user_tx;
use super::{SledBackend, from_json, keys, to_json};
use crate::backend::{SessionStore, UserChange};
use crate::sessions::{RefreshPlan, RefreshRecord, RefreshView, Session};
use crate::{Error, Result, User};

/// Removes, inside a transaction, a session with its index entry and the refresh tokens
/// listed (collected before the transaction, since sled cannot scan in one).
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

impl SledBackend {
    /// The ids of a user's live sessions.
    pub(crate) fn session_ids(&self, user_id: &str) -> Result<Vec<String>> {
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

    /// One stored session, parsed, read directly (not through the cache).
    fn stored_session(&self, id: &str) -> Result<Option<Session>> {
        self.t.sessions.get(id)?.map(|v| from_json(&v)).transpose()
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

    /// The sessions to end, each with its token keys.
    fn doomed(&self, ids: &[String]) -> Result<Vec<(Session, Vec<Vec<u8>>)>> {
        let mut out = Vec::new();
        for id in ids {
            if let Some(s) = self.stored_session(id)? {
                let token_keys = self.session_token_keys(id)?;
                out.push((s, token_keys));
            }
        }
        Ok(out)
    }

    /// Ends sessions with their tokens, without a sync (the caller syncs).
    pub(crate) fn end_sessions_now(&self, ids: &[String]) -> Result<usize> {
        let doomed = self.doomed(ids)?;
        let t = &self.t;
        (
            &t.sessions,
            &t.userid_sessions,
            &t.refresh_tokens,
            &t.sessionid_refresh,
        )
            .transaction(|(sessions, userid_sessions, refresh, sessionid_refresh)| {
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
                Ok(())
            })?;
        Ok(doomed.len())
    }
}

#[async_trait::async_trait]
impl SessionStore for SledBackend {
    async fn start_session(
        &self,
        session: &Session,
        token: &[u8; 32],
        record: &RefreshRecord,
        stamp: &mut UserChange<'_>,
    ) -> Result<User> {
        self.writable()?;
        let t = &self.t;
        let user_id = session.user_id.as_str();
        let stamp = RefCell::new(stamp);
        let user = (
            &t.users,
            &t.email_userid,
            &t.customerid_userid,
            &t.sessions,
            &t.userid_sessions,
            &t.refresh_tokens,
            &t.sessionid_refresh,
        )
            .transaction(
                |(users, emails, customers, sessions, userid_sessions, refresh, by_session)| {
                    let user =
                        update_user_tx(users, emails, customers, user_id, *stamp.borrow_mut())?;
                    sessions.insert(session.id.as_bytes(), to_json(session))?;
                    userid_sessions
                        .insert(keys::join(user_id.as_bytes(), session.id.as_bytes()), &[])?;
                    refresh.insert(token, to_json(record))?;
                    by_session.insert(keys::join(session.id.as_bytes(), token), &[])?;
                    Ok(user)
                },
            )?;
        self.sync()?;
        Ok(user)
    }

    async fn session(&self, id: &str) -> Result<Option<Arc<Session>>> {
        self.mem.sessions.get(&self.t.sessions, id)
    }

    async fn user_sessions(&self, user_id: &str) -> Result<Vec<String>> {
        self.session_ids(user_id)
    }

    async fn end_sessions(&self, ids: &[String]) -> Result<usize> {
        self.writable()?;
        let ended = self.end_sessions_now(ids)?;
        self.sync()?;
        Ok(ended)
    }

    async fn update_user_ending_sessions(
        &self,
        user_id: &str,
        keep: Option<&str>,
        change: &mut UserChange<'_>,
    ) -> Result<User> {
        self.writable()?;
        let ids: Vec<String> = self
            .session_ids(user_id)?
            .into_iter()
            .filter(|id| Some(id.as_str()) != keep)
            .collect();
        let doomed = self.doomed(&ids)?;
        let t = &self.t;
        let change = RefCell::new(change);
        let user = (
            &t.users,
            &t.email_userid,
            &t.customerid_userid,
            &t.sessions,
            &t.userid_sessions,
            &t.refresh_tokens,
            &t.sessionid_refresh,
        )
            .transaction(
                |(users, emails, customers, sessions, userid_sessions, refresh, by_session)| {
                    let user =
                        update_user_tx(users, emails, customers, user_id, *change.borrow_mut())?;
                    for (s, token_keys) in &doomed {
                        remove_session_tx(
                            sessions,
                            userid_sessions,
                            refresh,
                            by_session,
                            s,
                            token_keys,
                        )?;
                    }
                    Ok(user)
                },
            )?;
        self.sync()?;
        Ok(user)
    }

    async fn refresh(
        &self,
        token: &[u8; 32],
        rule: &mut (dyn FnMut(Option<RefreshView>) -> RefreshPlan + Send),
    ) -> Result<RefreshPlan> {
        self.writable()?;
        // The session's token keys are read before the transaction (sled cannot scan in
        // one); a token added meanwhile by a concurrent refresh of the same session is
        // then not among `tokens`, which only makes the rule keep a record it could
        // have forgotten.
        let session_id = match self.t.refresh_tokens.get(token)? {
            Some(raw) => Some(from_json::<RefreshRecord>(&raw)?.session_id),
            None => None,
        };
        let token_keys = match &session_id {
            Some(id) => self.session_token_keys(id)?,
            None => Vec::new(),
        };
        let t = &self.t;
        let rule = RefCell::new(rule);
        let plan = (
            &t.users,
            &t.sessions,
            &t.userid_sessions,
            &t.refresh_tokens,
            &t.sessionid_refresh,
        )
            .transaction(|(users, sessions, userid_sessions, refresh, by_session)| {
                let view = || -> std::result::Result<Option<RefreshView>, ConflictableTransactionError<Error>> {
                    let Some(raw) = refresh.get(token)? else {
                        return Ok(None);
                    };
                    let presented: RefreshRecord = from_json(&raw)?;
                    let Some(raw) = sessions.get(presented.session_id.as_bytes())? else {
                        return Ok(None);
                    };
                    let session: Session = from_json(&raw)?;
                    let Some(raw) = users.get(session.user_id.as_bytes())? else {
                        return Ok(None);
                    };
                    let user: User = from_json(&raw)?;
                    let mut tokens = Vec::with_capacity(token_keys.len());
                    for k in &token_keys {
                        let Some(hash) = k.get(k.len().saturating_sub(32)..) else {
                            continue;
                        };
                        let Ok(hash) = <[u8; 32]>::try_from(hash) else {
                            continue;
                        };
                        if let Some(raw) = refresh.get(hash)? {
                            tokens.push((hash, from_json::<RefreshRecord>(&raw)?));
                        }
                    }
                    Ok(Some(RefreshView {
                        presented,
                        session,
                        user,
                        tokens,
                    }))
                };
                let view = view()?;
                let session = view.as_ref().map(|v| v.session.clone());
                let plan = (rule.borrow_mut())(view);
                for hash in &plan.remove {
                    refresh.remove(hash)?;
                    if let Some(s) = &session {
                        by_session.remove(keys::join(s.id.as_bytes(), hash))?;
                    }
                }
                for (hash, record) in &plan.put {
                    refresh.insert(hash, to_json(record))?;
                    by_session.insert(keys::join(record.session_id.as_bytes(), hash), &[])?;
                }
                if let Some(s) = &plan.session {
                    sessions.insert(s.id.as_bytes(), to_json(s))?;
                }
                if plan.end_session
                    && let Some(s) = &session
                {
                    remove_session_tx(sessions, userid_sessions, refresh, by_session, s, &token_keys)?;
                }
                Ok(plan)
            })?;
        self.sync()?;
        Ok(plan)
    }
}
