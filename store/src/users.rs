//! Accounts: e-mail, password hash, metadata and subscription (spec section 3's auth user).
//!
//! E-mails are trimmed and compared case-insensitively; `email_userid` keeps them unique.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sled::Transactional;
use utoipa::ToSchema;

use crate::email::normalize_email;
use crate::pkce::PkceChallenge;
use crate::{Error, Result, Store, from_json, keys, to_json};

/// A subscription as spec section 3's user metadata has it, plus when it ends.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Subscription {
    /// Set when a payment or an operator activated the subscription.
    pub is_active: bool,
    /// The payment provider's customer id, once there is one.
    #[serde(default)]
    pub customer_id: Option<String>,
    /// When a granted subscription ends; none means it runs until revoked.
    #[serde(default)]
    pub until: Option<DateTime<Utc>>,
}

/// An account.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct User {
    /// UUID, as the auth protocol expects.
    pub id: String,
    /// Normalised (trimmed, lower-case) e-mail.
    pub email: String,
    /// argon2id PHC string; never leaves the store except to verify a password.
    pub password_hash: String,
    /// Sign-up time.
    pub created_at: DateTime<Utc>,
    /// Last change of the record.
    pub updated_at: DateTime<Utc>,
    /// When the e-mail was confirmed (at sign-up unless confirmation is on).
    #[serde(default)]
    pub email_confirmed_at: Option<DateTime<Utc>>,
    /// Last successful sign-in.
    #[serde(default)]
    pub last_sign_in_at: Option<DateTime<Utc>>,
    /// When the last confirmation link was issued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmation_sent_at: Option<DateTime<Utc>>,
    /// When the last password-reset link was issued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery_sent_at: Option<DateTime<Utc>>,
    /// The address an e-mail change waits to move to (GoTrue's `new_email`), until
    /// its links are followed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_email: Option<String>,
    /// When the links of the pending e-mail change were mailed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email_change_sent_at: Option<DateTime<Utc>>,
    /// When the last reauthentication code was mailed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reauthentication_sent_at: Option<DateTime<Utc>>,
    /// Free-form metadata the client may set (avatar_url...).
    #[serde(default)]
    pub user_metadata: serde_json::Map<String, serde_json::Value>,
    /// Subscription state.
    #[serde(default)]
    pub subscription: Subscription,
}

impl Store {
    /// Creates an account; an e-mail already registered is a conflict.
    pub fn create_user(
        &self,
        email: &str,
        password_hash: String,
        user_metadata: serde_json::Map<String, serde_json::Value>,
        confirmed: bool,
    ) -> Result<User> {
        self.writable()?;
        let user = new_user(email, password_hash, user_metadata, confirmed)?;
        let email = &user.email;
        (&self.t.users, &self.t.email_userid).transaction(|(users, emails)| {
            if emails.get(email.as_bytes())?.is_some() {
                return Err(Error::Conflict("User already registered".into()).into());
            }
            emails.insert(email.as_bytes(), user.id.as_bytes())?;
            users.insert(user.id.as_bytes(), to_json(&user))?;
            Ok(())
        })?;
        self.flush()?;
        Ok(user)
    }

    /// A user as a fresh, unconfirmed sign-up with `email` and `user_metadata` would
    /// get, never stored: what a sign-up with a registered address answers while
    /// confirmations are on (GoTrue's `sanitizeUser`), so the answer does not tell that
    /// the address is taken. The same checks as [`Store::create_user`] apply.
    pub fn stand_in_user(
        &self,
        email: &str,
        user_metadata: serde_json::Map<String, serde_json::Value>,
    ) -> Result<User> {
        let mut user = new_user(email, String::new(), user_metadata, false)?;
        user.confirmation_sent_at = Some(user.created_at);
        Ok(user)
    }

    /// One user by id.
    pub fn user(&self, id: &str) -> Result<Option<User>> {
        self.t.users.get(id)?.map(|v| from_json(&v)).transpose()
    }

