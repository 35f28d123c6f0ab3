//! Reauthentication codes (GoTrue's nonce): six digits mailed to the signed-in user,
//! which a password change needs with `--secure-password-change`.
//!
//! Six digits are guessable where a link's token is not, so a code is stored under the
//! hash of the user id with it (two users' equal codes do not meet), one live per user,
//! and [`MAX_NONCE_ATTEMPTS`] wrong guesses spend it.

use chrono::{Duration, Utc};
use sled::Transactional;

use crate::users::{OneTimeKind, OneTimeRecord, User, kind_name};
use crate::{Error, Result, Store, from_json, keys, to_json};

/// Wrong codes a reauthentication code survives; the next wrong one spends it.
pub const MAX_NONCE_ATTEMPTS: u32 = 5;

fn nonce_key(user_id: &str, nonce: &str) -> [u8; 32] {
    keys::secret(&format!("reauthentication\u{0}{user_id}\u{0}{nonce}"))
}

impl Store {
    /// Issues a reauthentication code for a user, valid for `ttl`, replacing the
    /// previous one; answers the code to mail.
    pub fn issue_reauthentication_nonce(&self, user_id: &str, ttl: Duration) -> Result<String> {
        self.writable()?;
        let nonce = format!("{:06}", rand::random::<u32>() % 1_000_000);
        let hash = nonce_key(user_id, &nonce);
        let now = Utc::now();
        let record = to_json(&OneTimeRecord {
            user_id: user_id.to_string(),
            kind: OneTimeKind::Reauthentication,
            expires_at: now + ttl,
            pkce: None,
            attempts: 0,
        });
        let slot = keys::join(
            user_id.as_bytes(),
            kind_name(OneTimeKind::Reauthentication).as_bytes(),
        );
        let t = &self.t;
        (&t.users, &t.onetime_tokens, &t.userid_onetime).transaction(
            |(users, tokens, slots)| {
                let Some(raw) = users.get(user_id.as_bytes())? else {
                    return Err(Error::NotFound("user").into());
                };
                let mut user: User = from_json(&raw)?;
                user.reauthentication_sent_at = Some(now);
                users.insert(user_id.as_bytes(), to_json(&user))?;
                if let Some(old) = slots.insert(slot.as_slice(), &hash)? {
                    tokens.remove(old)?;
                }
                tokens.insert(&hash, record.as_slice())?;
                Ok(())
            },
        )?;
        self.flush()?;
        Ok(nonce)
    }

    /// Spends the user's reauthentication code if `nonce` is it and it has not
    /// expired; a wrong one counts against it.
    pub fn spend_reauthentication_nonce(&self, user_id: &str, nonce: &str) -> Result<bool> {
        self.writable()?;
        let given = nonce_key(user_id, nonce.trim());
        let slot = keys::join(
            user_id.as_bytes(),
            kind_name(OneTimeKind::Reauthentication).as_bytes(),
        );
        let now = Utc::now();
        let ok =
            (&self.t.onetime_tokens, &self.t.userid_onetime).transaction(|(tokens, slots)| {
                let Some(live) = slots.get(slot.as_slice())? else {
                    return Ok(false);
                };
                let Some(raw) = tokens.get(&live)? else {
                    slots.remove(slot.as_slice())?;
                    return Ok(false);
                };
                let mut record: OneTimeRecord = from_json(&raw)?;
                let right = live.as_ref() == given.as_slice();
                record.attempts += u32::from(!right);
                if right || record.attempts > MAX_NONCE_ATTEMPTS || record.expires_at <= now {
                    tokens.remove(&live)?;
                    slots.remove(slot.as_slice())?;
                } else {
                    tokens.insert(&live, to_json(&record))?;
                }
                Ok(right && record.expires_at > now)
            })?;
        self.flush()?;
        Ok(ok)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_store;

    #[test]
    fn a_code_works_once_and_wrong_guesses_spend_it() {
        let (_d, store) = test_store();
        let u = store
            .create_user("n@example.com", "h".into(), Default::default(), true)
            .unwrap();
        let nonce = store
            .issue_reauthentication_nonce(&u.id, Duration::hours(1))
            .unwrap();
        assert_eq!(nonce.len(), 6);
        assert!(
            store
                .user(&u.id)
                .unwrap()
                .unwrap()
                .reauthentication_sent_at
                .is_some()
        );
        assert!(store.spend_reauthentication_nonce(&u.id, &nonce).unwrap());
        assert!(!store.spend_reauthentication_nonce(&u.id, &nonce).unwrap());

        let nonce = store
            .issue_reauthentication_nonce(&u.id, Duration::hours(1))
            .unwrap();
        let wrong = if nonce == "000000" {
            "000001"
        } else {
            "000000"
        };
        for _ in 0..=MAX_NONCE_ATTEMPTS {
            assert!(!store.spend_reauthentication_nonce(&u.id, wrong).unwrap());
        }
        assert!(
            !store.spend_reauthentication_nonce(&u.id, &nonce).unwrap(),
            "too many wrong guesses spend the code"
        );

        let nonce = store
            .issue_reauthentication_nonce(&u.id, Duration::seconds(-1))
            .unwrap();
        assert!(!store.spend_reauthentication_nonce(&u.id, &nonce).unwrap());
    }
}
