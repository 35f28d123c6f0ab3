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

use crate::backend::SecretLookup;
use crate::email::normalize_email;
use crate::pkce::PkceChallenge;
use crate::secrets::{SecretUse, secret_hash};
use crate::users::{OneTimeKind, OneTimeRecord, PKCE_PREFIX, User, kind_name};
use crate::{Error, Result, Store, from_json};

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
    /// Starts a change of the user's e-mail to `new_email`: records it as pending and
    /// issues the link to the new address and, with `double`, the one to the current
    /// address, replacing earlier links of a change. An address another account has is
    /// a conflict.
    pub async fn request_email_change(
        &self,
        user_id: &str,
        new_email: &str,
        ttl: Duration,
        double: bool,
        pkce: Option<PkceChallenge>,
    ) -> Result<EmailChangeLinks> {
        let new_email = normalize_email(new_email)?;
        let taken =
            || Error::Conflict("A user with this email address has already been registered".into());
        if self
            .backend()
            .user_by_email(&new_email)
            .await?
            .is_some_and(|u| u.id != user_id)
        {
            return Err(taken());
        }
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
        let mut links = vec![record(OneTimeKind::EmailChangeNew).stored(secret_hash(&new_token))];
        let mut clear = Vec::new();
        match &current_token {
            Some(t) => links.push(record(OneTimeKind::EmailChangeCurrent).stored(secret_hash(t))),
            None => clear.push(kind_name(OneTimeKind::EmailChangeCurrent)),
        }
        let user = self
            .backend()
            .put_secrets(user_id, &links, &clear, &mut |user: &mut User| {
                if user.email == new_email {
                    return Err(Error::Invalid(
                        "That is the account's address already.".into(),
                    ));
                }
                user.new_email = Some(new_email.clone());
                user.email_change_sent_at = Some(now);
                user.updated_at = now;
                Ok(())
            })
            .await?;
        Ok(EmailChangeLinks {
            user,
            current: current_token,
            new: new_token,
        })
    }

    /// Follows one link of an e-mail change: the link is spent; while the other link of
    /// the change is still live the change waits for it; once both are followed (or the
    /// only one, in single mode) the address changes, unless another account took it
    /// meanwhile.
    pub async fn confirm_email_change(&self, token: &str) -> Result<EmailChangeStep> {
        let hash = secret_hash(token);
        let now = Utc::now();
        let mut read: Option<OneTimeRecord> = None;
        let mut other_live = false;
        self.backend()
            .use_secret(SecretLookup::Hash(&hash), &mut |found, live| {
                read = found.and_then(|s| from_json::<OneTimeRecord>(&s.body).ok());
                let other = match read.as_ref().map(|r| r.kind) {
                    Some(OneTimeKind::EmailChangeNew) => OneTimeKind::EmailChangeCurrent,
                    Some(OneTimeKind::EmailChangeCurrent) => OneTimeKind::EmailChangeNew,
                    _ => return SecretUse::Keep,
                };
                other_live = live.iter().any(|p| p == kind_name(other));
                SecretUse::Spend
            })
            .await?;
        let Some(record) = read.filter(|r| {
            matches!(
                r.kind,
                OneTimeKind::EmailChangeNew | OneTimeKind::EmailChangeCurrent
            )
        }) else {
            return Ok(EmailChangeStep::Invalid);
        };
        if record.expires_at <= now {
            return Ok(EmailChangeStep::Expired);
        }
        if other_live {
            return Ok(EmailChangeStep::Pending);
        }
        let id = record.user_id.as_str();
        let Some(pending) = self.backend().user(id).await? else {
            return Ok(EmailChangeStep::Invalid);
        };
        let Some(new_email) = pending.new_email.clone() else {
            return Ok(EmailChangeStep::Invalid);
        };
        let mut old_email = String::new();
        let changed = self
            .backend()
            .update_user(id, &mut |u| {
                u.new_email = None;
                u.email_change_sent_at = None;
                u.updated_at = now;
                old_email = std::mem::replace(&mut u.email, new_email.clone());
                u.email_confirmed_at.get_or_insert(now);
                Ok(())
            })
            .await;
        match changed {
            Ok(user) => Ok(EmailChangeStep::Changed {
                user: Box::new(user),
                old_email,
                pkce: record.pkce,
            }),
            Err(Error::Conflict(_)) => {
                // Taken meanwhile: the change ends without moving the address.
                self.backend()
                    .update_user(id, &mut |u| {
                        u.new_email = None;
                        u.email_change_sent_at = None;
                        u.updated_at = now;
                        Ok(())
                    })
                    .await?;
                Ok(EmailChangeStep::Taken)
            }
            Err(Error::NotFound(_)) => Ok(EmailChangeStep::Invalid),
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::store_tests;

    async fn user(store: &Store, email: &str) -> User {
        store
            .create_user(email, "h".into(), Default::default(), true)
            .await
            .unwrap()
    }

    store_tests! {
        async fn both_links_change_the_address_and_move_the_index(store) {
            let u = user(&store, "old@example.com").await;
            let links = store
                .request_email_change(&u.id, "New@Example.com", Duration::hours(1), true, None)
                .await
                .unwrap();
            assert_eq!(links.user.new_email.as_deref(), Some("new@example.com"));
            let current = links.current.unwrap();
            assert!(matches!(
                store.confirm_email_change(&links.new).await.unwrap(),
                EmailChangeStep::Pending
            ));
            assert_eq!(
                store.user(&u.id).await.unwrap().unwrap().email,
                "old@example.com"
            );
            let EmailChangeStep::Changed {
                user, old_email, ..
            } = store.confirm_email_change(&current).await.unwrap()
            else {
                panic!("the second link changes the address")
            };
            assert_eq!(
                (user.email.as_str(), old_email.as_str()),
                ("new@example.com", "old@example.com")
            );
            assert!(user.new_email.is_none());
            assert_eq!(
                store
                    .user_by_email("new@example.com")
                    .await
                    .unwrap()
                    .unwrap()
                    .id,
                u.id
            );
            assert!(
                store
                    .user_by_email("old@example.com")
                    .await
                    .unwrap()
                    .is_none()
            );
            assert!(matches!(
                store.confirm_email_change(&current).await.unwrap(),
                EmailChangeStep::Invalid
            ));
        }

        async fn an_address_taken_before_the_last_link_drops_the_change(store) {
            let u = user(&store, "a@example.com").await;
            assert!(matches!(
                store
                    .request_email_change(&u.id, "b@example.com", Duration::hours(1), false, None)
                    .await,
                Ok(EmailChangeLinks { current: None, .. })
            ));
            let links = store
                .request_email_change(&u.id, "c@example.com", Duration::hours(1), false, None)
                .await
                .unwrap();
            user(&store, "c@example.com").await;
            assert!(matches!(
                store
                    .request_email_change(&u.id, "c@example.com", Duration::hours(1), false, None)
                    .await,
                Err(Error::Conflict(_))
            ));
            assert!(matches!(
                store.confirm_email_change(&links.new).await.unwrap(),
                EmailChangeStep::Taken
            ));
            let kept = store.user(&u.id).await.unwrap().unwrap();
            assert_eq!(
                (kept.email.as_str(), kept.new_email),
                ("a@example.com", None)
            );
        }

        async fn a_new_request_replaces_the_links_and_expired_links_are_spent(store) {
            let u = user(&store, "x@example.com").await;
            let first = store
                .request_email_change(&u.id, "y@example.com", Duration::hours(1), false, None)
                .await
                .unwrap();
            let again = store
                .request_email_change(&u.id, "y@example.com", Duration::seconds(-1), false, None)
                .await
                .unwrap();
            assert!(matches!(
                store.confirm_email_change(&first.new).await.unwrap(),
                EmailChangeStep::Invalid
            ));
            assert!(matches!(
                store.confirm_email_change(&again.new).await.unwrap(),
                EmailChangeStep::Expired
            ));
        }
    }
}