    /// One user by id, shared with the cache of parsed accounts (see `parsed`): what
    /// a request's sign-in or API key check reads. Walks over many accounts (operators'
    /// listings) use [`Store::user`], so they do not push the active readers out.
    pub fn user_shared(&self, id: &str) -> Result<Option<Arc<User>>> {
        self.mem.users.get(&self.t.users, id)
    }

    /// One user by e-mail (any case, surrounding spaces ignored). An address that breaks
    /// today's rule is still looked up as given (within the length limit), so accounts
    /// made before the rule tightened stay reachable by their operators.
    pub fn user_by_email(&self, email: &str) -> Result<Option<User>> {
        let key = match normalize_email(email) {
            Ok(e) => e,
            Err(_) if email.trim().len() <= crate::MAX_EMAIL_LEN => email.trim().to_lowercase(),
            Err(_) => return Ok(None),
        };
        match self.t.email_userid.get(key)? {
            Some(id) => self.user(&String::from_utf8_lossy(&id)),
            None => Ok(None),
        }
    }

    /// Saves a changed user record (an e-mail change goes through
    /// [`Store::confirm_email_change`], which keeps the address index in step).
    pub fn save_user(&self, user: &User) -> Result<()> {
        self.writable()?;
        let mut user = user.clone();
        user.updated_at = Utc::now();
        if !self.t.users.contains_key(&user.id)? {
            return Err(Error::NotFound("user"));
        }
        self.t.users.insert(user.id.as_bytes(), to_json(&user))?;
        self.flush()
    }

    /// Applies `change` to a user record atomically and returns the new record.
    pub fn update_user(&self, id: &str, change: impl Fn(&mut User)) -> Result<User> {
        self.writable()?;
        let updated = self.t.users.transaction(|users| {
            let Some(raw) = users.get(id.as_bytes())? else {
                return Err(Error::NotFound("user").into());
            };
            let mut user: User = from_json(&raw)?;
            change(&mut user);
            user.updated_at = Utc::now();
            users.insert(id.as_bytes(), to_json(&user))?;
            Ok(user)
        })?;
        self.flush()?;
        Ok(updated)
    }

    /// Deletes an account and every record of it: sessions, marks and shares.
    pub fn delete_user(&self, id: &str) -> Result<User> {
        self.writable()?;
        let user = self.user(id)?.ok_or(Error::NotFound("user"))?;
        for session in self.user_session_ids(id)? {
            self.revoke_session(&session)?;
        }
        self.forget_marks(id)?;
        (&self.t.users, &self.t.email_userid).transaction(|(users, emails)| {
            users.remove(id.as_bytes())?;
            emails.remove(user.email.as_bytes())?;
            Ok(())
        })?;
        self.flush()?;
        Ok(user)
    }

    /// Subscriber status as spec section 4 defines it: a complimentary account (by id or
    /// e-mail), an active subscription that has not ended, or a payment customer id.
    pub fn is_subscriber(&self, user: &User) -> bool {
        let comp = &self.options().complimentary;
        if comp
            .iter()
            .any(|c| c == &user.id || c.eq_ignore_ascii_case(&user.email))
        {
            return true;
        }
        let s = &user.subscription;
        let not_ended = s.until.is_none_or(|until| until > Utc::now());
        not_ended && (s.is_active || s.customer_id.is_some())
    }
}

/// What an e-mailed one-time link is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OneTimeKind {
    /// A password reset (`type=recovery`).
    Recovery,
    /// Confirming the e-mail after sign-up (`type=signup`).
    Confirmation,
    /// An e-mail change, the link mailed to the current address (`type=email_change`).
    EmailChangeCurrent,
    /// An e-mail change, the link mailed to the new address (`type=email_change`).
    EmailChangeNew,
    /// The code `GET /reauthenticate` mails, which a password change may need.
    Reauthentication,
}

/// A one-time token as stored under its hash.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct OneTimeRecord {
    pub(crate) user_id: String,
    pub(crate) kind: OneTimeKind,
    pub(crate) expires_at: DateTime<Utc>,
    /// The client's code challenge when it asked for a PKCE link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) pkce: Option<PkceChallenge>,
    /// Wrong guesses so far (reauthentication codes, which are short).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(crate) attempts: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// What redeeming a one-time token gave.
