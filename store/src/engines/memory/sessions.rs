//! Sign-in sessions and their refresh tokens in memory.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use super::MemoryBackend;
use crate::backend::{SessionStore, UserChange};
use crate::sessions::{RefreshPlan, RefreshRecord, RefreshView, Session};
use crate::{Result, User};

/// Sessions by id and by user, refresh tokens by hash and by session.
#[derive(Default)]
pub(super) struct Sessions {
    sessions: HashMap<String, Arc<Session>>,
    by_user: HashMap<String, BTreeSet<String>>,
    tokens: HashMap<[u8; 32], RefreshRecord>,
    by_session: HashMap<String, BTreeSet<[u8; 32]>>,
}

impl Sessions {
    fn put_session(&mut self, session: Session) {
        self.by_user
            .entry(session.user_id.clone())
            .or_default()
            .insert(session.id.clone());
        self.sessions.insert(session.id.clone(), Arc::new(session));
    }

    fn put_token(&mut self, hash: [u8; 32], record: RefreshRecord) {
        if let Some(old) = self.tokens.get(&hash)
            && old.session_id != record.session_id
        {
            let old = old.session_id.clone();
            self.unlink_token(&old, &hash);
        }
        self.by_session
            .entry(record.session_id.clone())
            .or_default()
            .insert(hash);
        self.tokens.insert(hash, record);
    }

    fn unlink_token(&mut self, session: &str, hash: &[u8; 32]) {
        if let Some(hashes) = self.by_session.get_mut(session) {
            hashes.remove(hash);
            if hashes.is_empty() {
                self.by_session.remove(session);
            }
        }
    }

    fn remove_token(&mut self, hash: &[u8; 32]) {
        if let Some(record) = self.tokens.remove(hash) {
            self.unlink_token(&record.session_id, hash);
        }
    }

    /// Ends a session with every refresh token of it; answers whether it existed.
    fn end(&mut self, id: &str) -> bool {
        for hash in self.by_session.remove(id).unwrap_or_default() {
            self.tokens.remove(&hash);
        }
        let Some(session) = self.sessions.remove(id) else {
            return false;
        };
        if let Some(ids) = self.by_user.get_mut(&session.user_id) {
            ids.remove(id);
            if ids.is_empty() {
                self.by_user.remove(&session.user_id);
            }
        }
        true
    }

    fn user_sessions(&self, user_id: &str) -> Vec<String> {
        self.by_user
            .get(user_id)
            .map(|ids| ids.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Ends every session of a user (a deleted account).
    pub(super) fn forget_user(&mut self, user_id: &str) {
        for id in self.user_sessions(user_id) {
            self.end(&id);
        }
    }

    /// What [`SessionStore::refresh`] hands its rule: none when the token is unknown,
    /// its session ended or its account is gone.
    fn view(&self, token: &[u8; 32], user: Option<&Arc<User>>) -> Option<RefreshView> {
        let presented = self.tokens.get(token)?;
        let session = self.sessions.get(&presented.session_id)?;
        let user = user?;
        let tokens = self
            .by_session
            .get(&session.id)
            .into_iter()
            .flatten()
            .filter_map(|h| Some((*h, self.tokens.get(h)?.clone())))
            .collect();
        Some(RefreshView {
            presented: presented.clone(),
            session: Session::clone(session),
            user: User::clone(user),
            tokens,
        })
    }
}

#[async_trait::async_trait]
impl SessionStore for MemoryBackend {
    async fn start_session(
        &self,
        session: &Session,
        token: &[u8; 32],
        record: &RefreshRecord,
        stamp: &mut UserChange<'_>,
    ) -> Result<User> {
        let mut state = self.lock();
        let user = state.accounts.update(&session.user_id, stamp)?;
        state.sessions.put_session(session.clone());
        state.sessions.put_token(*token, record.clone());
        Ok(Arc::unwrap_or_clone(user))
    }

    async fn session(&self, id: &str) -> Result<Option<Arc<Session>>> {
        Ok(self.lock().sessions.sessions.get(id).cloned())
    }

    async fn user_sessions(&self, user_id: &str) -> Result<Vec<String>> {
        Ok(self.lock().sessions.user_sessions(user_id))
    }

    async fn end_sessions(&self, ids: &[String]) -> Result<usize> {
        let mut state = self.lock();
        Ok(ids.iter().filter(|id| state.sessions.end(id)).count())
    }

    async fn update_user_ending_sessions(
        &self,
        user_id: &str,
        keep: Option<&str>,
        change: &mut UserChange<'_>,
    ) -> Result<User> {
        let mut state = self.lock();
        let user = state.accounts.update(user_id, change)?;
        for id in state.sessions.user_sessions(user_id) {
            if Some(id.as_str()) != keep {
                state.sessions.end(&id);
            }
        }
        Ok(Arc::unwrap_or_clone(user))
    }

    async fn refresh(
        &self,
        token: &[u8; 32],
        rule: &mut (dyn FnMut(Option<RefreshView>) -> RefreshPlan + Send),
    ) -> Result<RefreshPlan> {
        let mut state = self.lock();
        let owner = state
            .sessions
            .tokens
            .get(token)
            .and_then(|t| state.sessions.sessions.get(&t.session_id))
            .and_then(|s| state.accounts.get(&s.user_id));
        let view = state.sessions.view(token, owner);
        let session_id = view.as_ref().map(|v| v.session.id.clone());
        let plan = rule(view);
        let sessions = &mut state.sessions;
        for hash in &plan.remove {
            sessions.remove_token(hash);
        }
        for (hash, record) in &plan.put {
            sessions.put_token(*hash, record.clone());
        }
        if plan.end_session {
            if let Some(id) = &session_id {
                sessions.end(id);
            }
        } else if let Some(session) = &plan.session
            && sessions.sessions.contains_key(&session.id)
        {
            sessions.put_session(session.clone());
        }
        Ok(plan)
    }
}
