//! Changing an account's e-mail address, as GoTrue's secure e-mail change does it: the
//! request keeps the new address as the user's `new_email` and issues one-time links,
//! one to the new address and, with double confirmation, one to the current address.
//! The change happens when the last of them is followed; until then the account signs
//! in with its current address. The address index moves in the same transaction, and a
//! new address another account took in the meantime drops the change.
//!
//! The links are one-time tokens like the others (`users.rs`): stored by hash, one live
//! per user and kind, so asking again replaces them.

use chrono::{Duration, Utc};
use sled::Transactional;

use crate::email::normalize_email;
use crate::pkce::PkceChallenge;
use crate::users::{OneTimeKind, OneTimeRecord, PKCE_PREFIX, User, kind_name};
use crate::{Error, Result, Store, from_json, keys, to_json};

/// The links of a requested e-mail change, to mail.
#[derive(Debug, Clone)]
pub struct EmailChangeLinks {
    /// The user with `new_email` set.
    pub user: User,
    /// The token for the link to the current address (double confirmation only).
    pub current: Option<String>,
    /// The token for the link to the new address.
    pub new: String,
}

/// What following an e-mail change link gave.
#[derive(Debug, Clone)]
pub enum EmailChangeStep {
    /// The link was good, and the link mailed to the other address is still to follow.
    Pending,
    /// The address changed.
    Changed {
        /// The user with the new address.
        user: Box<User>,
        /// The address the account had, for the notice that it changed.
        old_email: String,
        /// The code challenge of a PKCE link.
        pkce: Option<PkceChallenge>,
    },
    /// Another account has the new address by now: the change is dropped.
    Taken,
    /// Unknown, used, replaced by a newer one, or for another purpose.
    Invalid,
    /// It was good but its time ran out (it is spent now).
    Expired,
}

impl Store {
    /// Starts (or restarts) changing a user's address to `new_email`, with links valid
    /// for `ttl`: one to the new address, and one to the current address when `double`.
    /// An address another account has is a conflict (GoTrue's `email_exists`).
    pub fn request_email_change(
        &self,
        user_id: &str,
        new_email: &str,
        ttl: Duration,
        double: bool,
        pkce: Option<PkceChallenge>,
    ) -> Result<EmailChangeLinks> {
        self.writable()?;
        let new_email = normalize_email(new_email)?;
        let token = || {
            let secret = crate::sessions::new_secret();
            match pkce {
                Some(_) => format!("{PKCE_PREFIX}{secret}"),
                None => secret,
            }
        };
        let new_token = token();
        let current_token = double.then(token);
        let now = Utc::now();
        let record = |kind| OneTimeRecord {
            user_id: user_id.to_string(),
            kind,
            expires_at: now + ttl,
            pkce: pkce.clone(),
            attempts: 0,
        };
        let new_record = to_json(&record(OneTimeKind::EmailChangeNew));
        let current_record = to_json(&record(OneTimeKind::EmailChangeCurrent));
        let t = &self.t;
        let user = (
            &t.users,
            &t.email_userid,
            &t.onetime_tokens,
            &t.userid_onetime,
        )
            .transaction(|(users, emails, tokens, slots)| {
                let Some(raw) = users.get(user_id.as_bytes())? else {
                    return Err(Error::NotFound("user").into());
                };
                let mut user: User = from_json(&raw)?;
                if user.email == new_email {
                    return Err(
                        Error::Invalid("That is the account's address already.".into()).into(),
                    );
                }
                if emails.get(new_email.as_bytes())?.is_some() {
                    return Err(Error::Conflict(
                        "A user with this email address has already been registered".into(),
                    )
                    .into());
                }
                let links = [
                    (OneTimeKind::EmailChangeNew, Some(&new_token), &new_record),
                    (
                        OneTimeKind::EmailChangeCurrent,
                        current_token.as_ref(),
                        &current_record,
                    ),
                ];
                for (kind, token, record) in links {
                    let slot = keys::join(user_id.as_bytes(), kind_name(kind).as_bytes());
                    let old = match token {
                        Some(token) => {
                            let hash = keys::secret(token);
                            tokens.insert(&hash, record.as_slice())?;
                            slots.insert(slot.as_slice(), &hash)?
                        }
                        None => slots.remove(slot.as_slice())?,
                    };
                    if let Some(old) = old {
                        tokens.remove(old)?;
                    }
                }
                user.new_email = Some(new_email.clone());
                user.email_change_sent_at = Some(now);
                user.updated_at = now;
                users.insert(user_id.as_bytes(), to_json(&user))?;
                Ok(user)
            })?;
        self.flush()?;
        Ok(EmailChangeLinks {
            user,
            current: current_token,
            new: new_token,
        })
    }