#[derive(Debug, Clone)]
pub enum Redeemed {
    /// The token was good and is now spent; the e-mail counts as confirmed.
    Valid {
        /// The user, confirmed (boxed: the other answers are empty).
        user: Box<User>,
        /// The code challenge of a PKCE link: the caller issues an authorization code
        /// for it instead of a session.
        pkce: Option<PkceChallenge>,
    },
    /// Unknown, already used, replaced by a newer one, or for another purpose.
    Invalid,
    /// It was good but its time ran out (it is spent now too).
    Expired,
}

/// The prefix of a PKCE link's token, as the protocol has it (GoTrue tells the two
/// flows' links apart by it).
pub const PKCE_PREFIX: &str = "pkce_";

/// The user-metadata keys the server owns; a client's `data` cannot set them.
const SERVER_METADATA: [&str; 2] = ["subscription", "has_active_subscription"];

impl Store {
    /// Issues a one-time token (e-mailed link) for a user, valid for `ttl`. It replaces
    /// the user's previous token of the same kind; only its hash is stored, with the
    /// client's code challenge when `pkce` is given (the token then starts with
    /// [`PKCE_PREFIX`]).
    pub fn issue_one_time_token(
        &self,
        user_id: &str,
        kind: OneTimeKind,
        ttl: chrono::Duration,
        pkce: Option<PkceChallenge>,
    ) -> Result<String> {
        self.writable()?;
        let secret = crate::sessions::new_secret();
        let token = match pkce {
            Some(_) => format!("{PKCE_PREFIX}{secret}"),
            None => secret,
        };
        let hash = keys::secret(&token);
        let record = OneTimeRecord {
            user_id: user_id.to_string(),
            kind,
            expires_at: Utc::now() + ttl,
            pkce,
            attempts: 0,
        };
        let slot = keys::join(user_id.as_bytes(), kind_name(kind).as_bytes());
        (
            &self.t.users,
            &self.t.onetime_tokens,
            &self.t.userid_onetime,
        )
            .transaction(|(users, tokens, slots)| {
                let Some(raw) = users.get(user_id.as_bytes())? else {
                    return Err(Error::NotFound("user").into());
                };
                let mut user: User = from_json(&raw)?;
                let sent_at = match kind {
                    OneTimeKind::Confirmation => &mut user.confirmation_sent_at,
                    OneTimeKind::Recovery => &mut user.recovery_sent_at,
                    OneTimeKind::EmailChangeCurrent | OneTimeKind::EmailChangeNew => {
                        &mut user.email_change_sent_at
                    }
                    OneTimeKind::Reauthentication => &mut user.reauthentication_sent_at,
                };
                *sent_at = Some(Utc::now());
                users.insert(user_id.as_bytes(), to_json(&user))?;
                if let Some(old) = slots.insert(slot.as_slice(), &hash)? {
                    tokens.remove(old)?;
                }
                tokens.insert(&hash, to_json(&record))?;
                Ok(())
            })?;
        self.flush()?;
        Ok(token)
    }

    /// Spends a one-time token of `kind`. A good one also confirms the user's e-mail
    /// (the link reached the mailbox).
    pub fn redeem_one_time_token(&self, token: &str, kind: OneTimeKind) -> Result<Redeemed> {
        self.redeem_link(token, &[kind]).map(|(_, r)| r)
    }

