//! Sign-in sessions. An access token names its session; revoking the session (sign-out,
//! password change) makes every token of it invalid at once.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::{Result, Store, from_json, keys, to_json};

/// A signed-in session of one user on one device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    /// UUID, carried in the access token's `session_id` claim.
    pub id: String,
    /// Whose session.
    pub user_id: String,
    /// When it began.
    pub created_at: DateTime<Utc>,
}

impl Store {
    /// Starts a session for a user.
    pub fn create_session(&self, user_id: &str) -> Result<Session> {
        let session = Session {
            id: uuid::Uuid::new_v4().to_string(),
            user_id: user_id.to_string(),
            created_at: Utc::now(),
        };
        self.t.sessions.insert(session.id.as_bytes(), to_json(&session))?;
        self.t.userid_sessions.insert(keys::join(user_id.as_bytes(), session.id.as_bytes()), &[])?;
        self.flush()?;
        Ok(session)
    }

    /// A live session by id; none once revoked.
    pub fn session(&self, id: &str) -> Result<Option<Session>> {
        self.t.sessions.get(id)?.map(|v| from_json(&v)).transpose()
    }

    /// Ends one session.
    pub fn revoke_session(&self, id: &str) -> Result<()> {
        if let Some(s) = self.session(id)? {
            self.t.sessions.remove(id)?;
            self.t.userid_sessions.remove(keys::join(s.user_id.as_bytes(), id.as_bytes()))?;
            self.flush()?;
        }
        Ok(())
    }

    /// The ids of a user's live sessions.
    pub fn user_session_ids(&self, user_id: &str) -> Result<Vec<String>> {
        let mut ids = Vec::new();
        for key in self.t.userid_sessions.scan_prefix(keys::prefix(user_id)).keys() {
            if let Some(id) = keys::last_part(&key?) {
                ids.push(id.to_string());
            }
        }
        Ok(ids)
    }
}