    /// Spends an e-mail change link's token. The change happens with the last link of
    /// the pair; the account's sessions stay as they are.
    pub fn confirm_email_change(&self, token: &str) -> Result<EmailChangeStep> {
        self.writable()?;
        let hash = keys::secret(token);
        let now = Utc::now();
        let t = &self.t;
        let step = (
            &t.users,
            &t.email_userid,
            &t.onetime_tokens,
            &t.userid_onetime,
        )
            .transaction(|(users, emails, tokens, slots)| {
                let Some(raw) = tokens.get(hash)? else {
                    return Ok(EmailChangeStep::Invalid);
                };
                let record: OneTimeRecord = from_json(&raw)?;
                let other = match record.kind {
                    OneTimeKind::EmailChangeNew => OneTimeKind::EmailChangeCurrent,
                    OneTimeKind::EmailChangeCurrent => OneTimeKind::EmailChangeNew,
                    _ => return Ok(EmailChangeStep::Invalid),
                };
                let id = record.user_id.as_bytes();
                tokens.remove(&hash)?;
                let slot = keys::join(id, kind_name(record.kind).as_bytes());
                if slots
                    .get(slot.as_slice())?
                    .is_some_and(|h| h.as_ref() == hash.as_slice())
                {
                    slots.remove(slot.as_slice())?;
                }
                if record.expires_at <= now {
                    return Ok(EmailChangeStep::Expired);
                }
                let Some(raw) = users.get(id)? else {
                    return Ok(EmailChangeStep::Invalid);
                };
                let mut user: User = from_json(&raw)?;
                let Some(new_email) = user.new_email.clone() else {
                    return Ok(EmailChangeStep::Invalid);
                };
                let other_slot = keys::join(id, kind_name(other).as_bytes());
                if slots.get(other_slot.as_slice())?.is_some() {
                    return Ok(EmailChangeStep::Pending);
                }
                user.new_email = None;
                user.email_change_sent_at = None;
                user.updated_at = now;
                if emails
                    .get(new_email.as_bytes())?
                    .is_some_and(|owner| owner.as_ref() != id)
                {
                    users.insert(id, to_json(&user))?;
                    return Ok(EmailChangeStep::Taken);
                }
                let old_email = std::mem::replace(&mut user.email, new_email);
                emails.remove(old_email.as_bytes())?;
                emails.insert(user.email.as_bytes(), id)?;
                user.email_confirmed_at.get_or_insert(now);
                users.insert(id, to_json(&user))?;
                Ok(EmailChangeStep::Changed {
                    user: Box::new(user),
                    old_email,
                    pkce: record.pkce,
                })
            })?;
        self.flush()?;
        Ok(step)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_store;

    fn user(store: &Store, email: &str) -> User {
        store
            .create_user(email, "h".into(), Default::default(), true)
            .unwrap()
    }

    #[test]
    fn both_links_change_the_address_and_move_the_index() {
        let (_d, store) = test_store();
        let u = user(&store, "old@example.com");
        let links = store
            .request_email_change(&u.id, "New@Example.com", Duration::hours(1), true, None)
            .unwrap();
        assert_eq!(links.user.new_email.as_deref(), Some("new@example.com"));
        let current = links.current.unwrap();
        assert!(matches!(
            store.confirm_email_change(&links.new).unwrap(),
            EmailChangeStep::Pending
        ));
        assert_eq!(store.user(&u.id).unwrap().unwrap().email, "old@example.com");
        let EmailChangeStep::Changed {
            user, old_email, ..
        } = store.confirm_email_change(&current).unwrap()
        else {
            panic!("the second link changes the address")
        };
        assert_eq!(
            (user.email.as_str(), old_email.as_str()),
            ("new@example.com", "old@example.com")
        );
        assert!(user.new_email.is_none());
        assert_eq!(
            store.user_by_email("new@example.com").unwrap().unwrap().id,
            u.id
        );
        assert!(store.user_by_email("old@example.com").unwrap().is_none());
        assert!(matches!(
            store.confirm_email_change(&current).unwrap(),
            EmailChangeStep::Invalid
        ));
    }

    #[test]
    fn an_address_taken_before_the_last_link_drops_the_change() {
        let (_d, store) = test_store();
        let u = user(&store, "a@example.com");
        assert!(matches!(
            store.request_email_change(&u.id, "b@example.com", Duration::hours(1), false, None),
            Ok(EmailChangeLinks { current: None, .. })
        ));
        let links = store
            .request_email_change(&u.id, "c@example.com", Duration::hours(1), false, None)
            .unwrap();
        user(&store, "c@example.com");
        assert!(matches!(
            store.request_email_change(&u.id, "c@example.com", Duration::hours(1), false, None),
            Err(Error::Conflict(_))
        ));
        assert!(matches!(
            store.confirm_email_change(&links.new).unwrap(),
            EmailChangeStep::Taken
        ));
        let kept = store.user(&u.id).unwrap().unwrap();
        assert_eq!(
            (kept.email.as_str(), kept.new_email),
            ("a@example.com", None)
        );
    }

    #[test]
    fn a_new_request_replaces_the_links_and_expired_links_are_spent() {
        let (_d, store) = test_store();
        let u = user(&store, "x@example.com");
        let first = store
            .request_email_change(&u.id, "y@example.com", Duration::hours(1), false, None)
            .unwrap();
        let again = store
            .request_email_change(&u.id, "y@example.com", Duration::seconds(-1), false, None)
            .unwrap();
        assert!(matches!(
            store.confirm_email_change(&first.new).unwrap(),
            EmailChangeStep::Invalid
        ));
        assert!(matches!(
            store.confirm_email_change(&again.new).unwrap(),
            EmailChangeStep::Expired
        ));
    }
}