    /// Spends a one-time token of any of `kinds` (GoTrue's `type=email` takes a
    /// confirmation or a recovery link alike) and says which kind it was. A good one
    /// also confirms the user's e-mail (the link reached the mailbox).
    pub fn redeem_link(
        &self,
        token: &str,
        kinds: &[OneTimeKind],
    ) -> Result<(Option<OneTimeKind>, Redeemed)> {
        self.writable()?;
        let hash = keys::secret(token);
        let now = Utc::now();
        let out = (
            &self.t.users,
            &self.t.onetime_tokens,
            &self.t.userid_onetime,
        )
            .transaction(|(users, tokens, slots)| {
                let Some(raw) = tokens.get(hash)? else {
                    return Ok((None, Redeemed::Invalid));
                };
                let record: OneTimeRecord = from_json(&raw)?;
                let kind = record.kind;
                if !kinds.contains(&kind) {
                    return Ok((None, Redeemed::Invalid));
                }
                tokens.remove(&hash)?;
                let slot = keys::join(record.user_id.as_bytes(), kind_name(kind).as_bytes());
                if slots
                    .get(slot.as_slice())?
                    .is_some_and(|h| h.as_ref() == hash.as_slice())
                {
                    slots.remove(slot.as_slice())?;
                }
                if record.expires_at <= now {
                    return Ok((Some(kind), Redeemed::Expired));
                }
                let Some(raw) = users.get(record.user_id.as_bytes())? else {
                    return Ok((Some(kind), Redeemed::Invalid));
                };
                let mut user: User = from_json(&raw)?;
                if user.email_confirmed_at.is_none() {
                    user.email_confirmed_at = Some(now);
                    user.updated_at = now;
                    users.insert(record.user_id.as_bytes(), to_json(&user))?;
                }
                Ok((
                    Some(kind),
                    Redeemed::Valid {
                        user: Box::new(user),
                        pkce: record.pkce,
                    },
                ))
            })?;
        self.flush()?;
        Ok(out)
    }

    /// Merges client-set metadata into a user's (a null value removes a key); keys the
    /// server owns are ignored.
    pub fn merge_user_metadata(
        &self,
        user_id: &str,
        data: serde_json::Map<String, serde_json::Value>,
    ) -> Result<User> {
        self.writable()?;
        let mut merged = self
            .user(user_id)?
            .ok_or(Error::NotFound("user"))?
            .user_metadata;
        merge_metadata(&mut merged, &data);
        check_metadata_size(&merged)?;
        self.update_user(user_id, |u| merge_metadata(&mut u.user_metadata, &data))
    }

    /// The user object of the auth protocol, with Radar's subscription fields.
    pub fn auth_user(&self, user: &User) -> radar_api::auth::AuthUser {
        let mut meta = user.user_metadata.clone();
        // The same subscription object as `GET /api/user/metadata`, so clients agree.
        meta.insert(
            "subscription".into(),
            serde_json::json!(self.subscription_status(user)),
        );
        meta.entry("avatar_url").or_insert(serde_json::Value::Null);
        let identity = radar_api::auth::AuthIdentity {
            identity_id: user.id.clone(),
            id: user.id.clone(),
            user_id: user.id.clone(),
            identity_data: serde_json::json!({
                "email": user.email,
                "email_verified": user.email_confirmed_at.is_some(),
                "phone_verified": false,
                "sub": user.id,
            }),
            provider: "email".into(),
            email: Some(user.email.clone()),
            last_sign_in_at: user.last_sign_in_at,
            created_at: user.created_at,
            updated_at: user.updated_at,
        };
        radar_api::auth::AuthUser {
            id: user.id.clone(),
            aud: "authenticated".into(),
            role: "authenticated".into(),
            email: user.email.clone(),
            phone: String::new(),
            email_confirmed_at: user.email_confirmed_at,
            confirmed_at: user.email_confirmed_at,
            last_sign_in_at: user.last_sign_in_at,
            confirmation_sent_at: user.confirmation_sent_at,
            recovery_sent_at: user.recovery_sent_at,
            new_email: user.new_email.clone(),
            email_change_sent_at: user.email_change_sent_at,
            reauthentication_sent_at: user.reauthentication_sent_at,
            app_metadata: radar_api::auth::AuthAppMetadata {
                provider: "email".into(),
                providers: vec!["email".into()],
            },
            user_metadata: meta,
            identities: vec![identity],
            created_at: user.created_at,
            updated_at: user.updated_at,
            is_anonymous: false,
            has_active_subscription: self.is_subscriber(user),
        }
    }
}

/// Client metadata without the keys the server owns.
pub fn client_metadata(
    data: serde_json::Map<String, serde_json::Value>,
) -> serde_json::Map<String, serde_json::Value> {
    data.into_iter()
        .filter(|(k, _)| !SERVER_METADATA.contains(&k.as_str()))
        .collect()
}

fn merge_metadata(
    into: &mut serde_json::Map<String, serde_json::Value>,
    data: &serde_json::Map<String, serde_json::Value>,
) {
    for (k, v) in data {
        if SERVER_METADATA.contains(&k.as_str()) {
            continue;
        }
        if v.is_null() {
            into.remove(k);
        } else {
            into.insert(k.clone(), v.clone());
        }
    }
}

/// The most user metadata one account may keep, as JSON bytes.
pub const MAX_METADATA_BYTES: usize = 16 * 1024;

/// A new account's record, checked: a new id, now, the normalised address.
fn new_user(
    email: &str,
    password_hash: String,
    user_metadata: serde_json::Map<String, serde_json::Value>,
    confirmed: bool,
) -> Result<User> {
    let email = normalize_email(email)?;
    check_metadata_size(&user_metadata)?;
    let now = Utc::now();
    Ok(User {
        id: uuid::Uuid::new_v4().to_string(),
        email,
        password_hash,
        created_at: now,
        updated_at: now,
        email_confirmed_at: confirmed.then_some(now),
        last_sign_in_at: None,
        confirmation_sent_at: None,
        recovery_sent_at: None,
        new_email: None,
        email_change_sent_at: None,
        reauthentication_sent_at: None,
        user_metadata,
        subscription: Subscription::default(),
    })
}

fn check_metadata_size(meta: &serde_json::Map<String, serde_json::Value>) -> Result<()> {
    if to_json(meta).len() > MAX_METADATA_BYTES {
        return Err(Error::Invalid(format!(
            "User metadata may hold at most {MAX_METADATA_BYTES} bytes of JSON."
        )));
    }
    Ok(())
}

/// The user's slot a one-time token of `kind` holds (one live token per slot).
pub(crate) fn kind_name(kind: OneTimeKind) -> &'static str {
    match kind {
        OneTimeKind::Recovery => "recovery",
        OneTimeKind::Confirmation => "confirmation",
        OneTimeKind::EmailChangeCurrent => "email_change_current",
        OneTimeKind::EmailChangeNew => "email_change_new",
        OneTimeKind::Reauthentication => "reauthentication",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_store;
    use crate::{Options, Store};

    #[test]
    fn emails_are_unique_ignoring_case_and_spaces() {
        let (_d, store) = test_store();
        let u = store
            .create_user(" Ada@Example.com ", "h".into(), Default::default(), true)
            .unwrap();
        assert_eq!(u.email, "ada@example.com");
        assert!(matches!(
            store.create_user("ADA@example.com", "h".into(), Default::default(), true),
            Err(Error::Conflict(_))
        ));
        assert_eq!(
            store.user_by_email("ada@EXAMPLE.com").unwrap().unwrap().id,
            u.id
        );
        assert!(
            store
                .create_user("not-an-email", "h".into(), Default::default(), true)
                .is_err()
        );
    }

    #[test]
    fn subscriber_rules() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(
            dir.path(),
            Options {
                complimentary: vec!["vip@example.com".into()],
                ..Default::default()
            },
        )
        .unwrap();
        let vip = store
            .create_user("vip@example.com", "h".into(), Default::default(), true)
            .unwrap();
        let free = store
            .create_user("free@example.com", "h".into(), Default::default(), true)
            .unwrap();
        assert!(store.is_subscriber(&vip));
        assert!(!store.is_subscriber(&free));
        let paid = store
            .update_user(&free.id, |u| {
                u.subscription.customer_id = Some("cus_1".into())
            })
            .unwrap();
        assert!(store.is_subscriber(&paid));
        let ended = store
            .update_user(&free.id, |u| {
                u.subscription = Subscription {
                    is_active: true,
                    customer_id: None,
                    until: Some(Utc::now() - chrono::Duration::days(1)),
                }
            })
            .unwrap();
        assert!(!store.is_subscriber(&ended));
    }

    #[test]
    fn one_time_tokens_are_single_use_replaced_by_newer_and_expire() {
        let (_d, store) = test_store();
        let u = store
            .create_user("r@example.com", "h".into(), Default::default(), false)
            .unwrap();
        let first = store
            .issue_one_time_token(
                &u.id,
                OneTimeKind::Recovery,
                chrono::Duration::hours(1),
                None,
            )
            .unwrap();
        let second = store
            .issue_one_time_token(
                &u.id,
                OneTimeKind::Recovery,
                chrono::Duration::hours(1),
                None,
            )
            .unwrap();
        assert!(matches!(
            store
                .redeem_one_time_token(&first, OneTimeKind::Recovery)
                .unwrap(),
            Redeemed::Invalid
        ));
        assert!(matches!(
            store
                .redeem_one_time_token(&second, OneTimeKind::Confirmation)
                .unwrap(),
            Redeemed::Invalid
        ));
        let Redeemed::Valid { user, pkce: None } = store
            .redeem_one_time_token(&second, OneTimeKind::Recovery)
            .unwrap()
        else {
            panic!()
        };
        assert!(
            user.email_confirmed_at.is_some(),
            "a redeemed link confirms the e-mail"
        );
        assert!(matches!(
            store
                .redeem_one_time_token(&second, OneTimeKind::Recovery)
                .unwrap(),
            Redeemed::Invalid
        ));
        let old = store
            .issue_one_time_token(
                &u.id,
                OneTimeKind::Recovery,
                chrono::Duration::seconds(-1),
                None,
            )
            .unwrap();
        assert!(matches!(
            store
                .redeem_one_time_token(&old, OneTimeKind::Recovery)
                .unwrap(),
            Redeemed::Expired
        ));
    }

    #[test]
    fn pkce_links_carry_their_challenge_to_redemption() {
        let (_d, store) = test_store();
        let u = store
            .create_user("p@example.com", "h".into(), Default::default(), false)
            .unwrap();
        let challenge = PkceChallenge {
            challenge: "c".repeat(43),
            method: crate::ChallengeMethod::Plain,
        };
        let token = store
            .issue_one_time_token(
                &u.id,
                OneTimeKind::Confirmation,
                chrono::Duration::hours(1),
                Some(challenge.clone()),
            )
            .unwrap();
        assert!(token.starts_with(PKCE_PREFIX), "{token}");
        let Redeemed::Valid { pkce, .. } = store
            .redeem_one_time_token(&token, OneTimeKind::Confirmation)
            .unwrap()
        else {
            panic!("a good PKCE link")
        };
        assert_eq!(pkce, Some(challenge));
    }

    #[test]
    fn auth_user_carries_subscription_and_avatar_and_clients_cannot_set_them() {
        let (_d, store) = test_store();
        let data = client_metadata(
            serde_json::json!({"subscription": {"isActive": true}, "name": "Ada"})
                .as_object()
                .unwrap()
                .clone(),
        );
        let u = store
            .create_user("m@example.com", "h".into(), data, true)
            .unwrap();
        let a = store.auth_user(&u);
        assert_eq!(
            a.user_metadata["subscription"],
            serde_json::json!({"isActive": false, "customerId": null})
        );
        assert_eq!(a.user_metadata["avatar_url"], serde_json::Value::Null);
        assert_eq!(a.user_metadata["name"], "Ada");
        assert!(!a.has_active_subscription);
        let patch = serde_json::json!({"avatar_url": "https://example.com/a.png", "name": null, "has_active_subscription": true});
        let u = store
            .merge_user_metadata(&u.id, patch.as_object().unwrap().clone())
            .unwrap();
        let a = store.auth_user(&u);
        assert_eq!(a.user_metadata["avatar_url"], "https://example.com/a.png");
        assert!(a.user_metadata.get("name").is_none());
        assert!(!a.has_active_subscription);
        let huge = serde_json::json!({"bio": "x".repeat(MAX_METADATA_BYTES)});
        assert!(matches!(
            store.merge_user_metadata(&u.id, huge.as_object().unwrap().clone()),
            Err(Error::Invalid(_))
        ));
    }
}
